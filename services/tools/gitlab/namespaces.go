package gitlab

import (
	"context"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// errGroupNotFound answers a group that does not exist or that the caller
// may not see (GitLab's words, without echoing the argument, so the two
// read the same).
var errGroupNotFound = &kindError{msg: "Group not found or inaccessible", kind: models.ErrNotFound}

// fullName is GitLab's full name of the group at path ("GitLab.org /
// Labs"), from groups holding it and its ancestors.
func fullName(groups map[string]*models.Group, path string) string {
	var names []string
	prefix := ""
	for _, seg := range strings.Split(path, "/") {
		prefix = strings.TrimPrefix(prefix+"/"+seg, "/")
		if grp := groups[prefix]; grp != nil {
			names = append(names, grp.Name)
		} else {
			names = append(names, seg)
		}
	}
	return strings.Join(names, " / ")
}

// groupFinder finds a group by its full path (namespaces' one lookup).
type groupFinder interface {
	FindGroupByFullPath(ctx context.Context, fullPath string) (*models.Group, error)
}

// groupNames returns the groups of gs and their ancestors by full path
// (for full names).
func groupNames(ctx context.Context, st groupFinder, gs []models.Group) (map[string]*models.Group, error) {
	known := map[string]*models.Group{}
	paths := make([]string, 0, len(gs))
	for k := range gs {
		known[gs[k].FullPath] = &gs[k]
		paths = append(paths, gs[k].FullPath)
	}
	return namespaces(ctx, st, known, paths)
}

// namespaces adds to known the groups at paths and all their ancestors,
// by full path: at most one lookup per distinct group of a page.
func namespaces(ctx context.Context, st groupFinder, known map[string]*models.Group, paths []string) (map[string]*models.Group, error) {
	for _, path := range paths {
		for path != "" {
			if _, ok := known[path]; !ok {
				grp, err := st.FindGroupByFullPath(ctx, path)
				if err != nil {
					return nil, err
				}
				known[path] = grp
			}
			i := strings.LastIndex(path, "/")
			if i < 0 {
				break
			}
			path = path[:i]
		}
	}
	return known, nil
}

var visibilityLevels = []string{"private", "internal", "public"}
