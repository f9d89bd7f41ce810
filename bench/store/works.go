package main

import (
	"fmt"
	"slices"
	"time"
)

// maxRatio is the bar: the large project's time within 1.5× of the
// small one's.
const maxRatio = 1.5

// work is one tool call asked of both projects: args gives its arguments
// for a project's path; items, when set, is the key of the result's list,
// which must not be empty (so no empty answer is timed).
type work struct {
	name  string
	tool  string
	args  func(project string) map[string]any
	items string
	// single: the call does not name a project (an instance search); it
	// is measured as the large one only.
	single bool
	// same: a rare term, whose answer must hold as many items on both
	// projects (the same matches), or the row compares different work.
	same bool
	// prep is why the work could not be prepared (it is then reported,
	// not measured).
	prep error
}

// row is one work measured: the medians of the answered calls, how many
// calls were answered with an error instead (each is a failure of the
// row: the bar is a 200 for every call), or why nothing was measured.
type row struct {
	name, tool   string
	small, large time.Duration
	calls, fails int
	failure      string // the first failed answer
	err          error
	// matches: a same work's items, as many on both projects.
	matches int
}

func (r row) ratio() float64 { return float64(r.large) / float64(max(1, r.small)) }

func (r row) verdict() string {
	switch {
	case r.err != nil:
		return "ERROR " + r.err.Error()
	case r.fails > 0:
		return fmt.Sprintf("FAIL: %d of %d calls answered %s", r.fails, r.calls, r.failure)
	case r.small == 0:
		return ""
	case r.ratio() <= maxRatio:
		return fmt.Sprintf("%.1f× PASS", r.ratio())
	default:
		return fmt.Sprintf("%.1f× FAIL", r.ratio())
	}
}

// measure calls w once cold on each project, then runs times on each,
// small and large alternating, and keeps the medians of the answered
// calls; an error answer (a 503 past the statement deadline) is counted
// and the calls go on.
func measure(c *client, w work, runs int) row {
	r := row{name: w.name, tool: w.tool, err: w.prep}
	if r.err != nil {
		return r
	}
	projects := []string{smallPath, largePath}
	if w.single {
		projects = []string{largePath}
	}
	times := map[string][]time.Duration{}
	items := map[string]int{} // the first answer's, by project
	for k := 0; k <= runs; k++ {
		for _, p := range projects {
			a, err := c.call(w.tool, w.args(p))
			if err != nil { // no answer at all
				r.err = err
				return r
			}
			r.calls++
			failure := ""
			if !a.ok() {
				failure = a.text
			} else if w.items != "" {
				l, _ := dig(a.result, w.items).([]any)
				if len(l) == 0 {
					failure = "no " + w.items
				} else if _, seen := items[p]; !seen {
					items[p] = len(l)
				}
			}
			if failure != "" {
				if r.fails++; r.failure == "" {
					r.failure = p + ": " + failure
				}
				continue
			}
			if k > 0 { // the first call of each is the cold one
				times[p] = append(times[p], a.took)
			}
		}
	}
	r.large = median(times[largePath])
	if !w.single {
		r.small = median(times[smallPath])
	}
	if r.large == 0 || (!w.single && r.small == 0) {
		r.err = fmt.Errorf("no answer to time: %d of %d calls answered %s", r.fails, r.calls, r.failure)
	} else if w.same {
		r.matches = items[largePath]
		if items[smallPath] != items[largePath] {
			r.err = sameErr(w, items)
		}
	}
	return r
}

