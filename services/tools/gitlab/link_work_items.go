package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// maxLinkTargets is GitLab's limit of work items linked in one call.
const maxLinkTargets = 10

// linkWorkItems is GitLab's link_work_items (GraphQL
// workItemAddLinkedItems). relates_to everywhere; blocks and blocked_by
// are GitLab Premium link types, so only the EE endpoint accepts them.
func linkWorkItems(g *gitlab) tools.Definition {
	lk := linkWorkItemsTool{store: g.store.Issues, inTx: g.inTx}
	props := workItemProps()
	props["url"] = urlProp("GitLab URL for the source work item. Required if project_id (or group_id) and work_item_iid are missing.")
	props["work_item_iid"] = iidProp("Internal ID of the source work item. Required if url is not provided.")
	props["work_items_ids"] = withDesc(obj{"type": "array", "items": obj{"type": []string{"string", "integer"}, "minLength": 1,
		"maxLength": 200, "minimum": 1}, "minItems": 1, "maxItems": maxLinkTargets},
		"Work items to link to: global IDs (format: gid://gitlab/WorkItem/<id>), or iids of work items in the source "+
			"work item's project. Maximum 10 items.")
	props["link_type"] = withDesc(obj{"type": "string", "enum": []string{"relates_to", "blocks", "blocked_by"}, "default": "relates_to"},
		"Type of relationship between the work items. Defaults to \"relates_to\". blocks and blocked_by need GitLab "+
			"Premium or Ultimate: on glmcp, the EE endpoint.")
	return tools.Definition{
		Name:  "link_work_items",
		Title: "Link work items",
		Description: "Link a work item to other work items with a relationship type (relates_to; blocks and blocked_by on " +
			"the EE endpoint). Needs at least the Reporter role in the source work item's project, and read access to " +
			"every target.",
		InputSchema: argsSchema(lk.run, props, "work_items_ids"),
		Annotations: writeTool("Link work items"),
		Toolset:     models.ToolsetWorkItems,
		Edition:     models.EditionCE,
		Source:      "app/services/mcp/tools/work_items/link_work_items_service.rb",
		// The source work item, which the caller must be able to link from.
		Target: workItemTarget[linkWorkItemsArgs](g, access.LinkWorkItem),
		// GitLab writes the link on both sides, so the linked items'
		// projects are written to as well as the source's: the strictest
		// of their rules governs the call.
		WriteTarget: []tools.TargetArg{{Name: "work_items_ids", Kind: tools.TargetWorkItems}},
		Run:         tools.Typed(lk.run),
	}
}

// linkWorkItemsStore is what link_work_items reads besides its target:
// the work items named by iid in the source's project.
type linkWorkItemsStore interface {
	issueLoader
}

// linkWorkItemsWriteStore is what link_work_items reads and writes in its
// transaction: each target, with its project, and the links.
type linkWorkItemsWriteStore struct {
	linkWorkItemsIssues
	projectLookup
}

// linkWorkItemsIssues is what link_work_items reads and writes of Issues.
type linkWorkItemsIssues interface {
	parentFinder
	LinkWorkItems(ctx context.Context, source int64, targets []int64, t models.LinkType) error
}

// linkWorkItemsTool is link_work_items with what it needs: the store and
// its transactions.
type linkWorkItemsTool struct {
	store linkWorkItemsStore // nil: no store (a catalog built without one)
	inTx  InTx
}

type linkWorkItemsArgs struct {
	workItemArgs
	WorkItemsIDs []refArg `json:"work_items_ids"`
	LinkType     string   `json:"link_type"`
}

// errNoMatchingWorkItem is GitLab's answer when a target does not exist
// or the caller cannot read it.
var errNoMatchingWorkItem = &kindError{msg: "No matching work item found. Make sure you are adding a valid ID and you have " +
	"access to the item.", kind: models.ErrNotFound}

