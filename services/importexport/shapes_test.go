package importexport_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
	"gitlab.com/glmcp/glmcp/services/store/storetest"
)

// appendLines adds JSON lines to a relation file of entries.
func appendLines(entries []entry, rel string, lines ...string) []entry {
	name := "tree/project/" + rel + ".ndjson"
	found := false
	for _, e := range entries {
		found = found || e.name == name
	}
	if !found {
		entries = append(entries, entry{name: name})
	}
	return edit(entries, name, func(b string) string {
		if b != "" && !strings.HasSuffix(b, "\n") {
			b += "\n"
		}
		return b + strings.Join(lines, "\n") + "\n"
	})
}

// firstField reads one numeric field of a relation's first line.
func firstField(t *testing.T, entries []entry, rel, field string) int64 {
	t.Helper()
	for _, e := range entries {
		if e.name == "tree/project/"+rel+".ndjson" {
			l, _, _ := strings.Cut(e.body, "\n")
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			return int64(m[field].(float64))
		}
	}
	t.Fatalf("no %s in the archive", rel)
	return 0
}

// Ensure the shapes GitLab wrote since export format 0.2.4 import as
// GitLab imports them, and that every record GitLab would fail to save is
// left out, recorded as an import failure (relation, line, why), while
// the rest comes in: integer statuses, pipelines without iid, ref or sha,
// iids 0 or missing, legacy issue_type, group and nested project
// milestones, several open merge requests on one branch pair,
// diff_head_sha "HEAD", relations glmcp does not model counted by name.
func TestImport_shapesAndFailures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		ctx := t.Context()
		good := readEntries(t, x.export(t, x.p))
		author := firstField(t, good, "issues", "author_id")
		a := itoa(int(author))
		entries := appendLines(good, "issues",
			`{"iid":0,"title":"numbered by the import","state":"opened","author_id":`+a+`,"issue_type":"task"}`,
			`{"title":"no iid at all","state":"opened","author_id":`+a+`,"issue_type":"incident","designs":[{"id":1},{"id":2}],"design_versions":[{"id":1}],"resource_label_events":[{},{},{}],"zoom_meetings":[{}],"sentry_issue":{"sentry_issue_identifier":1},"work_item_description":{"description":"d"}}`,
			`{"iid":900,"title":"","state":"opened","author_id":`+a+`}`,
			`{"iid":901,"title":"bad state","state":"reopened","author_id":`+a+`}`,
			`{"iid":902,"title":"a group milestone","state":"opened","author_id":`+a+`,"milestone":{"id":8,"iid":1,"title":"Group-level milestone","group_id":8,"state":"active"}}`,
			`{"iid":903,"title":"a nested project milestone","state":"opened","author_id":`+a+`,"milestone":{"id":9,"iid":500,"title":"Nested project milestone","state":"active"}}`,
			`{"iid":904,"title":"a lost label link","state":"opened","author_id":`+a+`,"label_links":[{"label_id":987654,"target_type":"Issue"}],"notes":[{"note":"","author_id":`+a+`},{"note":"kept","author_id":`+a+`,"discussion_id":"d904","note_diff_file":{"diff":"@@"}}]}`,
			`{"iid":904,"title":"the same number again","state":"opened","author_id":`+a+`}`,
		)
		entries = appendLines(entries, "merge_requests",
			`{"iid":800,"title":"patch from fork A","state":"opened","source_branch":"patch-1","target_branch":"main","author_id":`+a+`,"diff_head_sha":"HEAD"}`,
			`{"iid":801,"title":"patch from fork B","state":"opened","source_branch":"patch-1","target_branch":"main","author_id":`+a+`}`,
			`{"iid":802,"title":"no branches","state":"opened","source_branch":"","target_branch":"main","author_id":`+a+`}`,
			`{"iid":803,"title":"diff files not a list","state":"opened","source_branch":"x","target_branch":"main","merge_request_diff":{"merge_request_diff_files":"oops"}}`,
		)
		entries = appendLines(entries, "milestones",
			`{"id":1,"title":null,"description":123,"created_at":"NOT A DATE","state":"active","iid":1}`)
		entries = appendLines(entries, "ci_pipelines",
			`{"iid":700,"ref":"main","sha":"0000000000000000000000000000000000000000","status":3,"stages":[{"name":"test","status":3,"position":0,"statuses":[{"name":"rspec","stage":"test","status":4},{"name":"lint","stage":"test","status":"bogus"}]}]}`,
			`{"status":"success","stages":[]}`,
			`{"iid":701,"ref":"main","sha":"0000000000000000000000000000000000000000","status":"bogus"}`,
			`{"iid":702,"ref":"main","sha":"0000000000000000000000000000000000000000","status":"success","merge_request":{"iid":4242}}`,
		)
		file := writeEntries(t, entries)
		sum, err := x.importFile(t, file, "copies/shapes", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		pid := sum.Project.ID
		r, _, err := s.Imports.LoadProjectRecords(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		src, _, _ := s.Imports.LoadProjectRecords(ctx, x.p.ID)
		var maxIssue int64
		for _, i := range src.Issues {
			maxIssue = max(maxIssue, i.IID)
		}
		issues := map[string]models.Issue{}
		for _, i := range r.Issues {
			issues[i.Title] = i.Issue
		}
		if got, want := len(r.Issues), len(src.Issues)+5; got != want {
			t.Errorf("issues = %d, want %d (the exported ones and 5 of the 8 added)", got, want)
		}
		// GitLab numbers the issues without one after the highest given.
		if i := issues["numbered by the import"]; i.IID != 905 || i.WorkItemTypeID != models.TypeTask {
			t.Errorf("issue iid 0: iid %d type %d, want 905, task", i.IID, i.WorkItemTypeID)
		}
		if i := issues["no iid at all"]; i.IID != 906 || i.WorkItemTypeID != models.TypeIncident {
			t.Errorf("issue without iid: iid %d type %d, want 906, incident", i.IID, i.WorkItemTypeID)
		}
		if maxIssue >= 900 {
			t.Fatalf("the exported issues reach #%d", maxIssue)
		}
		milestones := map[string]int64{}
		var maxMilestone int64
		for _, m := range src.Milestones {
			maxMilestone = max(maxMilestone, m.IID)
		}
		for _, m := range r.Milestones {
			milestones[m.Title] = m.IID
		}
		// A project milestone keeps its iid; a group milestone gets the
		// next free one after every project milestone's.
		if milestones["Nested project milestone"] != 500 || milestones["Group-level milestone"] != 501 {
			t.Errorf("milestones = %v, want the nested project one 500 and the group one 501 (the archive's up to %d)", milestones, maxMilestone)
		}
		if issues["a group milestone"].Milestone != "Group-level milestone" && issues["a group milestone"].MilestoneID == nil {
			t.Errorf("issue #902 lost its milestone: %+v", issues["a group milestone"])
		}
		if l := issues["a lost label link"]; len(l.Labels) != 0 {
			t.Errorf("issue #904 labels = %v, want none (its link is left out)", l.Labels)
		}

		open := 0
		for _, m := range r.MergeRequests {
			if m.SourceBranch == "patch-1" && m.TargetBranch == "main" && m.State == models.MergeRequestOpened {
				open++
				if m.SHA != "" {
					t.Errorf("merge request !%d sha = %q, want unknown (\"\")", m.IID, m.SHA)
				}
			}
		}
		if open != 2 {
			t.Errorf("open merge requests patch-1 → main = %d, want 2 (forks' history kept)", open)
		}
		// The tools' own rule still stands for a new one.
		err = s.MergeRequests.CreateMergeRequest(ctx, &models.MergeRequest{ProjectID: pid, Title: "third", State: models.MergeRequestOpened,
			SourceBranch: "patch-1", TargetBranch: "main", AuthorID: x.w.Alice.ID})
		if !errors.Is(err, models.ErrConflict) {
			t.Errorf("a third open merge request patch-1 → main: %v, want a conflict", err)
		}

		pipes := map[int64]store.RecordPipeline{}
		for _, p := range r.Pipelines {
			pipes[p.IID] = p
		}
		if p := pipes[700]; p.Status != "success" || len(p.Jobs) != 1 || p.Jobs[0].Status != "failed" {
			t.Errorf("pipeline #700 (integer statuses) = %s with %d jobs %+v, want success with rspec failed", p.Status, len(p.Jobs), p.Jobs)
		}
		if p, ok := pipes[703]; !ok || p.Ref != "" || p.SHA != "" || p.Status != "success" {
			t.Errorf("pipeline without iid, ref or sha = %+v (found %v), want #703", p.Pipeline, ok)
		}
		if p := pipes[702]; p.MergeRequestID != nil || p.Status != "success" {
			t.Errorf("pipeline #702 = %+v, want it without its merge request", p.Pipeline)
		}
		if _, ok := pipes[701]; ok {
			t.Error("pipeline #701 (status bogus) imported, want it left out")
		}

		for rel, want := range map[string]int{"designs": 2, "design_versions": 1, "resource_label_events": 3, "zoom_meetings": 1, "sentry_issue": 1,
			"note_diff_file": 1, "work_item_description": 1} {
			if sum.Skipped[rel] != want {
				t.Errorf("skipped %s = %d, want %d (%v)", rel, sum.Skipped[rel], want, sum.Skipped)
			}
		}
		wantFailed := map[string]int{"milestones": 1, "issues": 5, "merge_requests": 2, "ci_pipelines": 3}
		if len(sum.Failed) != len(wantFailed) {
			t.Errorf("failed = %v, want %v", sum.Failed, wantFailed)
		}
		for rel, n := range wantFailed {
			if sum.Failed[rel] != n {
				t.Errorf("failed %s = %d, want %d (%v)", rel, sum.Failed[rel], n, sum.Failures)
			}
		}
		stored, err := s.Imports.ListImportFailures(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != len(sum.Failures) {
			t.Fatalf("stored failures = %d, want %d", len(stored), len(sum.Failures))
		}
		issueLines := lastLine(entries, "issues")
		for _, want := range []struct {
			rel  string
			line int
			msg  string
		}{
			{"issues", issueLines - 5, "issue #900 has no title"},
			{"issues", issueLines - 4, `issue #901: state "reopened" is not opened or closed`},
			{"issues", issueLines - 1, "issue #904: a label link to label id 987654, which is not in the archive, is left out"},
			{"issues", issueLines - 1, "issue #904: note 1 is left out: it has no text"},
			{"issues", issueLines, "issue 904: its number is already the one on line " + itoa(issueLines-1)},
			{"merge_requests", lastLine(entries, "merge_requests") - 1, "merge request !802 has no source or target branch"},
			{"merge_requests", lastLine(entries, "merge_requests"), "not a record of merge_requests: cannot unmarshal string into Go struct field exMergeRequestDiff.merge_request_diff.merge_request_diff_files of type []importexport.exDiffFile"},
			{"milestones", lastLine(entries, "milestones"), `not a record of milestones: "NOT A DATE" is not a time (RFC 3339)`},
			{"ci_pipelines", lastLine(entries, "ci_pipelines") - 3, `pipeline #700: job "lint" is left out: status "bogus" is not one GitLab writes`},
			{"ci_pipelines", lastLine(entries, "ci_pipelines") - 1, `pipeline #701: status "bogus" is not one GitLab writes`},
			{"ci_pipelines", lastLine(entries, "ci_pipelines"), "pipeline #702: its link to merge request !4242, which is not in the archive, is left out"},
		} {
			found := false
			for _, f := range stored {
				found = found || f.RelationKey == want.rel && f.Line == want.line && f.Message == want.msg && f.ProjectID == pid
			}
			if !found {
				t.Errorf("no stored failure %s line %d %q among %+v", want.rel, want.line, want.msg, stored)
			}
		}
	})
}