// sameErr is a rare term's row whose projects answered different
// matches: its times would compare different work.
func sameErr(w work, items map[string]int) error {
	return fmt.Errorf("not the same answer: %d %s on %s, %d on %s; a rare term must match as many records in both projects",
		items[smallPath], w.items, smallPath, items[largePath], largePath)
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// Search terms of the generated projects (bench/genexport): an issue's
// title is "Issue N: something to do", its description "Description of
// issue N. " forty times, its notes "Comment K on Issue N — …Some
// discussion text…"; a merge request's title "Merge request N: add
// feature-N.txt", its description "Changes. " fifty times; milestones
// "Milestone 1" to 5. A rare term matches the same few records in both
// projects whatever their sizes (the colon or the dash ends the number:
// "Merge request 42" without it is 1 of the small project's 50 merge
// requests and 111 of the large one's 5,000, a row that compared a
// one-row answer with a full page and its count); measure checks it.
const (
	rareIssue   = "Issue 777:"        // one issue's title, in both projects
	commonIssue = "something"         // every issue
	rareNote    = "on Issue 777 —"    // that issue's 5 notes
	commonNote  = "discussion text"   // every note
	rareMR      = "Merge request 42:" // one merge request's title
	commonMR    = "Changes"           // every merge request
	iid         = 777                 // an issue both projects have
	mrIID       = 42                  // a merge request both have
)

func projectArg(key string, extra map[string]any) func(string) map[string]any {
	return func(p string) map[string]any {
		a := map[string]any{key: p}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
}

func search(scope, term string) func(string) map[string]any {
	return projectArg("project_id", map[string]any{"scope": scope, "search": term})
}

// prepareWorks lists the calls: what each project answers to every read
// and search tool of the store. The cursor of the 21st page of work
// items and the pipeline ids are read here, before any timing; a failure
// there is reported in the works that need them.
func prepareWorks(c *client) []work {
	cursors := map[string]string{}
	pipelines := map[string]any{}
	var cursorErr, pipelineErr error
	for _, p := range []string{smallPath, largePath} {
		after := ""
		for range 20 {
			args := map[string]any{"project_id": p, "first": 20}
			if after != "" {
				args["after"] = after
			}
			a, err := c.call("list_work_items", args)
			if err == nil && !a.ok() {
				err = fmt.Errorf("%s", a.text)
			}
			if err != nil {
				cursorErr = fmt.Errorf("the 21st page's cursor, list_work_items %s: %v", p, err)
				break
			}
			after, _ = dig(a.result, "pageInfo", "endCursor").(string)
		}
		cursors[p] = after
		a, err := c.call("list_pipelines", map[string]any{"id": p})
		if err == nil && !a.ok() {
			err = fmt.Errorf("%s", a.text)
		}
		if pipelines[p] = dig(a.result, "items", 0, "id"); err == nil && pipelines[p] == nil {
			err = fmt.Errorf("no pipeline id in %.200v", a.result)
		}
		if err != nil {
			pipelineErr = fmt.Errorf("list_pipelines %s: %v", p, err)
		}
	}
	return []work{
		{name: "get_project", tool: "get_project", args: projectArg("project_id", nil)},
		{name: "get_work_item", tool: "get_work_item", args: projectArg("project_id", map[string]any{"work_item_iid": iid})},
		{name: "get_issue", tool: "get_issue", args: projectArg("id", map[string]any{"issue_iid": iid})},
		{name: "get_work_item with its discussions", tool: "get_work_item", args: projectArg("project_id",
			map[string]any{"work_item_iid": iid, "include": []string{"discussions"}})},
		{name: "get_workitem_notes", tool: "get_workitem_notes", args: projectArg("project_id", map[string]any{"work_item_iid": iid}), items: "items"},
		{name: "list_work_items first page", tool: "list_work_items", args: projectArg("project_id", nil), items: "work_items"},
		{name: "list_work_items page 21", tool: "list_work_items", args: func(p string) map[string]any {
			return map[string]any{"project_id": p, "first": 20, "after": cursors[p]}
		}, items: "work_items", prep: cursorErr},
		{name: "list_work_items state closed", tool: "list_work_items", args: projectArg("project_id", map[string]any{"state": "closed"}), items: "work_items"},
		{name: "list_work_items label", tool: "list_work_items", args: projectArg("project_id", map[string]any{"label_name": []string{"bug"}}), items: "work_items"},
		{name: "list_work_items assignee + label", tool: "list_work_items", args: func(p string) map[string]any {
			// The import makes a placeholder per source user and import:
			// the small project's are _1, the large one's _2.
			n := map[string]int{smallPath: 1, largePath: 2}[p]
			return map[string]any{"project_id": p, "assignee_usernames": []string{fmt.Sprintf("gen-user-3_placeholder_%d", n)},
				"label_name": []string{"feature"}}
		}, items: "work_items"},
		{name: "list_work_items search (rare)", tool: "list_work_items", args: projectArg("project_id", map[string]any{"search": rareIssue}), items: "work_items", same: true},
		{name: "list_work_items search (common)", tool: "list_work_items", args: projectArg("project_id", map[string]any{"search": commonIssue}), items: "work_items"},
		{name: "get_merge_request", tool: "get_merge_request", args: projectArg("project_id", map[string]any{"merge_request_iid": mrIID})},
		{name: "get_merge_request_notes", tool: "get_merge_request_notes", args: projectArg("project_id", map[string]any{"merge_request_iid": mrIID})},
		{name: "list_merge_requests first page", tool: "list_merge_requests", args: projectArg("project_id", nil), items: "nodes"},
		{name: "list_merge_requests state opened", tool: "list_merge_requests", args: projectArg("project_id", map[string]any{"state": "opened"}), items: "nodes"},
		{name: "list_merge_requests label", tool: "list_merge_requests", args: projectArg("project_id", map[string]any{"labels": "bug"}), items: "nodes"},
		{name: "list_merge_requests search", tool: "list_merge_requests", args: projectArg("project_id", map[string]any{"search": rareMR}), items: "nodes", same: true},
		{name: "list_pipelines", tool: "list_pipelines", args: projectArg("id", nil), items: "items"},
		{name: "get_pipeline", tool: "get_pipeline", args: func(p string) map[string]any {
			return map[string]any{"id": p, "pipeline_id": pipelines[p]}
		}, prep: pipelineErr},
		{name: "get_pipeline_jobs", tool: "get_pipeline_jobs", args: func(p string) map[string]any {
			return map[string]any{"id": p, "pipeline_id": pipelines[p]}
		}, prep: pipelineErr},
		{name: "get_merge_request_pipelines", tool: "get_merge_request_pipelines", args: projectArg("id", map[string]any{"merge_request_iid": mrIID})},
		{name: "list_project_members", tool: "list_project_members", args: projectArg("project_id", nil)},
		{name: "search_labels", tool: "search_labels", args: projectArg("full_path", map[string]any{"is_project": true}), items: "items"},
		{name: "search issues (rare)", tool: "search", args: search("issues", rareIssue), items: "items", same: true},
		{name: "search issues (common)", tool: "search", args: search("issues", commonIssue), items: "items"},
		{name: "search issues, title only (rare)", tool: "search", args: projectArg("project_id",
			map[string]any{"scope": "issues", "search": rareIssue, "fields": []string{"title"}}), items: "items", same: true},
		{name: "search issues page 5 (common)", tool: "search", args: projectArg("project_id",
			map[string]any{"scope": "issues", "search": commonIssue, "page": 5}), items: "items"},
		{name: "search merge_requests (rare)", tool: "search", args: search("merge_requests", rareMR), items: "items", same: true},
		{name: "search merge_requests (common)", tool: "search", args: search("merge_requests", commonMR), items: "items"},
		{name: "search notes (rare)", tool: "search", args: search("notes", rareNote), items: "items", same: true},
		{name: "search notes (common)", tool: "search", args: search("notes", commonNote), items: "items"},
		{name: "search milestones", tool: "search", args: search("milestones", "Milestone 3"), items: "items"},
		{name: "search users", tool: "search", args: search("users", "gen")},
		{name: "search projects", tool: "search", single: true, items: "items",
			args: func(string) map[string]any { return map[string]any{"scope": "projects", "search": "large"} }},
		{name: "list_projects", tool: "list_projects", single: true, args: func(string) map[string]any { return map[string]any{} }},
		{name: "search issues, every project (rare)", tool: "search", single: true, items: "items",
			args: func(string) map[string]any { return map[string]any{"scope": "issues", "search": rareIssue} }},
		{name: "search notes, every project (rare)", tool: "search", single: true, items: "items",
			args: func(string) map[string]any { return map[string]any{"scope": "notes", "search": rareNote} }},
	}
}

// sqliteWorks are the calls measured on the embedded store: a list page
// (the first and the 21st) and a search.
func sqliteWorks(c *client) []work {
	var out []work
	for _, w := range prepareWorks(c) {
		switch w.name {
		case "list_work_items first page", "list_work_items page 21", "list_work_items search (rare)",
			"list_merge_requests first page", "search issues (rare)", "search notes (rare)":
			out = append(out, w)
		}
	}
	return out
}

// concurrentSearches is the rotation of the concurrent searches, on the
// large project.
func concurrentSearches() []map[string]any {
	return []map[string]any{
		search("issues", rareIssue)(largePath),
		search("issues", commonIssue)(largePath),
		search("notes", rareNote)(largePath),
		search("merge_requests", rareMR)(largePath),
	}
}
