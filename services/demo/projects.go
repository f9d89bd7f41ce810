package demo

import (
	"gitlab.com/glmcp/glmcp/models"
)

// mcpWorld fills gitlab-org/gitlab-mcp: five issues (one confidential, one
// closed by a merged merge request), threads, an internal note, system
// notes, two merge requests and three pipelines.
func (b *demoBuilder) mcpWorld(p *models.Project) {
	w := b.w
	b.labels(p,
		models.Label{Name: "bug", Color: "#d9534f", Description: "Something is not working as documented"},
		models.Label{Name: "feature", Color: "#428bca", Description: "New functionality"},
		models.Label{Name: "security", Color: "#cc0033", Description: "Security issue: confidential until fixed"},
		models.Label{Name: "documentation", Color: "#f0ad4e", Description: "Docs only"},
		models.Label{Name: "workflow::in review", Color: "#5cb85c", Description: "Waiting for code review"},
	)

	b.milestone(p, models.Milestone{Title: "18.7", State: models.MilestoneClosed,
		Description: "Stable tool order, token hygiene.", StartDate: day(-14), DueDate: day(4)})
	b.milestone(p, models.Milestone{Title: "18.8", Description: "The 2026-07-28 protocol revision.",
		StartDate: day(5), DueDate: day(35)})

	order := b.issue(p, models.Issue{
		Title: "tools/list returns tools in a different order on every call",
		Description: "Two consecutive `tools/list` requests return the same tools in a different order:\n\n" +
			"```\n$ mcp-probe tools/list | jq -r '.tools[].name' | head -3\nget_issue\nsearch\ncreate_issue\n" +
			"$ mcp-probe tools/list | jq -r '.tools[].name' | head -3\nsearch\nget_merge_request\nget_issue\n```\n\n" +
			"Clients that cache the list see a change where there is none.",
		State: models.IssueClosed, Labels: models.StringList{"bug"}, Milestone: "18.7",
		AuthorID: w.Bob.ID, CreatedAt: at(1, 1, 10), UpdatedAt: at(3, 6, 0), ClosedAt: ptr(at(3, 6, 0)),
	}, w.Alice)
	stateless := b.issue(p, models.Issue{
		Title: "Support the 2026-07-28 stateless protocol revision",
		Description: "The 2026-07-28 revision drops the `initialize` handshake: every request carries its protocol " +
			"version and client capabilities in `_meta`.\n\n- [ ] `server/discover`\n- [ ] `_meta` validation\n" +
			"- [ ] `Mcp-Method` / `Mcp-Name` header mirroring\n- [ ] keep the 2025 revisions working on the same endpoint",
		Labels: models.StringList{"feature"}, Milestone: "18.8",
		AuthorID: w.Root.ID, CreatedAt: at(2, 0, 30),
	}, w.Alice)
	leak := b.issue(p, models.Issue{
		Title: "Token digest written to the debug log",
		Description: "With `--log-level=debug` the auth middleware logs the request headers, including " +
			"`Authorization`. Anyone with log access can replay the token.",
		Labels: models.StringList{"security", "bug"}, Confidential: true, Milestone: "18.7",
		AuthorID: w.Alice.ID, CreatedAt: at(4, 2, 0),
	}, w.Alice)
	docs := b.issue(p, models.Issue{
		Title: "Document the X-Gitlab-Enabled-Mcp-Server-Toolsets header",
		Description: "docs/tools.md does not say how to restrict the tool list to some toolsets, " +
			"or that `meta` is always on.",
		Labels:   models.StringList{"documentation"},
		AuthorID: w.Carol.ID, CreatedAt: at(5, 3, 15),
	})
	b.issue(p, models.Issue{
		Title:       "search returns merge requests from archived projects",
		Description: "`search` with `scope=merge_requests` includes results from archived projects; the web UI hides them.",
		Labels:      models.StringList{"bug"},
		AuthorID:    w.Bob.ID, CreatedAt: at(6, 5, 45),
	})

	// Releases of the history's tags (_demo/gitlab-org/gitlab-mcp/history.json).
	b.release(p, w.Root, models.Release{Tag: "v18.6.0", Name: "GitLab MCP 18.6.0", ReleasedAt: at(-5, 9, 30),
		Description: "First release: issues, merge requests, pipelines and search.",
		Links:       []models.ReleaseLink{{Name: "Linux amd64 binary", URL: "https://gitlab.example.com/gitlab-org/gitlab-mcp/-/releases/v18.6.0/downloads/gitlab-mcp-linux-amd64", LinkType: "package"}}})
	b.release(p, w.Root, models.Release{Tag: "v18.7.0", Name: "GitLab MCP 18.7.0", ReleasedAt: at(4, 9, 30),
		Description: "Stable tool order in `tools/list` (#1, !2).",
		Links: []models.ReleaseLink{
			{Name: "Linux amd64 binary", URL: "https://gitlab.example.com/gitlab-org/gitlab-mcp/-/releases/v18.7.0/downloads/gitlab-mcp-linux-amd64", LinkType: "package"},
			{Name: "Upgrade notes", URL: "https://gitlab.example.com/gitlab-org/gitlab-mcp/-/wikis/releases", LinkType: "runbook"},
		}})

	// Notes on the closed ordering bug: a comment, a thread, system notes.
	b.note(p, order, w.Bob, models.Note{CreatedAt: at(1, 2, 0),
		Body: "Reproduced on 18.6.1 with two clients; `get_issue` moved from position 1 to 3."})
	reply := b.thread(p, order, "order-root-cause")
	reply(w.Alice, models.Note{CreatedAt: at(1, 4, 0),
		Body: "Root cause: `Catalog.List` ranges over `map[string]Tool`, and Go randomises map order. I'll sort by name."})
	reply(w.Bob, models.Note{CreatedAt: at(1, 5, 0),
		Body: "Could the order also be the same across instances? We run three behind a load balancer."})
	reply(w.Alice, models.Note{CreatedAt: at(1, 6, 0),
		Body: "Sorting by name makes it identical everywhere, no coordination needed. See !2."})
	b.note(p, order, w.Alice, models.Note{CreatedAt: at(2, 1, 0), System: true,
		Body: "mentioned in merge request !2"})
	b.note(p, order, w.Alice, models.Note{CreatedAt: at(3, 6, 0), System: true,
		Body: "closed via merge request !2"})

	// Work items: tasks under the protocol issue, a related item, the wiki.
	b.workItem(p, stateless, models.Issue{Title: "Answer server/discover with the supported versions",
		WorkItemTypeID: models.TypeTask, State: models.IssueClosed, AuthorID: w.Alice.ID, Milestone: "18.8",
		CreatedAt: at(2, 1, 0), UpdatedAt: at(8, 2, 0), ClosedAt: ptr(at(8, 2, 0)), DueDate: day(9)}, w.Alice)
	b.workItem(p, stateless, models.Issue{Title: "Validate the Mcp-Method and Mcp-Name headers",
		WorkItemTypeID: models.TypeTask, AuthorID: w.Alice.ID, Milestone: "18.8",
		CreatedAt: at(2, 1, 5), StartDate: day(10), DueDate: day(20)}, w.Bob)
	b.link(order, docs, models.LinkRelatesTo)
	b.wikiPage(p, models.WikiPage{Slug: "home", Title: "Home",
		Content: "# gitlab-mcp\n\nThe MCP server for GitLab. See [Releases](releases) and [Toolsets](toolsets)."})
	b.wikiPage(p, models.WikiPage{Slug: "releases", Title: "Releases",
		Content: "Milestones 18.7 (stable tool order) and 18.8 (the 2026-07-28 revision)."})
	b.wikiPage(p, models.WikiPage{Slug: "toolsets", Title: "Toolsets",
		Content: "`X-Gitlab-Enabled-Mcp-Server-Toolsets: core,work_items` lists those toolsets; `meta` is always on."})

	// The confidential issue has an internal note only members can read.
	b.note(p, leak, w.Alice, models.Note{CreatedAt: at(4, 3, 0),
		Body: "Found while reviewing `middleware/auth.go`: the DEBUG line logs `r.Header` verbatim."})
	b.note(p, leak, w.Root, models.Note{CreatedAt: at(4, 5, 30), Internal: true,
		Body: "Internal: affects 18.6 and 18.7. Coordinate the security release with AppSec before any public MR."})

	discuss := b.thread(p, stateless, "stateless-compat")
	discuss(w.Carol, models.Note{CreatedAt: at(2, 4, 0),
		Body: "Will clients that only speak 2025-06-18 keep working on the same URL?"})
	discuss(w.Alice, models.Note{CreatedAt: at(2, 5, 10),
		Body: "Yes: the era is chosen per request, from `_meta`. A request without it is handled as before."})
	b.note(p, stateless, w.Root, models.Note{CreatedAt: at(3, 0, 0), System: true,
		Body: "added ~\"feature\" label"})
	b.note(p, docs, w.Alice, models.Note{CreatedAt: at(5, 6, 0),
		Body: "Good catch. Carol, would you like to open the MR? The header parsing is in `handlers/filters.go`."})

	// !1 — open, in review, pipeline running.
	discover, discoverBase := b.mergeRequest(p, demoMR{
		mr: models.MergeRequest{
			Title: "Add server/discover for the 2026-07-28 revision",
			Description: "Part of #2.\n\nAnswers `server/discover` with the supported versions, capabilities and " +
				"server info, cacheable for 60 s. `initialize` is unchanged.",
			SourceBranch: "feature/server-discover", TargetBranch: "main",
			AuthorID: w.Alice.ID, Labels: models.StringList{"feature", "workflow::in review"},
			MergeStatus: models.MergeStatusCanBeMerged, CreatedAt: at(7, 2, 0), UpdatedAt: at(8, 1, 0),
		},
		assignees: []*models.User{w.Alice}, reviewers: []*models.User{w.Bob},
	})
	// A review thread on line 10 of discover.go, resolved by its author,
	// and the owner's approval: the merge request is under review.
	review := b.diffThread(p, discover, "discover-ttl", &models.DiffPosition{
		BaseSHA: discoverBase, StartSHA: discoverBase, HeadSHA: discover.SHA,
		OldPath: "internal/mcp/discover.go", NewPath: "internal/mcp/discover.go", PositionType: "text", NewLine: ptr(10)})
	review(w.Bob, models.Note{CreatedAt: at(7, 6, 0),
		Body: "Should `ttlMs` be configurable? Operators behind a CDN may want more than a minute."})
	review(w.Alice, models.Note{CreatedAt: at(8, 0, 50),
		Body: "Kept it a constant for now; a flag can come with the config rework. Resolving."})
	b.resolve(discover, "discover-ttl", p, w.Alice, at(8, 0, 51))
	b.approve(discover, w.Root, at(8, 2, 0))
	b.pipeline(p, models.Pipeline{
		SHA: discover.SHA, Ref: "refs/merge-requests/1/head", Status: models.StatusRunning,
		Source: models.PipelineSourceMergeRequestEvent, UserID: &w.Alice.ID, MergeRequestID: &discover.ID,
		CreatedAt: at(8, 1, 0), StartedAt: ptr(at(8, 1, 1)),
	},
		job("build", "build", models.StatusSuccess, at(8, 1, 0), 48.2),
		job("test", "test", models.StatusRunning, at(8, 1, 2), -1),
		job("lint", "lint", models.StatusCreated, at(8, 1, 2), -1),
	)

	// !2 — merged; closed #1.
	sorted, _ := b.mergeRequest(p, demoMR{
		mr: models.MergeRequest{
			Title:        "Sort tools by name in tools/list",
			Description:  "Closes #1.\n\n`Catalog.List` now sorts by name, so the order is the same on every call and every instance.",
			SourceBranch: "fix/stable-tool-order", TargetBranch: "main", State: models.MergeRequestMerged,
			AuthorID: w.Alice.ID, Labels: models.StringList{"bug"}, MergeStatus: models.MergeStatusCanBeMerged,
			CreatedAt: at(2, 1, 0), UpdatedAt: at(3, 6, 0), MergedAt: ptr(at(3, 6, 0)), ForceRemoveSourceBranch: true,
		},
		assignees: []*models.User{w.Alice}, reviewers: []*models.User{w.Bob},
	})
	b.note(p, sorted, w.Bob, models.Note{CreatedAt: at(3, 2, 0), Body: "LGTM, thanks for the quick fix. Approved."})
	b.note(p, sorted, w.Root, models.Note{CreatedAt: at(3, 6, 0), System: true,
		Body: "merged"})
	b.pipeline(p, models.Pipeline{
		SHA: sorted.SHA, Ref: "refs/merge-requests/2/head", Status: models.StatusSuccess,
		Source: models.PipelineSourceMergeRequestEvent, UserID: &w.Alice.ID, MergeRequestID: &sorted.ID,
		CreatedAt: at(2, 1, 0), StartedAt: ptr(at(2, 1, 1)), FinishedAt: ptr(at(2, 1, 6)),
	},
		job("build", "build", models.StatusSuccess, at(2, 1, 0), 51.0),
		job("test", "test", models.StatusSuccess, at(2, 1, 2), 142.7),
		job("lint", "lint", models.StatusSuccess, at(2, 1, 2), 23.4),
	)
	b.pipeline(p, models.Pipeline{
		SHA: b.mergeCommit(p, "fix/stable-tool-order"), Ref: "main", Status: models.StatusSuccess,
		Source: models.PipelineSourcePush, UserID: &w.Alice.ID,
		CreatedAt: at(3, 6, 1), StartedAt: ptr(at(3, 6, 2)), FinishedAt: ptr(at(3, 6, 8)),
	},
		job("build", "build", models.StatusSuccess, at(3, 6, 1), 49.9),
		job("test", "test", models.StatusSuccess, at(3, 6, 3), 150.1),
		job("lint", "lint", models.StatusSuccess, at(3, 6, 3), 21.8),
	)
}