// lastLine is the number of the last line of a relation file.
func lastLine(entries []entry, rel string) int {
	for _, e := range entries {
		if e.name == "tree/project/"+rel+".ndjson" {
			return strings.Count(strings.TrimRight(e.body, "\n"), "\n") + 1
		}
	}
	return 0
}

// Ensure GitLab's milestone-iid shape (no milestones.ndjson; an issue
// names a group milestone of iid 1 before another names a project
// milestone of iid 1) keeps the project milestone's iid and numbers the
// group one after it, and that a note joining another noteable's
// discussion is left out the same way when the streamed relation is read
// again to be written.
func TestImport_milestoneIIDsAndSharedDiscussions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		x := seed(t, s)
		good := readEntries(t, x.export(t, x.p))
		a := itoa(int(firstField(t, good, "issues", "author_id")))
		var entries []entry
		for _, e := range good {
			switch e.name {
			case "tree/project/milestones.ndjson", "tree/project/issues.ndjson", "tree/project/merge_requests.ndjson", "tree/project/ci_pipelines.ndjson":
			default:
				entries = append(entries, e)
			}
		}
		entries = appendLines(entries, "issues",
			`{"iid":20,"title":"group","state":"opened","author_id":`+a+`,"milestone":{"iid":1,"title":"Group-level milestone","group_id":8,"state":"active"},"notes":[{"note":"first","author_id":`+a+`,"discussion_id":"shared"}]}`,
			`{"iid":21,"title":"project","state":"opened","author_id":`+a+`,"milestone":{"iid":1,"title":"Another milestone","state":"active"},"notes":[{"note":"joins #20's thread","author_id":`+a+`,"discussion_id":"shared"},{"note":"its own","author_id":`+a+`,"discussion_id":"own"}]}`)
		entries = appendLines(entries, "merge_requests",
			`{"iid":1,"title":"mr","state":"merged","source_branch":"gone","target_branch":"main","author_id":`+a+`,"notes":[{"note":"also #20's thread","author_id":`+a+`,"discussion_id":"shared"}]}`)
		// Pipelines and jobs that had not finished are canceled, as GitLab
		// cancels them on import.
		entries = appendLines(entries, "ci_pipelines",
			`{"iid":1,"ref":"main","sha":"0000000000000000000000000000000000000000","status":2,"stages":[{"name":"test","status":2,"position":0,"builds":[{"name":"a","status":"running"},{"name":"b","status":"manual"},{"name":"c","status":"success"}]}]}`)
		sum, err := x.importFile(t, writeEntries(t, entries), "copies/milestone-iid", zeroLimits, nil)
		if err != nil {
			t.Fatalf("import: %v", err)
		}
		r, _, err := s.Imports.LoadProjectRecords(t.Context(), sum.Project.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, m := range r.Milestones {
			got[m.Title] = m.IID
		}
		// The export's releases still name the seed's milestone
		// (milestone_releases): copied after those the issues name.
		others := true
		for title, iid := range got {
			if title != "Another milestone" && title != "Group-level milestone" && iid <= 2 {
				others = false
			}
		}
		if len(got) != 3 || got["Another milestone"] != 1 || got["Group-level milestone"] != 2 || !others {
			t.Errorf("milestones = %v, want Another milestone 1, Group-level milestone 2 (GitLab's spec), the release's milestone after them", got)
		}
		if len(r.Pipelines) != 1 || r.Pipelines[0].Status != "canceled" || len(r.Pipelines[0].Jobs) != 3 ||
			r.Pipelines[0].Jobs[0].Status != "canceled" || r.Pipelines[0].Jobs[1].Status != "canceled" || r.Pipelines[0].Jobs[2].Status != "success" {
			t.Errorf("pipelines = %+v, want #1 canceled with jobs canceled, canceled, success", r.Pipelines)
		}
		if sum.Imported["ci_pipelines (unfinished in the archive: canceled)"] != 1 || sum.Imported["jobs (unfinished in the archive: canceled)"] != 2 {
			t.Errorf("imported = %v, want 1 pipeline and 2 jobs canceled", sum.Imported)
		}
		var bodies []string
		for _, n := range r.Notes {
			bodies = append(bodies, n.Body)
		}
		if strings.Join(bodies, "|") != "first|its own" {
			t.Errorf("notes = %q, want first and its own", bodies)
		}
		msgs := []string{}
		for _, f := range sum.Failures {
			msgs = append(msgs, f.Relation+" "+itoa(f.Line)+" "+f.Message)
		}
		want := []string{"issues 2 issue #21: note 1 is left out: its discussion shared is another issue's or merge request's",
			"merge_requests 1 merge request !1: note 1 is left out: its discussion shared is another issue's or merge request's"}
		if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
			t.Errorf("failures:\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
		}
	})
}
