package importexport

import (
	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// convertReleases writes the releases with their links.
func (c *converter) convertReleases() error {
	for _, l := range c.a.Releases {
		x := l.Rec
		author, err := c.um.ptr(c.ctx, x.AuthorID)
		if err != nil {
			return err
		}
		rel := models.Release{Tag: x.Tag, Name: x.Name, Description: x.Description, AuthorID: author,
			CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt)}
		if rel.Name == "" {
			rel.Name = x.Tag
		}
		rel.ReleasedAt = rel.CreatedAt
		if x.ReleasedAt != nil {
			rel.ReleasedAt = *x.ReleasedAt
		}
		for _, k := range x.Links {
			lt := k.LinkType
			if lt == "" {
				lt = "other"
			}
			rel.Links = append(rel.Links, models.ReleaseLink{Name: k.Name, URL: k.URL, LinkType: lt, CreatedAt: orNow(k.CreatedAt)})
			c.sum.Imported["release links"]++
		}
		c.r.Releases = append(c.r.Releases, rel)
		for _, mr := range x.MilestoneReleases {
			if mr.Milestone != nil {
				c.releaseMilestones = append(c.releaseMilestones, releaseMilestone{tag: x.Tag, milestone: *mr.Milestone})
			}
		}
	}
	c.sum.Imported[relReleases] = len(c.r.Releases)
	return nil
}

// releaseMilestone is a release's milestone, linked once the issues and
// merge requests have named theirs.
type releaseMilestone struct {
	tag       string
	milestone exMilestone
}

// convertReleaseMilestones links the releases to their milestones, with
// the last part: a milestone only a release names is copied after those
// the issues and merge requests name, so that theirs keep the iids
// GitLab gives them.
func (c *converter) convertReleaseMilestones() error {
	for _, l := range c.releaseMilestones {
		if title := c.milestoneTitle(&l.milestone); title != "" {
			c.r.ReleaseMilestones = append(c.r.ReleaseMilestones, store.RecordReleaseMilestone{Tag: l.tag, MilestoneTitle: title})
			c.sum.Imported["release milestones"]++
		}
	}
	return nil
}
