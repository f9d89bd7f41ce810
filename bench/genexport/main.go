// Command genexport writes a GitLab project export archive of a chosen
// size, in the shape GitLab 17–19 writes it (VERSION, tree/project.json,
// tree/project/<relation>.ndjson, project.bundle), for measuring `glmcp
// projects import --file` (scripts/gen-export runs it; doc/performance.md
// shows the numbers). The content is deterministic: the same flags write
// the same records and the same repository. Any size: ids that relations
// share (notes and their discussions, label links, jobs) come from one
// counter each, and each relation is spooled to a file as it is made and
// copied into the archive, so memory does not grow with the issue count.
//
// The records are written here with GitLab's own field names, not with
// glmcp's exporter, so an import of this archive also reads what GitLab
// writes: jobs under stages[].statuses, label links with their label,
// notes with their author's name, resource state events and award emoji
// (which glmcp counts as skipped).
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	var o opts
	flag.IntVar(&o.issues, "issues", 1000, "issues")
	flag.IntVar(&o.mrs, "mrs", 300, "merge requests (each on its own branch)")
	flag.IntVar(&o.notes, "notes", 5, "notes per issue and per merge request")
	flag.IntVar(&o.pipelines, "pipelines", 300, "pipelines (3 jobs each)")
	flag.IntVar(&o.users, "users", 20, "members")
	flag.StringVar(&o.out, "o", "export.tar.gz", "the archive to write")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "genexport:", err)
		os.Exit(1)
	}
}

type opts struct {
	issues, mrs, notes, pipelines, users int
	out                                  string
}

var base = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

func at(minutes int) string {
	return base.Add(time.Duration(minutes) * time.Minute).Format("2006-01-02T15:04:05.000Z")
}

type obj = map[string]any