// orbitWorld fills gitlab-org/orbit: three issues, a draft merge request
// whose pipeline failed.
func (b *demoBuilder) orbitWorld(p *models.Project) {
	w := b.w
	b.labels(p,
		models.Label{Name: "bug", Color: "#d9534f", Description: "Something is not working"},
		models.Label{Name: "performance", Color: "#8e44ad", Description: "Too slow or too hungry"},
		models.Label{Name: "good first issue", Color: "#69d100", Description: "Small and well described"},
	)
	cycle := b.issue(p, models.Issue{
		Title: "Reachable never returns on cyclic module dependencies",
		Description: "Indexing `gitlab-org/gitaly` hangs. `graph.Reachable` recurses forever when two packages " +
			"import each other through a test helper:\n\n```\ngoroutine 1 [running]:\n" +
			"gitlab.com/gitlab-org/orbit/graph.(*Graph).Reachable.func1(...)\n\tgraph/graph.go:27\n" +
			"gitlab.com/gitlab-org/orbit/graph.(*Graph).Reachable.func1(...)\n\tgraph/graph.go:28\n```",
		Labels:   models.StringList{"bug"},
		AuthorID: w.Bob.ID, CreatedAt: at(3, 2, 20),
	}, w.Alice)
	b.issue(p, models.Issue{
		Title:       "Cache resolved symbol edges between indexing runs",
		Description: "Re-indexing after a one-line change rebuilds every edge. Keep edges of unchanged files keyed by blob id.",
		Labels:      models.StringList{"performance"},
		AuthorID:    w.Alice.ID, CreatedAt: at(4, 1, 0),
	})
	scores := b.issue(p, models.Issue{
		Title:       "Expose ranking scores in semantic_code_search results",
		Description: "Agents want to cut off weak matches. Return the score with each result.",
		State:       models.IssueClosed, Labels: models.StringList{"good first issue"},
		AuthorID: w.Root.ID, CreatedAt: at(0, 3, 0), ClosedAt: ptr(at(5, 0, 0)),
	})
	b.note(p, cycle, w.Alice, models.Note{CreatedAt: at(3, 4, 0),
		Body: "Confirmed with a three-node cycle in a unit test. Fix in !1."})
	b.note(p, scores, w.Bob, models.Note{CreatedAt: at(4, 7, 0),
		Body: "Shipped in 0.9.0: `score` is a float in [0, 1]."})

	fix, _ := b.mergeRequest(p, demoMR{
		mr: models.MergeRequest{
			Title:        "Draft: Detect cycles in dependency graph traversal",
			Description:  "Closes #1.\n\nTracks visited modules so `Reachable` lists each once and terminates on cycles.",
			SourceBranch: "fix/cycle-detection", TargetBranch: "main", Draft: true,
			AuthorID: w.Alice.ID, Labels: models.StringList{"bug"}, MergeStatus: models.MergeStatusCannotBeMerged,
			CreatedAt: at(3, 5, 0), UpdatedAt: at(9, 2, 0),
		},
		assignees: []*models.User{w.Alice}, reviewers: []*models.User{w.Root},
	})
	b.note(p, fix, w.Root, models.Note{CreatedAt: at(9, 3, 0),
		Body: "`test` fails on the race detector: `seen` is shared between two concurrent walks in `index`. Please take a look."})
	failed := b.pipeline(p, models.Pipeline{
		SHA: fix.SHA, Ref: "refs/merge-requests/1/head", Status: models.StatusFailed,
		Source: models.PipelineSourceMergeRequestEvent, UserID: &w.Alice.ID, MergeRequestID: &fix.ID,
		CreatedAt: at(9, 2, 0), StartedAt: ptr(at(9, 2, 1)), FinishedAt: ptr(at(9, 2, 5)),
	},
		job("build", "build", models.StatusSuccess, at(9, 2, 0), 37.5),
		job("test", "test", models.StatusFailed, at(9, 2, 2), 96.3),
		job("lint", "lint", models.StatusSuccess, at(9, 2, 2), 18.0),
	)
	// The failed test job's log and its artifacts (a JUnit report and a
	// coverage summary), as a runner would have uploaded them.
	b.jobFile(failed, "test", models.ArtifactTrace, "raw", "job.log", []byte(orbitTestLog))
	b.jobFile(failed, "build", models.ArtifactTrace, "raw", "job.log", []byte("$ go build ./...\nJob succeeded\n"))
	b.jobFile(failed, "test", models.ArtifactArchive, "zip", "artifacts.zip", demoZip(map[string]string{
		"report.xml":           orbitJUnit,
		"coverage/summary.txt": "graph\t91.2%\nindex\t64.0%\ntotal\t78.9%\n",
	}))

	// A finding of the EE security scanners (code_security toolset).
	b.vulnerability(p, models.Vulnerability{
		Title:       "Unbounded recursion in graph.Reachable allows denial of service",
		Description: "A repository whose packages import each other makes `Reachable` recurse until the stack overflows, crashing the indexer.",
		Solution:    "Track visited modules (see !1), or bound the traversal depth.",
		Severity:    "high", ReportType: "sast", ScannerName: "Semgrep",
		Identifiers: []models.VulnerabilityIdentifier{{ExternalType: "cwe", ExternalID: "674", Name: "CWE-674",
			URL: "https://cwe.mitre.org/data/definitions/674.html"}},
		Location:  models.VulnerabilityLocation{File: "graph/graph.go", StartLine: 27, EndLine: 28},
		AuthorID:  &w.Root.ID,
		CreatedAt: at(9, 2, 6), UpdatedAt: at(9, 2, 6),
	})
}

