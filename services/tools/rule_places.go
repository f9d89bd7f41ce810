package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"gitlab.com/glmcp/glmcp/models"
)

// Where a call of a write tool writes, for the tool rules: the projects
// or groups its arguments name that the caller can see. Which arguments
// name them, how an id, a path, a URL or a global id is read and who may
// see what are the tool package's to know (its Places); the service only
// reads the answer, and the Target it resolved.

// Place is a project (with its group) or a group a call writes to, which
// the caller can see.
type Place struct {
	// ProjectID is 0 for a group.
	ProjectID, GroupID int64
	Path               string
}

// Places finds where a call of a write tool writes. The tool package that
// declares the tool implements it (Definition.Places).
type Places interface {
	// WritePlaces returns the places call's arguments name that u can
	// see, each once: with primary, first the one the tool writes to (the
	// first of declared's single-target arguments present, or without
	// declared GitLab's usual argument names), then one per element of
	// declared's list-kind arguments, in argument order. A place u cannot
	// see, or a reference naming none, is left out; the error is a server
	// failure only.
	WritePlaces(ctx context.Context, u *models.User, call *Call, declared []TargetArg, primary bool) ([]Place, error)
}

// checkWriteTarget refuses a definition whose WriteTarget names an
// argument its input schema does not have, or a kind it does not know:
// rules would silently read no target.
func checkWriteTarget(d *Definition) error {
	if len(d.WriteTarget) == 0 {
		return nil
	}
	if d.Places == nil {
		return fmt.Errorf("tool %q: a write target needs the tool package's Places to read it", d.Name)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(d.InputSchema, &schema)
	for _, t := range d.WriteTarget {
		if _, ok := schema.Properties[t.Name]; !ok {
			return fmt.Errorf("tool %q: write target %q is not an argument", d.Name, t.Name)
		}
		switch t.Kind {
		case TargetProject, TargetGroup, TargetVulnerability, TargetURL, TargetWorkItems, TargetProjects, TargetGroups:
		default:
			return fmt.Errorf("tool %q: write target %q: kind %q is not project, group, vulnerability, url, work_items, projects or groups", d.Name, t.Name, t.Kind)
		}
	}
	return nil
}
