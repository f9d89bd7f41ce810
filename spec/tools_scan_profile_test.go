package spec

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// attach_scan_profile (EE, code_security): a root group's scan profile, or
// a scan type's default, attached to projects and to groups' projects.

func TestTools_attachScanProfile(t *testing.T) {
	h := startServer(t, withEE())
	ce, ee := h.groups()[0], h.groups()[1]
	ctx := context.Background()
	st := h.Env.Store
	mcp, orbit := toolsProject(t, h, "gitlab-org/gitlab-mcp"), toolsProject(t, h, "gitlab-org/orbit")
	secret := toolsProject(t, h, "acme/secret-plans")
	gid := func(typ string, id int64) string { return fmt.Sprintf("gid://gitlab/%s/%d", typ, id) }
	attach := func(profile string, projects ...*models.Project) map[string]any {
		ids := []any{}
		for _, p := range projects {
			ids = append(ids, gid("Project", p.ID))
		}
		return map[string]any{"security_scan_profile_id": profile, "project_ids": ids}
	}
	attachedTo := func(profileID int64) []int64 {
		ids, err := st.Vulnerabilities.ScanProfileProjectIDs(ctx, profileID)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	profileOf := func(scanType string) *models.ScanProfile {
		root, err := st.Groups.FindGroupByFullPath(ctx, "gitlab-org")
		if err != nil {
			t.Fatal(err)
		}
		p, err := st.Vulnerabilities.DefaultScanProfile(ctx, root.ID, scanType)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	both := []int64{mcp.ID, orbit.ID}
	slices.Sort(both)
	toolsAddUser(t, h, "erin") // EE seat, member of nothing
	const noAccess = "The resource that you are attempting to access does not exist or you don't have permission to perform this action"

	t.Run("a scan type's default profile, to projects, once", func(t *testing.T) {
		for _, era := range eras {
			sc := h.toolsWrite(t, ee, era, "root", "attach_scan_profile",
				attach("gid://gitlab/Security::ScanProfile/secret_detection", mcp, orbit))
			toolsExpectField(t, sc, "[]", "errors")
		}
		if n := storetest.Int(t, st, "SELECT COUNT(*) FROM security_scan_profiles"); n != 1 {
			t.Fatalf("profiles = %d, want the one default", n)
		}
		p := profileOf("secret_detection")
		if p.Name != "Secret Detection (default)" || !p.GitLabRecommended {
			t.Errorf("default profile = %+v", p)
		}
		if got := attachedTo(p.ID); !slices.Equal(got, both) {
			t.Errorf("attached to %v, want %v once each", got, both)
		}
	})

	t.Run("a group: every project below it", func(t *testing.T) {
		g, err := st.Groups.FindGroupByFullPath(ctx, "gitlab-org")
		if err != nil {
			t.Fatal(err)
		}
		sc := h.toolsWrite(t, ee, "modern", "root", "attach_scan_profile", map[string]any{
			"security_scan_profile_id": "gid://gitlab/Security::ScanProfile/sast", "group_ids": []any{gid("Group", g.ID)}})
		toolsExpectField(t, sc, "[]", "errors")
		want := storetest.Int(t, st, "SELECT COUNT(*) FROM projects WHERE path_with_namespace LIKE 'gitlab-org/%'")
		if got := attachedTo(profileOf("sast").ID); int64(len(got)) != want || want < 2 {
			t.Errorf("sast attached to %v, want the %d projects of gitlab-org", got, want)
		}
	})

	t.Run("a profile by its id", func(t *testing.T) {
		p := profileOf("dependency_scanning")
		sc := h.toolsWrite(t, ee, "legacy", "root", "attach_scan_profile", attach(gid("Security::ScanProfile", p.ID), orbit))
		toolsExpectField(t, sc, "[]", "errors")
		if got := attachedTo(p.ID); !slices.Equal(got, []int64{orbit.ID}) {
			t.Errorf("attached to %v, want [%d]", got, orbit.ID)
		}
	})

	t.Run("refusals change nothing", func(t *testing.T) {
		sd := "gid://gitlab/Security::ScanProfile/secret_detection"
		// A Developer may not; a project hidden from the caller reads as
		// a missing one.
		h.toolsFailWith(t, ee, "alice", "attach_scan_profile", attach(sd, mcp), noAccess)
		h.toolsSameAsMissing(t, ee, "erin", "attach_scan_profile", attach(sd, secret),
			map[string]any{"security_scan_profile_id": sd, "project_ids": []any{"gid://gitlab/Project/99999"}})
		// No default for the scan type, an unknown one, a profile of
		// another root group, a missing one.
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach("gid://gitlab/Security::ScanProfile/container_scanning", mcp), noAccess)
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach("gid://gitlab/Security::ScanProfile/nope", mcp), noAccess)
		acme, err := st.Groups.FindGroupByFullPath(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		other, err := st.Vulnerabilities.DefaultScanProfile(ctx, acme.ID, "sast")
		if err != nil {
			t.Fatal(err)
		}
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach(gid("Security::ScanProfile", other.ID), mcp), noAccess)
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach("gid://gitlab/Security::ScanProfile/99999", mcp), noAccess)
		// Arguments.
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach(sd, mcp, secret), "Validation error: All items should belong to the same root namespace")
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", map[string]any{"security_scan_profile_id": sd}, "Validation error: All items should belong to the same root namespace")
		many := []*models.Project{}
		for range 101 {
			many = append(many, mcp)
		}
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach(sd, many...), "Validation error: Too many ids (maximum: 100)")
		for _, c := range []struct {
			args map[string]any
			frag string
		}{
			{map[string]any{"security_scan_profile_id": "12", "project_ids": []any{gid("Project", mcp.ID)}}, "not a global ID of a Security::ScanProfile"},
			{map[string]any{"security_scan_profile_id": sd, "project_ids": []any{fmt.Sprint(mcp.ID)}}, "project_ids[0]"},
			{map[string]any{"security_scan_profile_id": sd, "group_ids": []any{gid("Project", mcp.ID)}}, "not a global ID of a Group"},
			{map[string]any{"security_scan_profile_id": sd, "project_ids": []any{}}, "project_ids"},
			{map[string]any{"project_ids": []any{gid("Project", mcp.ID)}}, "security_scan_profile_id"},
			{overrideArgs(attach(sd, mcp), "extra", true), "extra"},
		} {
			if text := h.toolsFail(t, ee, "root", "attach_scan_profile", c.args); !strings.Contains(text, c.frag) {
				t.Errorf("%v: %q, want it to mention %q", c.args, text, c.frag)
			}
		}
		h.toolsBlocked(t, ee, "attach_scan_profile", attach(sd, mcp))
		// An EE tool: not on the CE group.
		for _, era := range eras {
			r := h.toolsCall(t, ce, era, "root", "attach_scan_profile", attach(sd, mcp))
			if r.Status == http.StatusOK && !strings.Contains(string(r.Body), "Tool 'attach_scan_profile' not found.") {
				t.Errorf("%s: CE answered %s", era, r.Body)
			}
		}
	})

	t.Run("two agents attaching one default at once: one profile", func(t *testing.T) {
		var wg sync.WaitGroup
		for _, p := range []*models.Project{mcp, orbit, mcp, orbit} {
			wg.Go(func() {
				h.toolsWrite(t, ee, "modern", "root", "attach_scan_profile",
					attach("gid://gitlab/Security::ScanProfile/dependency_scanning", p))
			})
		}
		wg.Wait()
		if n := storetest.Int(t, st, "SELECT COUNT(*) FROM security_scan_profiles WHERE scan_type = 'dependency_scanning'"); n != 1 {
			t.Errorf("dependency_scanning profiles = %d, want 1", n)
		}
		if got := attachedTo(profileOf("dependency_scanning").ID); !slices.Equal(got, both) {
			t.Errorf("attached to %v", got)
		}
	})

	t.Run("a project at the profile limit is named and skipped", func(t *testing.T) {
		root, _ := st.Groups.FindGroupByFullPath(ctx, "gitlab-org")
		for i := 0; storetest.Int(t, st, "SELECT COUNT(*) FROM security_scan_profiles_projects WHERE project_id = ?", mcp.ID) < models.MaxScanProfilesPerProject; i++ {
			p := &models.ScanProfile{NamespaceID: root.ID, ScanType: "dast", Name: fmt.Sprintf("filler %d", i)}
			if err := st.Vulnerabilities.CreateScanProfile(ctx, p); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Vulnerabilities.AttachScanProfile(ctx, p.ID, []int64{mcp.ID}); err != nil {
				t.Fatal(err)
			}
		}
		p := &models.ScanProfile{NamespaceID: root.ID, ScanType: "dast", Name: "one more"}
		if err := st.Vulnerabilities.CreateScanProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
		sc := h.toolsWrite(t, ee, "modern", "root", "attach_scan_profile", attach(gid("Security::ScanProfile", p.ID), mcp, orbit))
		toolsExpectField(t, sc, fmt.Sprintf("Project '%s' (gitlab-org/gitlab-mcp) has reached the maximum limit of 10 scan profiles", mcp.Name), "errors", 0)
		if got := attachedTo(p.ID); !slices.Equal(got, []int64{orbit.ID}) {
			t.Errorf("attached to %v, want only [%d]", got, orbit.ID)
		}
	})

	t.Run("deny on one named project refuses the call", func(t *testing.T) {
		setRule(t, h, "gitlab-org/orbit", "attach_scan_profile", models.RuleDeny)
		h.toolsFailWith(t, ee, "root", "attach_scan_profile", attach("gid://gitlab/Security::ScanProfile/sast", mcp, orbit),
			`The tool attach_scan_profile is not allowed here: the "deny" rule for attach_scan_profile on gitlab-org/orbit forbids it. `+
				"An administrator can change the rule with `glmcp tool-rules set`.")
	})
}