// orbitTestLog is the log of orbit's failed test job.
const orbitTestLog = "Running with gitlab-runner 19.5.0 (a1b2c3d4)\n" +
	"Preparing the \"docker\" executor\n" +
	"$ go test -race ./...\n" +
	"ok  \tgitlab.com/gitlab-org/orbit/graph\t0.412s\n" +
	"==================\n" +
	"WARNING: DATA RACE\n" +
	"Write at 0x00c0001a2090 by goroutine 9:\n" +
	"  gitlab.com/gitlab-org/orbit/graph.(*Graph).Reachable.func1()\n" +
	"      graph/graph.go:31 +0x8c\n" +
	"Previous read at 0x00c0001a2090 by goroutine 8:\n" +
	"  gitlab.com/gitlab-org/orbit/index.(*Indexer).walk()\n" +
	"      index/index.go:58 +0x1f4\n" +
	"==================\n" +
	"--- FAIL: TestIndexConcurrentWalks (0.03s)\n" +
	"    testing.go:1490: race detected during execution of test\n" +
	"FAIL\n" +
	"FAIL\tgitlab.com/gitlab-org/orbit/index\t0.871s\n" +
	"ERROR: Job failed: exit code 1\n"

// orbitJUnit is the JUnit report in the failed test job's artifacts.
const orbitJUnit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="14" failures="1">
  <testsuite name="gitlab.com/gitlab-org/orbit/graph" tests="9" failures="0"></testsuite>
  <testsuite name="gitlab.com/gitlab-org/orbit/index" tests="5" failures="1">
    <testcase classname="index" name="TestIndexConcurrentWalks">
      <failure message="race detected during execution of test"></failure>
    </testcase>
  </testsuite>