func run(o opts) error {
	dir, err := os.MkdirTemp("", "genexport-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	shas, err := repository(dir, o.mrs)
	if err != nil {
		return err
	}
	// Each relation is spooled to its own file as its records are made
	// (a tar entry needs its size before its body), then copied into the
	// archive: memory does not grow with the number of records.
	rels := map[string]*spool{}
	for _, rel := range relations {
		if rels[rel], err = newSpool(filepath.Join(dir, rel+".ndjson")); err != nil {
			return err
		}
	}
	defer func() {
		for _, sp := range rels {
			sp.f.Close()
		}
	}()
	// ids hands out the ids of the records that share an id space across
	// relations (notes and their discussions, label links, jobs): one
	// counter each, so no size makes two of them collide.
	var ids struct{ note, link, job int }
	for u := 1; u <= o.users; u++ {
		rels["project_members"].add(obj{"access_level": []int{30, 40, 20, 10, 50}[u%5],
			"source_type": "Project", "user_id": u, "created_at": at(u), "updated_at": at(u),
			"user": obj{"id": u, "username": fmt.Sprintf("gen-user-%d", u), "public_email": fmt.Sprintf("gen-user-%d@example.com", u)}})
	}
	labels := []obj{}
	for k, name := range []string{"bug", "feature", "docs", "performance", "security", "ünïcødé 🚀"} {
		priorities := []any{}
		if k < 2 { // bug and feature are prioritized
			priorities = append(priorities, obj{"project_id": 1, "priority": k, "created_at": at(k), "updated_at": at(k)})
		}
		l := obj{"id": 100 + k, "title": name, "color": "#6699cc", "description": "", "type": "ProjectLabel",
			"created_at": at(k), "updated_at": at(k), "priorities": priorities}
		labels = append(labels, l)
		rels["labels"].add(l)
	}
	milestones := []obj{}
	for k := 1; k <= 5; k++ {
		m := obj{"id": 200 + k, "iid": k, "title": fmt.Sprintf("Milestone %d", k), "description": "", "state": "active",
			"due_date": nil, "start_date": nil, "created_at": at(k), "updated_at": at(k), "events": []any{}}
		milestones = append(milestones, m)
		rels["milestones"].add(m)
	}
	user := func(n int) int { return 1 + n%o.users }
	notes := func(kind string, on, n int) []obj {
		out := []obj{}
		for k := 0; k < n; k++ {
			ids.note++
			out = append(out, obj{"id": ids.note, "note": fmt.Sprintf("Comment %d on %s %d — ünïcødé ✅\n\n%s", k, kind, on,
				strings.Repeat("Some discussion text. ", 10)), "noteable_type": kind, "author_id": user(on + k),
				"created_at": at(on + k), "updated_at": at(on + k), "system": false, "type": nil, "discussion_id": fmt.Sprintf("%040x", ids.note),
				"internal": k == n-1, "confidential": k == n-1, "author": obj{"name": fmt.Sprintf("Gen User %d", user(on+k))},
				"award_emoji": []any{obj{"name": "thumbsup", "user_id": user(k), "awardable_type": "Note", "created_at": at(k)}},
				"events":      []any{}})
		}
		return out
	}
	link := func(k int, kind string) []obj {
		l := labels[k%len(labels)]
		ids.link++
		return []obj{{"id": ids.link, "label_id": l["id"], "target_type": kind, "created_at": at(k), "updated_at": at(k), "label": l}}
	}
	for i := 1; i <= o.issues; i++ {
		state := "opened"
		var closed any
		if i%3 == 0 {
			state, closed = "closed", at(i+60)
		}
		// Every seventh issue a task, as GitLab 15 wrote it (issue_type)
		// and later versions (work_item_type).
		kind := "issue"
		if i%7 == 0 {
			kind = "task"
		}
		rels["issues"].add(obj{"id": 10000 + i, "issue_type": kind, "iid": i, "title": fmt.Sprintf("Issue %d: something to do", i),
			"description": strings.Repeat(fmt.Sprintf("Description of issue %d. ", i), 40), "author_id": user(i),
			"state": state, "closed_at": closed, "confidential": i%50 == 0, "due_date": nil,
			"created_at": at(i), "updated_at": at(i + 30), "work_item_type": obj{"base_type": kind},
			"notes": notes("Issue", i, o.notes), "label_links": link(i, "Issue"), "milestone": milestones[i%len(milestones)],
			"issue_assignees": []obj{{"user_id": user(i + 1)}}, "award_emoji": []any{},
			"resource_state_events": []any{obj{"user_id": user(i), "state": "opened", "created_at": at(i)}}, "events": []any{}, "timelogs": []any{}})
	}
	for m := 1; m <= o.mrs; m++ {
		sha := shas[m-1]
		state := "opened"
		if m%4 == 0 {
			state = "closed"
		}
		mrNotes := notes("MergeRequest", m, o.notes)
		line := 1
		path := fmt.Sprintf("feature-%d.txt", m)
		lineCode := fmt.Sprintf("%x_0_%d", sha1.Sum([]byte(path)), line)
		if m%2 == 0 { // a line code GitLab computed from the diff, not from the lines
			lineCode = fmt.Sprintf("%x_%d_%d", sha1.Sum([]byte(path)), m, line)
		}
		position := obj{"base_sha": shas[len(shas)-1], "start_sha": shas[len(shas)-1], "head_sha": sha, "old_path": nil,
			"new_path": path, "position_type": "text", "old_line": nil, "new_line": line}
		original := position
		if m%3 == 0 { // written on an earlier version of the line
			original = obj{"base_sha": shas[0], "start_sha": shas[0], "head_sha": shas[1], "old_path": path,
				"new_path": path, "position_type": "text", "old_line": 2, "new_line": 3}
		}
		ids.note++
		mrNotes = append(mrNotes, obj{"id": ids.note, "line_code": lineCode, "original_position": original, "note": "Diff note: check this line", "noteable_type": "MergeRequest",
			"author_id": user(m), "created_at": at(m), "updated_at": at(m), "system": false, "type": "DiffNote",
			"discussion_id": fmt.Sprintf("%040x", ids.note), "internal": false, "author": obj{"name": fmt.Sprintf("Gen User %d", user(m))},
			"position": position})
		// The title's colon ends the number, as an issue's does: "Merge
		// request 42:" is one merge request of any project that has 42,
		// where "Merge request 42" is also 420–429 and 4200–4299.
		rels["merge_requests"].add(obj{"id": 20000 + m, "iid": m, "title": fmt.Sprintf("Merge request %d: add feature-%d.txt", m, m),
			"description": strings.Repeat("Changes. ", 50), "state": state, "source_branch": fmt.Sprintf("feature-%d", m),
			"target_branch": "main", "source_project_id": 1, "target_project_id": 1, "author_id": user(m),
			"merge_status": "can_be_merged", "draft": m%10 == 0, "squash": false, "diff_head_sha": sha,
			"merge_params": obj{"force_remove_source_branch": []string{"0", "1"}[m%2]},
			"created_at":   at(m), "updated_at": at(m + 10), "notes": mrNotes, "label_links": link(m, "MergeRequest"),
			"milestone": milestones[m%len(milestones)], "merge_request_assignees": []obj{{"user_id": user(m)}},
			"merge_request_reviewers": []obj{{"user_id": user(m + 1), "state": "unreviewed"}},
			"approvals":               []obj{{"user_id": user(m + 2), "created_at": at(m + 5), "updated_at": at(m + 5)}},
			"merge_request_diff": obj{"state": "collected", "base_commit_sha": shas[len(shas)-1], "start_commit_sha": shas[len(shas)-1],
				"head_commit_sha": sha, "merge_request_diff_commits": []obj{{"sha": sha, "relative_order": 0, "message": "feature",
					"authored_date": at(m), "committed_date": at(m)}}, "merge_request_diff_files": []obj{{"relative_order": 0,
					"new_path": fmt.Sprintf("feature-%d.txt", m), "old_path": fmt.Sprintf("feature-%d.txt", m), "new_file": true,
					"utf8_diff": "@@ -0,0 +1 @@\n+feature\n"}}},
			"metrics": obj{"merged_at": nil, "latest_closed_at": nil}, "events": []any{}, "timelogs": []any{}, "award_emoji": []any{}})
	}
	for p := 1; p <= o.pipelines; p++ {
		jobs := []obj{}
		for k, name := range []string{"build", "test", "lint"} {
			ids.job++
			jobs = append(jobs, obj{"id": ids.job, "name": name, "stage": []string{"build", "test", "test"}[k],
				"status": "success", "ref": "main", "type": "Ci::Build", "allow_failure": false, "created_at": at(p),
				"updated_at": at(p + 5), "started_at": at(p + 1), "finished_at": at(p + 5), "user_id": user(p)})
		}
		rels["ci_pipelines"].add(obj{"id": 600000 + p, "iid": p, "ref": "main", "sha": shas[len(shas)-1],
			"status": "success", "source": "push", "user_id": user(p), "tag": false, "created_at": at(p), "updated_at": at(p + 5),
			"started_at": at(p + 1), "finished_at": at(p + 5), "notes": []any{},
			"stages": []obj{{"name": "build", "status": "success", "position": 0, "statuses": jobs[:1]},
				{"name": "test", "status": "success", "position": 1, "statuses": jobs[1:]}}})
	}
	rels["releases"].add(obj{"tag": "v1.0.0", "name": "Version 1.0.0", "description": "The first release — ✨", "author_id": 1,
		"created_at": at(1), "updated_at": at(1), "released_at": at(1), "sha": shas[len(shas)-1],
		"links": []obj{{"name": "Binary", "url": "https://example.com/v1.0.0/bin", "link_type": "package", "filepath": nil,
			"created_at": at(1), "updated_at": at(1)}},
		"milestone_releases": []obj{{"milestone": milestones[0]}, {"milestone": milestones[1]}}})
	rels["protected_branches"].add(obj{"name": "main", "merge_access_levels": []obj{{"access_level": 40}}, "push_access_levels": []obj{{"access_level": 40}}})
	for _, sp := range rels {
		if sp.err != nil {
			return sp.err
		}
		if err := sp.bw.Flush(); err != nil {
			return err
		}
	}
	return write(o.out, dir, rels)
}

// relations are the archive's ndjson files, in the order it holds them.
var relations = []string{"project_members", "labels", "milestones", "issues", "merge_requests", "ci_pipelines", "releases", "protected_branches"}

// spool is one relation's ndjson file being written; the first error
// stops it and is kept for the end.
type spool struct {
	f   *os.File
	bw  *bufio.Writer
	enc *json.Encoder
	err error
}

func newSpool(name string) (*spool, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	return &spool{f: f, bw: bw, enc: json.NewEncoder(bw)}, nil
}

// add writes r as one line (json.Encoder ends each value with "\n").
func (sp *spool) add(r obj) {
	if sp.err == nil {
		sp.err = sp.enc.Encode(r)
	}
}

// repository builds, with git fast-import, a main branch of 100 commits,
// one branch per merge request (a commit on main's tip) and a tag v1.0.0,
// bundles it into dir/project.bundle and returns the branches' tips
// (merge request k's at k-1, main's last).
func repository(dir string, branches int) ([]string, error) {
	repo := filepath.Join(dir, "repo.git")
	if out, err := exec.Command("git", "init", "--bare", "-q", "-b", "main", repo).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	var s bytes.Buffer
	mark := 0
	blob := func(content string) int {
		mark++
		fmt.Fprintf(&s, "blob\nmark :%d\ndata %d\n%s\n", mark, len(content), content)
		return mark
	}
	commit := func(ref string, from int, path string, b int, when int, msg string) int {
		mark++
		fmt.Fprintf(&s, "commit %s\nmark :%d\nauthor Gen <gen@example.com> %d +0000\ncommitter Gen <gen@example.com> %d +0000\ndata %d\n%s\n",
			ref, mark, base.Unix()+int64(when)*60, base.Unix()+int64(when)*60, len(msg), msg)
		if from > 0 {
			fmt.Fprintf(&s, "from :%d\n", from)
		}
		fmt.Fprintf(&s, "M 100644 :%d %s\n\n", b, path)
		return mark
	}
	tip := 0
	for k := 0; k < 100; k++ {
		b := blob(fmt.Sprintf("line %d\n", k))
		tip = commit("refs/heads/main", tip, fmt.Sprintf("src/file-%d.txt", k%20), b, k, fmt.Sprintf("Commit %d", k))
	}
	fmt.Fprintf(&s, "reset refs/tags/v1.0.0\nfrom :%d\n\n", tip)
	for m := 1; m <= branches; m++ {
		b := blob("feature\n")
		commit(fmt.Sprintf("refs/heads/feature-%d", m), tip, fmt.Sprintf("feature-%d.txt", m), b, 200+m, fmt.Sprintf("Feature %d", m))
	}
	cmd := exec.Command("git", "--git-dir", repo, "fast-import", "--quiet")
	cmd.Stdin = &s
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	var shas []string
	for m := 1; m <= branches; m++ {
		shas = append(shas, "refs/heads/feature-"+fmt.Sprint(m))
	}
	shas = append(shas, "refs/heads/main")
	out, err := exec.Command("git", append([]string{"--git-dir", repo, "rev-parse"}, shas...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("git rev-parse: %v", err)
	}
	shas = strings.Fields(string(out))
	if out, err := exec.Command("git", "--git-dir", repo, "bundle", "create", "-q", filepath.Join(dir, "project.bundle"), "--all").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git bundle: %v: %s", err, out)
	}
	return shas, nil
}

// write packs the archive: GitLab's file names, ./-prefixed as GitLab's
// tar writes them, each relation copied from its spool file.
func write(out, dir string, rels map[string]*spool) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 256<<10)
	zw := gzip.NewWriter(bw)
	tw := tar.NewWriter(zw)
	add := func(name string, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o600, Size: int64(len(body)), ModTime: base, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	addFile := func(name string, src *os.File) error {
		info, err := src.Stat()
		if err != nil {
			return err
		}
		if _, err := src.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o600, Size: info.Size(), ModTime: base, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = io.Copy(tw, src)
		return err
	}
	project, _ := json.Marshal(obj{"description": "A generated project — ünïcødé 🚀", "visibility_level": 0, "archived": false,
		"merge_requests_ff_only_enabled": false, "merge_requests_rebase_enabled": false, "project_feature": obj{"issues_access_level": 20}})
	for _, e := range []struct {
		name string
		body []byte
	}{{"VERSION", []byte("0.2.4")}, {"GITLAB_VERSION", []byte("18.0.0")}, {"GITLAB_REVISION", []byte("generated")}, {"tree/project.json", project}} {
		if err := add(e.name, e.body); err != nil {
			return err
		}
	}
	for _, rel := range relations {
		if err := addFile("tree/project/"+rel+".ndjson", rels[rel].f); err != nil {
			return err
		}
	}
	bundle, err := os.Open(filepath.Join(dir, "project.bundle"))
	if err != nil {
		return err
	}
	defer bundle.Close()
	if err := addFile("project.bundle", bundle); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
