package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// work is one question asked of glmcp (a tool call, or a few: do) and of
// git (one command on the repository glmcp wrote); check compares glmcp's
// answer with git's output, so that no error or wrong answer is timed.
type work struct {
	name    string
	do      func() (map[string]any, error)
	gitArgs []string
	check   func(res map[string]any, git string) error
	note    string // why this git command is the equivalent, where not obvious
	// informational rows are shown but not held to maxRatio.
	informational bool
}

// commitFormat prints what list_commits and get_commit return of a
// commit, each record ended by \x1e.
const commitFormat = "--format=%H%x00%s%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e"

// commitIDs are the ids of git's commitFormat records.
func commitIDs(out string) []string {
	var ids []string
	for rec := range strings.SplitSeq(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if id, _, ok := strings.Cut(rec, "\x00"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

func nonEmptyLines(out string) []string {
	var l []string
	for line := range strings.Lines(out) {
		if line = strings.TrimRight(line, "\n"); line != "" {
			l = append(l, line)
		}
	}
	return l
}

func sameList(what string, got, want []string) error {
	if slices.Equal(got, want) {
		return nil
	}
	return fmt.Errorf("%s: glmcp %d %.120q…, git %d %.120q…", what, len(got), got, len(want), want)
}

func sameCount(what string, got, want int) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%s: glmcp %d, git %d", what, got, want)
}

// prepareWorks finds the commits and the merge request the works read and
// lists the works.
func prepareWorks(ctx context.Context, c *client, repo string) ([]work, error) {
	rev := func(args ...string) (string, error) {
		out, err := gitOut(ctx, repo, args...)
		return strings.TrimSpace(out), err
	}
	normal, err := rev("rev-list", "--no-merges", "--max-count=1", "--skip=50", defaultBranch)
	if err != nil {
		return nil, err
	}
	large, err := rev("log", "-1", "--format=%H", "--grep=^"+treewideTitle, defaultBranch)
	if err != nil || large == "" {
		return nil, fmt.Errorf("no %q commit: %v", treewideTitle, err)
	}
	mr, _, err := c.call("save_merge_request", map[string]any{"project_id": projectPath, "title": "Bench: review topic",
		"source_branch": reviewBranch, "target_branch": defaultBranch})
	if err != nil {
		return nil, err
	}
	iid := num(mr, "iid")
	if iid == 0 {
		return nil, fmt.Errorf("save_merge_request answered no iid: %v", mr)
	}

	call := func(tool string, args map[string]any) func() (map[string]any, error) {
		args["project_id"] = projectPath
		return func() (map[string]any, error) {
			res, _, err := c.call(tool, args)
			return res, err
		}
	}
	commitsCheck := func(res map[string]any, git string) error {
		return sameList("commit ids", strs(list(res, "nodes"), "sha"), commitIDs(git))
	}
	fileCheck := func(res map[string]any, git string) error {
		content := str(res, "content")
		if content == "" || !strings.HasPrefix(git, content) {
			return fmt.Errorf("content (%d bytes) is not a prefix of git's (%d bytes)", len(content), len(git))
		}
		return sameCount("total_lines", num(field(res, "metadata"), "total_lines"), strings.Count(git, "\n"))
	}
	showCheck := func(sha, facet string) func(res map[string]any, git string) error {
		return func(res map[string]any, git string) error {
			if got := str(res, "sha"); got != sha {
				return fmt.Errorf("sha %s, want %s", got, sha)
			}
			return filesCheck(list(res, facet), git)
		}
	}
	treeCheck := func(res map[string]any, git string) error {
		want := map[string]string{}
		for _, l := range nonEmptyLines(git) {
			meta, path, _ := strings.Cut(l, "\t")
			if f := strings.Fields(meta); len(f) == 3 {
				want[path] = f[2]
			}
		}
		entries := list(res, "entries")
		if len(entries) == 0 {
			return fmt.Errorf("no entries")
		}
		if !field(field(res, "pageInfo"), "hasNextPage").(bool) {
			if err := sameCount("entries", len(entries), len(want)); err != nil {
				return err
			}
		}
		for _, e := range entries {
			if want[str(e, "path")] != str(e, "sha") {
				return fmt.Errorf("entry %s %s: git has %q", str(e, "path"), str(e, "sha"), want[str(e, "path")])
			}
		}
		return nil
	}
	commitArgs := func(sha, detail string) map[string]any {
		return map[string]any{"commit_sha": sha, "include": []string{"diff"}, "diff_detail": detail}
	}
	mrArgs := func(detail string) map[string]any {
		a := map[string]any{"merge_request_iid": iid, "include": []string{"diffs"}, "detail": detail}
		if detail == "full_patch" {
			a["diffs_first"] = 100
		}
		return a
	}
	threeDots := defaultBranch + "..." + reviewBranch
	return []work{
		{name: "list_commits", do: call("list_commits", map[string]any{}),
			gitArgs: []string{"log", "-20", commitFormat, defaultBranch}, check: commitsCheck},
		{name: "list_commits path (busy file)", do: call("list_commits", map[string]any{"path": busyPath}),
			gitArgs: []string{"log", "-20", commitFormat, defaultBranch, "--", busyPath}, check: commitsCheck},
		{name: "list_commits path (touched once, long ago)", do: call("list_commits", map[string]any{"path": coldPath}),
			gitArgs: []string{"log", "-20", commitFormat, defaultBranch, "--", coldPath}, check: commitsCheck},
		{name: "search blobs", do: call("search", map[string]any{"scope": "blobs", "search": blobTerm}),
			gitArgs: []string{"grep", "-l", "-i", "-F", "-e", blobTerm, defaultBranch},
			note:    "`git grep -l` lists every matching file of the default branch: the total and the first page of glmcp's answer (which also reads two lines of context of the page's 20 files)",
			check: func(res map[string]any, git string) error {
				var want []string
				for _, l := range nonEmptyLines(git) {
					want = append(want, strings.TrimPrefix(l, defaultBranch+":"))
				}
				if err := sameCount("total", num(field(res, "pageInfo"), "total"), len(want)); err != nil {
					return err
				}
				return sameList("first page", strs(list(res, "items"), "path"), want[:min(20, len(want))])
			}},
		commitSearchWork(c, "search commits", commitTerm, 1),
		{name: "list_repository_tree recursive (first page)", do: call("list_repository_tree", map[string]any{"recursive": true}),
			gitArgs: []string{"ls-tree", "-r", "-t", defaultBranch},
			note:    "git cannot stop after 100 entries; `git ls-tree -r -t` lists the whole tree",
			check:   treeCheck},
		{name: "list_repository_tree recursive (whole tree)", do: func() (map[string]any, error) {
			var all []any
			args := map[string]any{"project_id": projectPath, "recursive": true}
			for {
				res, _, err := c.call("list_repository_tree", args)
				if err != nil {
					return nil, err
				}
				all = append(all, list(res, "entries")...)
				pi := field(res, "pageInfo")
				if next, _ := field(pi, "hasNextPage").(bool); !next {
					return map[string]any{"entries": all, "pageInfo": map[string]any{"hasNextPage": false}}, nil
				}
				args["after"] = str(pi, "endCursor")
			}
		}, gitArgs: []string{"ls-tree", "-r", "-t", defaultBranch}, check: treeCheck, informational: true,
			note: "every page of 100 entries, one MCP call each, against one git command: shown for scale, not held to the ratio (the tool's answer is a page)"},
		{name: "get_repository_file (busy file)", do: call("get_repository_file", map[string]any{"file_path": busyPath, "ref": defaultBranch}),
			gitArgs: []string{"cat-file", "blob", defaultBranch + ":" + busyPath}, check: fileCheck},
		{name: "get_repository_file (large file)", do: call("get_repository_file", map[string]any{"file_path": largeText, "ref": defaultBranch}),
			gitArgs: []string{"cat-file", "blob", defaultBranch + ":" + largeText}, check: fileCheck,
			note: "glmcp returns the first 500 lines and counts the lines of the whole file; git prints the whole file"},
		{name: "get_commit diff stats", do: call("get_commit", commitArgs(normal, "stats")),
			gitArgs: []string{"show", "--numstat", commitFormat, normal}, check: showCheck(normal, "diffStats")},
		{name: "get_commit diff full_patch", do: call("get_commit", commitArgs(normal, "full_patch")),
			gitArgs: []string{"show", "--patch", commitFormat, normal}, check: showCheck(normal, "diffs")},
		{name: "get_commit diff stats (large commit)", do: call("get_commit", commitArgs(large, "stats")),
			gitArgs: []string{"show", "--numstat", commitFormat, large}, check: showCheck(large, "diffStats")},
		{name: "get_commit diff full_patch (large commit)", do: call("get_commit", commitArgs(large, "full_patch")),
			gitArgs: []string{"show", "--patch", commitFormat, large}, check: showCheck(large, "diffs")},
		{name: "get_merge_request diffs stats", do: call("get_merge_request", mrArgs("stats")),
			gitArgs: []string{"diff", "--numstat", threeDots},
			check: func(res map[string]any, git string) error {
				return filesCheck(list(res, "diffStats"), git)
			}},
		{name: "get_merge_request diffs full_patch", do: call("get_merge_request", mrArgs("full_patch")),
			gitArgs: []string{"diff", "--patch", threeDots},
			check: func(res map[string]any, git string) error {
				return filesCheck(list(field(res, "diffs"), "nodes"), git)
			}},
	}, nil
}

// filesCheck compares the number of files of a diff facet with git's
// --numstat or --patch output.
func filesCheck(files []any, git string) error {
	n := strings.Count(git, "\ndiff --git ")
	if strings.HasPrefix(git, "diff --git ") {
		n++
	}
	if n == 0 { // --numstat: one "added<TAB>deleted<TAB>path" line a file
		for _, l := range nonEmptyLines(git) {
			if f := strings.Split(l, "\t"); len(f) == 3 {
				if _, err := strconv.Atoi(f[0]); err == nil || f[0] == "-" {
					n++
				}
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("git lists no file")
	}
	return sameCount("files", len(files), n)
}

// commitSearchCount is how many matches past a page's start glmcp's
// commit search counts, as GitLab's does (its search COUNT_LIMIT).
const commitSearchCount = 100

// commitSearchWork is the search tool's commits scope for term, page
// page of 20, against the git log that gives the same answer: the page
// and the count up to 100 matches past its start (--max-count), so both
// stop at the same commit.
func commitSearchWork(c *client, name, term string, page int) work {
	offset := (page - 1) * 20
	bound := offset + commitSearchCount
	return work{name: name,
		do: func() (map[string]any, error) {
			res, _, err := c.call("search", map[string]any{"project_id": projectPath, "scope": "commits", "search": term, "page": page})
			return res, err
		},
		gitArgs: []string{"log", "-i", "-F", "--grep=" + term, "--max-count=" + strconv.Itoa(bound), "--format=%H", defaultBranch},
		note: fmt.Sprintf("page %d of 20: `git log --grep --max-count=%d` prints the matches up to %d past the page's start, "+
			"what glmcp reads for the page and its count", page, bound, commitSearchCount),
		check: func(res map[string]any, git string) error {
			want := nonEmptyLines(git)
			if err := sameCount("total", num(field(res, "pageInfo"), "total"), len(want)); err != nil {
				return err
			}
			return sameList("page", strs(list(res, "items"), "id"), want[min(offset, len(want)):min(offset+20, len(want))])
		}}
}

// commitSearchWorks are the works measured on an existing repository
// (-source): the commit search with a term that matches often, one that
// matches ~1% of the history, one that matches rarely (the walk reaches
// far back for 100 matches) and one that matches nothing (the whole
// history is read, by git as by glmcp).
func commitSearchWorks(ctx context.Context, c *client, repo string) ([]work, error) {
	if _, err := gitOut(ctx, repo, "rev-parse", "--verify", defaultBranch); err != nil {
		return nil, fmt.Errorf("the source has no %s branch: %w", defaultBranch, err)
	}
	// The server's first open of the repository starts its housekeeping
	// (the commit-graph), which the measurements wait for.
	if _, _, err := c.call("list_commits", map[string]any{"project_id": projectPath}); err != nil {
		return nil, err
	}
	return []work{
		commitSearchWork(c, "search commits, a common term (fix)", "fix", 1),
		commitSearchWork(c, "search commits, ~1% of commits (regression)", "regression", 1),
		commitSearchWork(c, "search commits, ~1% of commits, page 5", "regression", 5),
		commitSearchWork(c, "search commits, rare (octopus)", "octopus", 1),
		commitSearchWork(c, "search commits, no match", "nebula-absent-term", 1),
	}, nil
}