</testsuites>
`

// secretWorld fills acme/secret-plans: three issues only its one member
// (alice) and admins may read.
func (b *demoBuilder) secretWorld(p *models.Project) {
	w := b.w
	b.labels(p,
		models.Label{Name: "strategy", Color: "#34495e", Description: "Leadership decisions"},
	)
	shortlist := b.issue(p, models.Issue{
		Title:       "Q3 acquisition shortlist",
		Description: "Candidates for the board review in July: Globex (data pipelines), Hooli (edge runtime). Do not discuss outside this project.",
		Labels:      models.StringList{"strategy"},
		AuthorID:    w.Alice.ID, CreatedAt: at(2, 2, 0),
	}, w.Alice)
	b.issue(p, models.Issue{
		Title:       "Rename Project Nebula before the public announcement",
		Description: "Legal flagged a trademark conflict on \"Nebula\" in the EU. Shortlist three names by the end of the quarter.",
		Labels:      models.StringList{"strategy"},
		AuthorID:    w.Alice.ID, CreatedAt: at(6, 1, 0),
	})
	b.issue(p, models.Issue{
		Title:       "Board deck for the Nebula pricing decision",
		Description: "Per-seat vs usage-based: model both with the design partners' numbers. Due 2027-05-01.",
		State:       models.IssueClosed, Labels: models.StringList{"strategy"},
		AuthorID: w.Alice.ID, CreatedAt: at(1, 4, 0), ClosedAt: ptr(at(8, 2, 0)),
	}, w.Alice)
	b.note(p, shortlist, w.Alice, models.Note{CreatedAt: at(2, 3, 0),
		Body: "Hooli's term sheet arrives next week; Globex prefers a share deal."})
}
