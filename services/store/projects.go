package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// CreateProject inserts p and fills its ID, PathWithNamespace (the
// namespace's full path and p.Path) and timestamps. Visibility defaults to
// private and may not be wider than the namespace's; DefaultBranch defaults
// to "main". A name (exactly) or a path (ignoring case) already taken in
// the namespace is a *models.TakenError naming both when both are
// (GitLab's rule); the database's unique indexes enforce it for concurrent
// creations too, where the loser's error names the index that refused
// it. A missing namespace, an empty name or path, a path
// with "/" or an unknown visibility is models.ErrInvalidInput.
//
// With Options.Repositories set, the project's git repository is created
// in the same transaction: a repository that cannot be created rolls the
// row back, and a row that cannot be committed removes the repository.
func (s *Projects) CreateProject(ctx context.Context, p *models.Project) error {
	if err := s.prepareProject(ctx, p); err != nil {
		return fmt.Errorf("create project %q: %w", p.Path, err)
	}
	p.ID = 0
	if s.repos == nil {
		return s.insertProject(ctx, p)
	}
	created := false
	err := s.st.WithTx(ctx, func(tx *Store) error {
		if err := tx.Projects.insertProject(ctx, p); err != nil {
			return err
		}
		if err := s.repos.Create(ctx, p.ID, p.DefaultBranch); err != nil {
			return fmt.Errorf("create project %q: repository: %w", p.PathWithNamespace, err)
		}
		created = true
		return nil
	})
	if err != nil && created {
		if rmErr := s.repos.Remove(p.ID); rmErr != nil {
			s.log.Error("remove the repository of a project that was not created", "project_id", p.ID, "error", rmErr)
		}
	}
	return err
}

func (s *Projects) insertProject(ctx context.Context, p *models.Project) error {
	if err := s.conn(ctx).Omit("Namespace").Create(p).Error; err != nil {
		// A project created since prepareProject looked (a concurrent
		// creation): the index that refused the row says which field.
		switch {
		case violates(err, "index_projects_on_namespace_id_and_name", "projects.namespace_id, projects.name"):
			return fmt.Errorf("create project %q: %w", p.PathWithNamespace, &models.TakenError{Fields: []string{"Name"}})
		case violates(err, "index_projects_on_lower_path_with_namespace", "index_projects_on_lower_path_with_namespace"):
			return fmt.Errorf("create project %q: %w", p.PathWithNamespace, &models.TakenError{Fields: []string{"Path"}})
		}
		return fmt.Errorf("create project %q: %w", p.PathWithNamespace, translate(err))
	}
	s.changedViews(projectViews(p.ID))
	return nil
}

// ProjectRepositories creates and removes projects' git repositories
// (*repository.Storage; declared here so the store does not import it).
type ProjectRepositories interface {
	Create(ctx context.Context, projectID int64, defaultBranch string) error
	Remove(projectID int64) error
	Exists(projectID int64) bool
}

// Repositories returns the repositories the store was opened with (nil
// when none): services/demo writes the demo history through them.
func (s *Projects) Repositories() ProjectRepositories { return s.repos }

// EnsureRepositories creates the repository of every project that has
// none (projects created before repositories existed, or restored from a
// database backup without them). It returns how many it created.
func (s *Projects) EnsureRepositories(ctx context.Context) (int, error) {
	if s.repos == nil {
		return 0, nil
	}
	var rows []struct {
		ID            int64
		DefaultBranch string
	}
	if err := s.conn(ctx).Model(&models.Project{}).Select("id", "default_branch").Order("id").Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("list projects: %w", translate(err))
	}
	n := 0
	for _, r := range rows {
		if s.repos.Exists(r.ID) {
			continue
		}
		if err := s.repos.Create(ctx, r.ID, r.DefaultBranch); err != nil {
			return n, fmt.Errorf("repository of project %d: %w", r.ID, err)
		}
		n++
	}
	return n, nil
}

// ProjectIDs returns the id of every project, in order (what the
// repositories' recovery at start needs to tell a project's repository
// from a leftover).
func (s *Projects) ProjectIDs(ctx context.Context) ([]int64, error) {
	var ids []int64
	if err := s.conn(ctx).Model(&models.Project{}).Order("id").Pluck("id", &ids).Error; err != nil {
		return nil, fmt.Errorf("list projects: %w", translate(err))
	}
	return ids, nil
}