func (lk linkWorkItemsTool) run(ctx context.Context, call *tools.Call, args linkWorkItemsArgs) (*tools.Result, error) {
	if lk.store == nil {
		return nil, errNoStore
	}
	u, err := callerOf(call)
	if err != nil {
		return nil, err
	}
	linkType := models.LinkRelatesTo
	switch lt := strings.ToLower(args.LinkType); lt {
	case "", "relates_to":
	default:
		if call.Edition != models.EditionEE {
			return nil, invalidf("Invalid link_type: '%s'. blocks and blocked_by need GitLab Premium or Ultimate: "+
				"call link_work_items on the EE endpoint (/api/v4/orbit/mcp)", args.LinkType)
		}
		linkType = models.LinkType(lt)
	}
	// A target is a global id, or an iid resolved in the source's project
	// once the source is known (0 in targetIDs until then).
	targetIDs := make([]int64, len(args.WorkItemsIDs))
	iids := map[int]int64{}
	for k, ref := range args.WorkItemsIDs {
		raw := string(ref)
		if num, ok := strings.CutPrefix(raw, "gid://gitlab/WorkItem/"); ok {
			id, err := strconv.ParseInt(num, 10, 64)
			if err != nil || id <= 0 || !isDigits(num) {
				return nil, invalidf("Invalid work item ID format: '%s'. Expected GitLab global ID (gid://gitlab/WorkItem/<id>)", raw)
			}
			targetIDs[k] = id
			continue
		}
		iid, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || iid <= 0 || !isDigits(raw) {
			return nil, invalidf("Invalid target work item ID format: '%s'. Expected an iid (integer) or a global ID "+
				"(gid://gitlab/WorkItem/<id>)", raw)
		}
		iids[k] = iid
	}
	pa, source, err := targetWorkItem(call)
	if err != nil {
		return nil, err
	}
	for k, iid := range iids {
		// One the caller cannot read reads as one that does not exist.
		missing := &kindError{msg: fmt.Sprintf("Target work item with iid '%d' not found in %s. Use a global ID "+
			"(gid://gitlab/WorkItem/<id>) for work items in other projects or groups.", iid, pa.project.PathWithNamespace),
			kind: models.ErrNotFound}
		target, err := readableIssue(ctx, lk.store, u, pa, iid, missing)
		if err != nil {
			return nil, err
		}
		targetIDs[k] = target.ID
	}
	for _, id := range targetIDs {
		if id == source.ID {
			return nil, invalidf("a work item cannot be linked to itself (%s)", gid("WorkItem", id))
		}
	}
	err = lk.inTx(ctx, func(tx Families) error {
		st := linkWorkItemsWriteStore{tx.Issues, tx.Projects}
		for _, id := range targetIDs {
			if err := readableTarget(ctx, st, u, id); err != nil {
				return err
			}
		}
		err := st.LinkWorkItems(ctx, source.ID, targetIDs, linkType)
		if errors.Is(err, models.ErrConflict) {
			return conflictf("%s#%d is already linked to one of these work items; nothing was linked",
				pa.project.PathWithNamespace, source.IID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(targetIDs))
	for _, id := range targetIDs {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	return jsonResult(obj{
		"workItem": obj{"id": gid("WorkItem", source.ID), "iid": fmt.Sprint(source.IID), "title": source.Title},
		"message":  "Successfully linked ID(s): " + sentence(ids) + ".",
		"errors":   []string{},
	})
}

// readableTarget checks that work item id exists and u may read it; any
// other case is GitLab's "No matching work item found".
func readableTarget(ctx context.Context, st linkWorkItemsWriteStore, u *models.User, id int64) error {
	found, err := st.FindIssueByID(ctx, id)
	if errors.Is(err, models.ErrNotFound) {
		return errNoMatchingWorkItem
	}
	if err != nil {
		return err
	}
	p, level, err := st.FindProjectWithRoleByID(ctx, found.ProjectID, u.ID)
	if errors.Is(err, models.ErrNotFound) {
		return errNoMatchingWorkItem
	}
	if err != nil {
		return err
	}
	target, err := st.LoadIssue(ctx, found.ProjectID, found.IID)
	if err != nil {
		return err
	}
	if !access.CanReadIssue(u, p, target, level) {
		return errNoMatchingWorkItem
	}
	return nil
}

// sentence joins words as Ruby's to_sentence does: "a", "a and b",
// "a, b, and c".
func sentence(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	case 2:
		return words[0] + " and " + words[1]
	}
	return strings.Join(words[:len(words)-1], ", ") + ", and " + words[len(words)-1]
}
