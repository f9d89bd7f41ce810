package importexport

import (
	"gitlab.com/glmcp/glmcp/models"
)

// convertLabels writes the project's labels.
func (c *converter) convertLabels() {
	for _, l := range c.a.Labels {
		c.addLabel(l.Rec)
	}
	c.sum.Imported[relLabels] = len(c.r.Labels)
}

func (c *converter) addLabel(l exLabel) {
	c.labelByID[l.ID] = l.Title
	if c.labels[l.Title] {
		return
	}
	c.labels[l.Title] = true
	color := l.Color
	if color == "" {
		color = "#6699cc"
	}
	c.r.Labels = append(c.r.Labels, models.Label{Name: l.Title, Color: color, Description: l.Description,
		Priority: labelPriority(&l), CreatedAt: orNow(l.CreatedAt), UpdatedAt: orNow(l.UpdatedAt)})
}

// labelTitles are the titles of the labels links name; a group label a
// link carries becomes a project label.
func (c *converter) labelTitles(links []exLabelLink) models.StringList {
	out := models.StringList{}
	for _, l := range links {
		if l.Label != nil {
			if !c.labels[l.Label.Title] {
				c.addLabel(*l.Label)
				c.sum.Imported["labels (group labels copied)"]++
			}
			out = append(out, l.Label.Title)
		} else {
			out = append(out, c.labelByID[l.LabelID])
		}
	}
	return out
}

// convertMilestones writes the project's milestones, their iids kept:
// those of milestones.ndjson, then the project milestones only an issue
// or a merge request names (older exports nest them there), keeping
// theirs when free. Group milestones come later (milestoneTitle), with
// the next free iids, as GitLab numbers them.
func (c *converter) convertMilestones() {
	for _, m := range c.a.Milestones {
		c.maxIID = max(c.maxIID, m.Rec.IID)
	}
	for _, m := range c.a.Milestones {
		c.addMilestone(m.Rec, true)
		c.sum.Skipped["events"] += countArray(m.Rec.Events)
	}
	c.sum.Imported[relMilestones] = len(c.r.Milestones)
	for _, m := range c.a.nestedMilestones {
		if !c.milestones[m.Title] {
			c.addMilestone(m, !c.usedIIDs[m.IID])
			c.sum.Imported["milestones (named by issues and merge requests)"]++
		}
	}
}

func (c *converter) addMilestone(m exMilestone, keepIID bool) {
	if c.milestones[m.Title] {
		return
	}
	c.milestones[m.Title] = true
	iid := m.IID
	if !keepIID {
		for c.usedIIDs[c.maxIID+1] {
			c.maxIID++
		}
		c.maxIID++
		iid = c.maxIID
	}
	if c.usedIIDs == nil {
		c.usedIIDs = map[int64]bool{}
	}
	c.usedIIDs[iid] = true
	c.maxIID = max(c.maxIID, iid)
	state := models.MilestoneState(m.State)
	if state == "" {
		state = models.MilestoneActive
	}
	c.r.Milestones = append(c.r.Milestones, models.Milestone{IID: iid, Title: m.Title, Description: m.Description,
		State: state, StartDate: date(m.StartDate), DueDate: date(m.DueDate),
		CreatedAt: orNow(m.CreatedAt), UpdatedAt: orNow(m.UpdatedAt)})
}

// milestoneTitle is the title of the milestone an issue or a merge
// request names; a group milestone becomes a project milestone with the
// next free iid.
func (c *converter) milestoneTitle(m *exMilestone) string {
	if m == nil || m.Title == "" {
		return ""
	}
	if !c.milestones[m.Title] {
		c.addMilestone(*m, false)
		c.sum.Imported["milestones (group milestones copied)"]++
	}
	return m.Title
}