// SetProjectDefaultBranch makes branch project id's default branch (the
// repository's HEAD is the caller's business). A missing project is
// models.ErrNotFound; an empty branch models.ErrInvalidInput.
func (s *Projects) SetProjectDefaultBranch(ctx context.Context, id int64, branch string) error {
	if strings.TrimSpace(branch) == "" {
		return fmt.Errorf("set default branch of project %d: empty branch: %w", id, models.ErrInvalidInput)
	}
	res := s.conn(ctx).Model(&models.Project{}).Where("id = ?", id).
		Updates(map[string]any{"default_branch": branch, "updated_at": s.clock()})
	if res.Error != nil {
		return fmt.Errorf("set default branch of project %d: %w", id, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set default branch of project %d: %w", id, models.ErrNotFound)
	}
	s.changedViews(projectViews(id))
	return nil
}

// SetProjectMergeMethod sets project id's merge method
// (models.MergeMethod*). An unknown method is models.ErrInvalidInput; a
// missing project models.ErrNotFound.
func (s *Projects) SetProjectMergeMethod(ctx context.Context, id int64, method string) error {
	switch method {
	case models.MergeMethodMerge, models.MergeMethodRebaseMerge, models.MergeMethodFastForward:
	default:
		return fmt.Errorf("set merge method of project %d: %q is not merge, rebase_merge or ff: %w", id, method, models.ErrInvalidInput)
	}
	res := s.conn(ctx).Model(&models.Project{}).Where("id = ?", id).
		Updates(map[string]any{"merge_method": method, "updated_at": s.clock()})
	if res.Error != nil {
		return fmt.Errorf("set merge method of project %d: %w", id, translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("set merge method of project %d: %w", id, models.ErrNotFound)
	}
	s.changedViews(projectViews(id))
	return nil
}

// FindProjectByID returns the project with id, or models.ErrNotFound.
func (s *Projects) FindProjectByID(ctx context.Context, id int64) (*models.Project, error) {
	var p models.Project
	if err := s.conn(ctx).Where("id = ?", id).Take(&p).Error; err != nil {
		return nil, fmt.Errorf("find project %d: %w", id, translate(err))
	}
	return &p, nil
}

// FindProjectByPath returns the project at pathWithNamespace
// ("gitlab-org/gitlab-mcp"), ignoring case, or models.ErrNotFound.
func (s *Projects) FindProjectByPath(ctx context.Context, pathWithNamespace string) (*models.Project, error) {
	var p models.Project
	err := s.conn(ctx).Where("lower(path_with_namespace) = lower(?)", pathWithNamespace).Take(&p).Error
	if err != nil {
		return nil, fmt.Errorf("find project %q: %w", pathWithNamespace, translate(err))
	}
	return &p, nil
}

func (s *Projects) prepareProject(ctx context.Context, p *models.Project) error {
	if strings.TrimSpace(p.Name) == "" || !validPathSegment(p.Path) {
		return fmt.Errorf("name and a path without \"/\" are required: %w", models.ErrInvalidInput)
	}
	if p.Visibility == "" {
		p.Visibility = models.VisibilityPrivate
	}
	if p.MergeMethod == "" {
		p.MergeMethod = models.MergeMethodMerge
	}
	if !p.Visibility.Valid() {
		return fmt.Errorf("visibility %q: %w", p.Visibility, models.ErrInvalidInput)
	}
	if p.DefaultBranch == "" {
		p.DefaultBranch = "main"
	}
	ns, err := s.st.Groups.FindGroupByID(ctx, p.NamespaceID)
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("namespace %d does not exist: %w", p.NamespaceID, models.ErrInvalidInput)
	}
	if err != nil {
		return err
	}
	if p.Visibility.Rank() > ns.Visibility.Rank() {
		return fmt.Errorf("visibility %s is wider than namespace's %s: %w", p.Visibility, ns.Visibility, models.ErrInvalidInput)
	}
	p.PathWithNamespace = ns.FullPath + "/" + p.Path
	return s.checkProjectTaken(ctx, p)
}

// checkProjectTaken answers a *models.TakenError naming every field of p
// already taken in its namespace: the name exactly (GitLab's
// unique_projects_on_name_namespace_id), the path ignoring case.
func (s *Projects) checkProjectTaken(ctx context.Context, p *models.Project) error {
	var taken struct{ Name, Path int64 }
	err := s.conn(ctx).Model(&models.Project{}).
		Select("COUNT(CASE WHEN namespace_id = ? AND name = ? THEN 1 END) AS name, "+
			"COUNT(CASE WHEN lower(path_with_namespace) = lower(?) THEN 1 END) AS path",
			p.NamespaceID, p.Name, p.PathWithNamespace).
		Where("(namespace_id = ? AND name = ?) OR lower(path_with_namespace) = lower(?)", p.NamespaceID, p.Name, p.PathWithNamespace).
		Scan(&taken).Error
	if err != nil {
		return fmt.Errorf("look for taken names: %w", translate(err))
	}
	var fields []string
	if taken.Name > 0 {
		fields = append(fields, "Name")
	}
	if taken.Path > 0 {
		fields = append(fields, "Path")
	}
	if fields != nil {
		return &models.TakenError{Fields: fields}
	}
	return nil
}

// LoadProjects returns the projects with the given ids (those that exist),
// ordered by id.
func (s *Projects) LoadProjects(ctx context.Context, ids []int64) ([]models.Project, error) {
	out := []models.Project{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.conn(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("load projects: %w", translate(err))
	}
	return out, nil
}

// VisibleProjectIDs returns the ids of the projects viewer may read in the
// group at groupPath and its subgroups, ordered by id.
func (s *Projects) VisibleProjectIDs(ctx context.Context, viewer *models.User, groupPath string) ([]int64, error) {
	ids := []int64{}
	q := withProjects(s.conn(ctx).Table("projects"), "projects.id", viewer, 0, groupPath)
	if err := q.Order("projects.id").Pluck("projects.id", &ids).Error; err != nil {
		return nil, fmt.Errorf("visible projects in %q: %w", groupPath, translate(err))
	}
	return ids, nil
}

// FindProjectWithRoleByID returns the project with id together with
// userID's role in it (direct or inherited from a group) (models.NoAccess for a non-member), read in
// one statement, or models.ErrNotFound. It does not check permissions.
func (s *Projects) FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error) {
	p, level, err := s.findProjectWithRole(ctx, userID, "projects.id = ?", id)
	if err != nil {
		return nil, models.NoAccess, fmt.Errorf("find project %d: %w", id, err)
	}
	return p, level, nil
}

// FindProjectWithRoleByPath is FindProjectWithRoleByID for the project at
// pathWithNamespace ("gitlab-org/gitlab-mcp"), ignoring case.
func (s *Projects) FindProjectWithRoleByPath(ctx context.Context, pathWithNamespace string, userID int64) (*models.Project, models.AccessLevel, error) {
	p, level, err := s.findProjectWithRole(ctx, userID, "lower(projects.path_with_namespace) = lower(?)", pathWithNamespace)
	if err != nil {
		return nil, models.NoAccess, fmt.Errorf("find project %q: %w", pathWithNamespace, err)
	}
	return p, level, nil
}

// projectWithRole is a project row with the caller's membership joined.
type projectWithRole struct {
	models.Project
	MemberAccessLevel models.AccessLevel
}

// findProjectWithRole reads the project matching cond (on the projects
// table) and userID's access level in it, with one LEFT JOIN on the
// view project_authorizations (direct and inherited memberships).
func (s *Projects) findProjectWithRole(ctx context.Context, userID int64, cond string, arg any) (*models.Project, models.AccessLevel, error) {
	var row projectWithRole
	err := s.conn(ctx).Table("projects").
		Select("projects.*, COALESCE(pm.access_level, 0) AS member_access_level").
		Joins("LEFT JOIN project_authorizations pm ON pm.project_id = projects.id AND pm.user_id = ?", userID).
		Where(cond, arg).Take(&row).Error
	if err != nil {
		return nil, models.NoAccess, translate(err)
	}
	return &row.Project, row.MemberAccessLevel, nil
}

// ListProjects returns one page of projects (see models.ProjectQuery)
// ordered by id, after q.AfterID, at most q.Limit+1 (the extra row tells
// the caller that more follow). Only projects q.Viewer may read are listed.
func (s *Projects) ListProjects(ctx context.Context, q models.ProjectQuery) ([]models.Project, error) {
	out := []models.Project{}
	vis, vargs := visibleProjectsSQL(q.Viewer)
	db := s.conn(ctx).Table("projects").Where(vis, vargs...).Where("projects.id > ?", q.AfterID)
	switch {
	case q.SubgroupsIncluded():
		scope, args := scopeProjectsSQL(0, q.GroupPath)
		db = db.Where(scope, args...)
	case q.GroupPath != "":
		db = db.Where("projects.namespace_id IN (SELECT pn.id FROM namespaces pn WHERE lower(pn.full_path) = lower(?))", q.GroupPath)
	}
	min := q.MinAccess
	if min == models.NoAccess && q.GroupPath == "" {
		min = models.Guest
	}
	if min != models.NoAccess {
		db = db.Where("projects.id IN (SELECT lpa.project_id FROM project_authorizations lpa WHERE lpa.user_id = ? AND lpa.access_level >= ?)",
			q.Viewer.ID, min)
	}
	if q.Visibility != "" {
		db = db.Where("projects.visibility = ?", q.Visibility)
	}
	switch q.Archived {
	case "only":
		db = db.Where("projects.archived")
	case "include":
	default:
		db = db.Where("NOT projects.archived")
	}
	db = matchAny(db, q.Search, "projects.name", "projects.path", "projects.description")
	if err := db.Order("projects.id").Limit(q.Limit + 1).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list projects: %w", translate(err))
	}
	return out, nil
}
