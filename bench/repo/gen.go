package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
)

// params shape a generated repository. The same params give the same
// stream, hence the same commit ids.
type params struct {
	Commits   int   `json:"commits"`    // every commit, merges included
	Files     int   `json:"files"`      // files in the default branch's tree at the end
	Tags      int   `json:"tags"`       // tags, half annotated
	LargeKiB  int   `json:"large_kib"`  // size of the largest text file
	Seed      int64 `json:"seed"`       // the random source's seed
	Generator int   `json:"generator"`  // genVersion: a change of the generator changes the cache key
	MRCommits int   `json:"mr_commits"` // commits of the unmerged review branch
	Treewide  int   `json:"treewide"`   // large commits (hundreds of files)
}

// genVersion changes whenever the stream the generator writes changes.
const genVersion = 2

// Well-known paths and names the benchmark reads (gen guarantees them).
const (
	defaultBranch = "master"
	reviewBranch  = "review/bench-topic" // unmerged: the merge request's source
	scratchBranch = "_scratch"           // topics are built here; deleted after the import
	busyPath      = "sequencer.c"        // the hottest file
	coldPath      = "compat/obsolete/legacy-compat.c"
	largeText     = "t/t9999/large-fixture.txt" // the largest text file, never changed
	largePO       = "po/large.po"               // a large text file rewritten now and then
	largeBinary   = "t/t9999/fixture-blob.bin"  // a large binary file
	blobTerm      = "strbuf_release_all"        // in about 1 file in 13
	commitTerm    = "regression"                // in about 1 commit message in 100
	treewideTitle = "treewide: "                // the large commits' titles start so
)

func defaultParams() params {
	return params{Commits: 80000, Files: 4000, Tags: 1000, LargeKiB: 4096, Seed: 19,
		Generator: genVersion, MRCommits: 30, Treewide: 8}
}

// file is one file of the default branch as the generator tracks it.
type file struct {
	path   string
	lines  []string // text files
	binary []byte   // binary files (never edited)
	slot   int      // index in the weights tree
	frozen bool     // never picked for an edit (coldPath, largeText, binaries)
}

// generator writes a git fast-import stream of params p to w.
type generator struct {
	p      params
	r      *rand.Rand
	w      *bufio.Writer
	files  []*file // in creation order; renames keep the slot
	byPath map[string]*file
	heat   *fenwick
	mark   int
	when   int64 // committer time of the last commit
	main   int   // mark of the default branch's tip
	// the open topic, if any
	topic      map[string][]string // its files' content
	topicOrder []string
	topicTip   int
	topicName  string
	written    int // commits written
	initial    int // files of the first commit
	reviewed   bool
	renamed    int // renames so far
	tagsDone   int
	version    [3]int
	dirs       []string
	authors    []author
	authorZipf *rand.Zipf
}

type author struct{ name, email, tz string }

// generate writes the whole stream and returns the number of commits.
func generate(p params, out io.Writer) (int, error) {
	g := &generator{p: p, r: rand.New(rand.NewSource(p.Seed)), w: bufio.NewWriterSize(out, 1<<20),
		byPath: map[string]*file{}, heat: newFenwick(p.Files + 64), when: 1112911993}
	g.setup()
	g.run()
	fmt.Fprintf(g.w, "done\n")
	return g.written, g.w.Flush()
}

var (
	topDirs  = []string{"builtin", "t", "Documentation", "compat", "contrib", "refs", "xdiff", "t/helper", "reftable", "negotiator", "trace2", "block-sha1", "ewah", "gitweb", "templates", "perl", "git-gui", "po"}
	syl      = []string{"ab", "ack", "al", "ar", "bo", "cat", "ch", "co", "de", "di", "el", "en", "fa", "fe", "gr", "ha", "id", "in", "ka", "lo", "ma", "me", "ne", "no", "ob", "pa", "pre", "qu", "re", "ri", "sa", "se", "st", "ta", "te", "tr", "un", "va", "wi", "xo", "ze"}
	coreFile = []string{busyPath, "diff.c", "refs.c", "revision.c", "config.c", "apply.c", "object-name.c", "builtin/rebase.c", "builtin/log.c", "builtin/commit.c", "read-cache.c", "merge-ort.c", "cache.h", "Makefile", "Documentation/config.txt", "t/t3404-rebase-interactive.sh", "remote.c", "transport.c", "pack-objects.c", "wt-status.c", "sha1-file.c", "submodule.c", "builtin/pull.c", "strbuf.c", "run-command.c"}
	idents   = []string{"strbuf", "repo", "oid", "commit", "tree", "blob", "ref", "path", "opts", "buf", "len", "flags", "item", "list", "entry", "ctx", "state", "revs", "ce", "istate", "remote", "sb", "err", "ret", "fd", "name", "mode", "hash", "odb", "pack"}
	verbs    = []string{"fix", "teach", "avoid", "use", "drop", "add", "simplify", "refactor", "document", "make", "plug", "remove", "rename", "introduce", "prepare", "stop", "clarify", "optimize"}
	objects  = []string{"a leak", "an off-by-one", "the option parser", "a NULL dereference", "the error message", "a race", "the config lookup", "a test", "the progress meter", "quoting", "the usage string", "a typo", "the fast path", "lazy loading", "the cache"}
)

var coreIndex = func() map[string]int {
	m := map[string]int{}
	for i, p := range coreFile {
		m[p] = i
	}
	return m
}()

func isCore(path string) bool { _, ok := coreIndex[path]; return ok }

func (g *generator) setup() {
	for i := range 70 {
		first := strings.ToUpper(g.word(1, 2)[:1]) + g.word(1, 2)
		last := strings.ToUpper(g.word(1, 1)[:1]) + g.word(2, 3)
		tz := []string{"-0700", "-0800", "+0100", "+0200", "+0900", "-0400", "+0000", "+0530"}[i%8]
		g.authors = append(g.authors, author{first + " " + last, strings.ToLower(first) + "@" + strings.ToLower(last) + ".example.org", tz})
	}
	g.authorZipf = rand.NewZipf(g.r, 1.3, 2, uint64(len(g.authors)-1))
	for _, d := range topDirs {
		g.dirs = append(g.dirs, d)
		for range 2 + g.r.Intn(6) {
			sub := d + "/" + g.word(1, 3)
			g.dirs = append(g.dirs, sub)
			if g.r.Intn(3) == 0 {
				g.dirs = append(g.dirs, sub+"/"+g.word(1, 2))
			}
		}
	}
	slices.Sort(g.dirs)
	g.dirs = slices.Compact(g.dirs)
}

// word is n to m random syllables.
func (g *generator) word(n, m int) string {
	var b strings.Builder
	for range n + g.r.Intn(m-n+1) {
		b.WriteString(syl[g.r.Intn(len(syl))])
	}
	return b.String()
}

func (g *generator) ident() string {
	return idents[g.r.Intn(len(idents))] + "_" + g.word(1, 2)
}

// line is one line of a file of the given extension.
func (g *generator) line(ext string) string {
	switch ext {
	case ".sh":
		switch g.r.Intn(5) {
		case 0:
			return "test_expect_success '" + g.word(2, 4) + " " + g.word(1, 3) + "' '"
		case 1:
			return "\tgit " + g.word(1, 2) + " --" + g.word(1, 2) + " >actual &&"
		case 2:
			return "\ttest_cmp expect actual"
		default:
			return "\techo " + g.word(1, 3) + " " + g.word(1, 3) + " >expect &&"
		}
	case ".txt", ".adoc", ".po":
		var ws []string
		for range 4 + g.r.Intn(9) {
			ws = append(ws, g.word(1, 3))
		}
		return strings.Join(ws, " ")
	default:
		switch g.r.Intn(8) {
		case 0:
			return "static int " + g.ident() + "(struct " + g.ident() + " *" + g.ident() + ")"
		case 1:
			return "\tif (" + g.ident() + " < 0)"
		case 2:
			return "\t\treturn error(_(\"" + g.word(1, 3) + " " + g.word(2, 3) + "\"));"
		case 3:
			return "\t" + g.ident() + " = " + g.ident() + "(" + g.ident() + ", " + strconv.Itoa(g.r.Intn(100)) + ");"
		case 4:
			return "}"
		case 5:
			return ""
		case 6:
			return "\t/* " + g.word(2, 3) + " " + g.word(1, 3) + " " + g.word(1, 3) + " */"
		default:
			return "\tstrbuf_addf(&" + g.ident() + ", \"%s\", " + g.ident() + ");"
		}
	}
}

func ext(path string) string {
	if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/') {
		return path[i:]
	}
	return ""
}

// newPath is a fresh path for a file in a random directory.
func (g *generator) newPath() string {
	for {
		d := g.dirs[g.r.Intn(len(g.dirs))]
		var e string
		switch {
		case strings.HasPrefix(d, "t"):
			e = ".sh"
			if g.r.Intn(4) == 0 {
				e = ".c"
			}
		case strings.HasPrefix(d, "Documentation"):
			e = ".txt"
		case strings.HasPrefix(d, "po"):
			e = ".po"
		default:
			e = []string{".c", ".c", ".h", ".c", ".h", ".txt"}[g.r.Intn(6)]
		}
		p := d + "/" + g.word(1, 3) + "-" + g.word(1, 3) + e
		if g.r.Intn(8) == 0 {
			p = g.word(2, 3) + e // top level, as git's many *.c
		}
		if _, taken := g.byPath[p]; !taken && !g.isDirOrUnder(p) {
			return p
		}
	}
}

// isDirOrUnder tells whether p clashes with an existing file as a
// directory (p is a prefix dir of a file, or a file is p's directory).
func (g *generator) isDirOrUnder(p string) bool {
	for dir := p; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return false
		}
		dir = dir[:i]
		if _, ok := g.byPath[dir]; ok {
			return true
		}
	}
}

// content is a new text file of n lines; about 1 in 13 contain blobTerm.
func (g *generator) content(path string, n int) []string {
	e := ext(path)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.line(e)
	}
	if g.r.Intn(13) == 0 && n > 2 {
		lines[g.r.Intn(n)] = "\t" + blobTerm + "(&" + g.ident() + ");"
	}
	return lines
}

// addFile creates a text file at path with a random size and heat.
func (g *generator) addFile(path string, lines []string, heat float64) *file {
	f := &file{path: path, lines: lines, slot: len(g.files)}
	g.files = append(g.files, f)
	g.byPath[path] = f
	g.heat.add(f.slot, heat)
	return f
}

// coldHeat is a Pareto-distributed weight: a long tail of files rarely or
// never touched.
func (g *generator) coldHeat() float64 {
	u := g.r.Float64()*0.999 + 0.001
	return math.Min(math.Pow(u, -1.6)/40, 20)
}

func (g *generator) sizedContent(path string) []string {
	n := int(math.Exp(g.r.NormFloat64()*0.9 + 4.4)) // median ~80 lines
	return g.content(path, max(5, min(n, 3000)))
}

func (g *generator) run() {
	p := g.p
	// The first commit: about 60% of the files, the core ones and the
	// fixed ones included.
	g.initial = max(len(coreFile)+8, p.Files*6/10)
	for i, path := range coreFile {
		g.addFile(path, g.content(path, 300+g.r.Intn(400)), 200/float64(i+1)+10)
	}
	g.addFile(coldPath, g.content(coldPath, 120), 0).frozen = true
	big := g.addFile(largeText, nil, 0)
	big.frozen = true
	for n := 0; n < p.LargeKiB<<10; {
		l := g.line(".txt")
		big.lines = append(big.lines, l)
		n += len(l) + 1
	}
	po := g.addFile(largePO, nil, 0)
	for n := 0; n < p.LargeKiB<<9; {
		l := g.line(".po")
		po.lines = append(po.lines, l)
		n += len(l) + 1
	}
	bin := g.addFile(largeBinary, nil, 0)
	bin.frozen, bin.lines = true, nil
	bin.binary = g.binary(p.LargeKiB * 3 / 4 << 10)
	for i := range 6 {
		path := fmt.Sprintf("Documentation/images/%s-%d.png", g.word(1, 2), i)
		f := g.addFile(path, nil, 0)
		f.frozen, f.binary = true, g.binary(2048+g.r.Intn(16384))
	}
	for len(g.files) < g.initial {
		path := g.newPath()
		g.addFile(path, g.sizedContent(path), g.coldHeat())
	}
	var mods []string
	for _, f := range g.files {
		mods = append(mods, f.path)
	}
	g.commit(defaultBranch, "Initial revision of \"git\", the information manager from hell", nil, mods, nil)

	// Reserve the commits the tail needs: the review branch, a last merge.
	reviewAt := p.Commits - p.MRCommits - max(10, p.Commits/300)
	treewideEvery := max(1, p.Commits/(p.Treewide+1))
	poEvery := max(1, p.Commits/12)
	tagEvery := float64(p.Commits) / float64(p.Tags+1)
	for g.written < p.Commits {
		left := p.Commits - g.written
		switch {
		case g.topic != nil && (left <= 1 || g.r.Intn(4) == 0):
			g.merge()
		case g.topic == nil && !g.reviewed && g.written >= reviewAt && left > p.MRCommits+1:
			g.review()
		case g.topic == nil && left > 12 && g.r.Intn(6) == 0 && g.written < reviewAt:
			g.openTopic()
		case g.written%treewideEvery == 0 && g.written > 0 && g.topic == nil:
			g.treewide()
		case g.written%poEvery == 0 && g.topic == nil:
			g.touchPO(po)
		default:
			g.mainlineCommit()
		}
		for g.tagsDone < p.Tags && float64(g.written) >= tagEvery*float64(g.tagsDone+1) {
			g.tag()
		}
	}
	for g.tagsDone < p.Tags {
		g.tag()
	}
}

func (g *generator) binary(n int) []byte {
	b := make([]byte, n)
	g.r.Read(b)
	copy(b, "\x89PNG\r\n\x1a\n\x00\x00")
	return b
}

// pick returns a random editable file by heat, not in the open topic
// (nil when none is found).
func (g *generator) pick() *file {
	for range 20 {
		i := g.heat.find(g.r.Float64() * g.heat.total())
		if i >= len(g.files) {
			continue
		}
		f := g.files[i]
		if f.frozen || f.binary != nil {
			continue
		}
		if _, busy := g.topic[f.path]; busy {
			continue
		}
		return f
	}
	return nil
}

// edit changes a few lines of lines and returns the new content.
func (g *generator) edit(path string, lines []string) []string {
	out := slices.Clone(lines)
	e := ext(path)
	limit := 1000 // lines: a file stops growing there
	if !isCore(path) {
		limit = 400
	}
	for range 1 + g.r.Intn(3) {
		at := g.r.Intn(len(out) + 1)
		k := g.r.Intn(10)
		if len(out) > limit {
			k = 9
		}
		switch {
		case k < 4 && at < len(out): // replace
			for j := at; j < min(len(out), at+1+g.r.Intn(3)); j++ {
				out[j] = g.line(e)
			}
		case k < 7 || len(out) < 10: // insert
			var add []string
			for range 1 + g.r.Intn(6) {
				add = append(add, g.line(e))
			}
			out = slices.Insert(out, at, add...)
		default: // delete
			if at < len(out) {
				out = slices.Delete(out, at, min(len(out), at+1+g.r.Intn(5)))
			}
		}
	}
	return out
}

func (g *generator) subject(path string) string {
	area := strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ext(path))
	if g.r.Intn(100) == 0 {
		return fmt.Sprintf("%s: fix %s %s in %s", area, g.word(1, 2), commitTerm, g.ident())
	}
	return fmt.Sprintf("%s: %s %s", area, verbs[g.r.Intn(len(verbs))], objects[g.r.Intn(len(objects))])
}

func (g *generator) message(subject string) string {
	var b strings.Builder
	b.WriteString(subject + "\n\n")
	for range 1 + g.r.Intn(5) {
		b.WriteString(g.line(".txt") + "\n")
	}
	a := g.authors[g.authorZipf.Uint64()]
	fmt.Fprintf(&b, "\nSigned-off-by: %s <%s>\n", a.name, a.email)
	return b.String()
}

// mainlineCommit edits 1-5 files on the default branch; now and then it
// adds or renames one.
func (g *generator) mainlineCommit() {
	p := g.p
	var mods []string
	var renames [][2]string
	// Files are added so that the tree has p.Files at nine tenths of the
	// history (the tail may be merges only).
	want := g.initial + (p.Files-g.initial)*(g.written+1)/max(1, p.Commits*9/10)
	subjectPath := ""
	for len(g.files) < min(p.Files, want) {
		path := g.newPath()
		g.addFile(path, g.sizedContent(path), g.coldHeat())
		mods = append(mods, path)
		subjectPath = path
	}
	if g.r.Intn(150) == 0 || g.renamed == 0 && g.written >= g.p.Commits/3 {
		if f := g.pick(); f != nil && f.path != busyPath && !isCore(f.path) && !slices.Contains(mods, f.path) {
			old := f.path
			f.path = g.newPath()
			delete(g.byPath, old)
			g.byPath[f.path] = f
			renames = append(renames, [2]string{old, f.path})
			g.renamed++
			subjectPath = f.path
		}
	}
	n := []int{1, 1, 1, 1, 2, 2, 3, 5}[g.r.Intn(8)]
	for range n {
		f := g.pick()
		if f == nil || slices.Contains(mods, f.path) {
			continue
		}
		f.lines = g.edit(f.path, f.lines)
		mods = append(mods, f.path)
		if subjectPath == "" {
			subjectPath = f.path
		}
	}
	if subjectPath == "" {
		subjectPath = busyPath
		f := g.byPath[busyPath]
		f.lines = g.edit(f.path, f.lines)
		mods = append(mods, f.path)
	}
	g.commit(defaultBranch, g.message(g.subject(subjectPath)), nil, mods, renames)
}

// treewide edits one line in hundreds of files at once.
func (g *generator) treewide() {
	var mods []string
	n := 200 + g.r.Intn(400)
	for _, f := range g.files {
		if len(mods) >= n {
			break
		}
		if f.frozen || f.binary != nil || len(f.lines) == 0 || g.r.Intn(3) != 0 {
			continue
		}
		i := g.r.Intn(len(f.lines))
		f.lines = slices.Clone(f.lines)
		f.lines[i] = strings.ReplaceAll(f.lines[i], "\t", "    ") + " /* " + g.word(1, 2) + " */"
		mods = append(mods, f.path)
	}
	g.commit(defaultBranch, g.message(treewideTitle+"convert "+g.word(2, 3)+" to the new "+g.ident()+" API"), nil, mods, nil)
}

// touchPO rewrites about a tenth of the large translation file's lines.
func (g *generator) touchPO(po *file) {
	po.lines = slices.Clone(po.lines)
	for i := range po.lines {
		if g.r.Intn(10) == 0 {
			po.lines[i] = g.line(".po")
		}
	}
	g.commit(defaultBranch, g.message("l10n: update "+largePO), nil, []string{largePO}, nil)
}

// openTopic writes 1-6 commits of a topic branch forked from the default
// branch's tip; merge brings them back.
func (g *generator) openTopic() {
	g.topic = map[string][]string{}
	g.topicOrder = nil
	g.topicTip = g.main
	g.topicName = g.word(1, 1) + "/" + g.word(2, 3) + "-" + g.word(1, 3)
	g.topicCommits(scratchBranch, 1+g.r.Intn(6))
}

// topicCommits writes n commits of edits on branch, from g.topicTip.
func (g *generator) topicCommits(branch string, n int) {
	for range n {
		var mods []string
		for range 1 + g.r.Intn(3) {
			f := g.pick()
			if f == nil || slices.Contains(mods, f.path) {
				continue
			}
			cur, ok := g.topic[f.path]
			if !ok {
				cur = f.lines
				g.topicOrder = append(g.topicOrder, f.path)
			}
			g.topic[f.path] = g.edit(f.path, cur)
			mods = append(mods, f.path)
		}
		if len(mods) == 0 {
			f := g.byPath[busyPath]
			cur, ok := g.topic[busyPath]
			if !ok {
				cur = f.lines
				g.topicOrder = append(g.topicOrder, busyPath)
			}
			g.topic[busyPath] = g.edit(busyPath, cur)
			mods = append(mods, busyPath)
		}
		from := g.topicTip
		g.topicTip = g.commitFrom(branch, from, g.message(g.subject(mods[0])), nil, mods, nil, g.topic)
	}
}

// merge merges the open topic into the default branch.
func (g *generator) merge() {
	for _, path := range g.topicOrder {
		g.byPath[path].lines = g.topic[path]
	}
	tip := g.topicTip
	mods := g.topicOrder
	name := g.topicName
	g.topic, g.topicOrder = nil, nil
	g.commit(defaultBranch, "Merge branch '"+name+"'\n\n* "+name+":\n  "+g.word(2, 3)+"\n", []int{tip}, mods, nil)
}

// review writes the unmerged review branch, forked from the default
// branch's tip: its commits touch a few dozen files.
func (g *generator) review() {
	g.topic = map[string][]string{}
	g.topicOrder = nil
	g.topicTip = g.main
	g.topicCommits(reviewBranch, g.p.MRCommits)
	g.topic, g.topicOrder = nil, nil
	g.reviewed = true
}

func (g *generator) tick() {
	g.when += 600 + g.r.Int63n(4*3600)
}

// commit writes a commit on the default branch (mods from the tracked
// files) and moves the tip.
func (g *generator) commit(branch, msg string, merges []int, mods []string, renames [][2]string) {
	g.main = g.commitFrom(branch, g.main, msg, merges, mods, renames, nil)
}

// commitFrom writes one commit on branch with parent from (0: none) and
// merges; mods are written from overlay, else the tracked files.
func (g *generator) commitFrom(branch string, from int, msg string, merges []int, mods []string, renames [][2]string, overlay map[string][]string) int {
	g.tick()
	g.mark++
	a := g.authors[g.authorZipf.Uint64()]
	c := g.authors[g.authorZipf.Uint64()]
	authored := g.when - g.r.Int63n(3*86400)
	w := g.w
	fmt.Fprintf(w, "commit refs/heads/%s\nmark :%d\n", branch, g.mark)
	fmt.Fprintf(w, "author %s <%s> %d %s\n", a.name, a.email, authored, a.tz)
	fmt.Fprintf(w, "committer %s <%s> %d %s\n", c.name, c.email, g.when, c.tz)
	fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
	if from != 0 {
		fmt.Fprintf(w, "from :%d\n", from)
	}
	for _, m := range merges {
		fmt.Fprintf(w, "merge :%d\n", m)
	}
	for _, r := range renames {
		fmt.Fprintf(w, "R %s %s\n", r[0], r[1])
	}
	for _, path := range mods {
		var data []byte
		if lines, ok := overlay[path]; ok {
			data = joinLines(lines)
		} else if f := g.byPath[path]; f.binary != nil {
			data = f.binary
		} else {
			data = joinLines(f.lines)
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", path, len(data))
		w.Write(data)
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
	g.written++
	return g.mark
}

func joinLines(lines []string) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for _, l := range lines {
		b = append(b, l...)
		b = append(b, '\n')
	}
	return b
}

// tag tags the default branch's tip: v<major>.<minor>.<patch>, release
// candidates before a minor release; every other one annotated.
func (g *generator) tag() {
	v := &g.version
	name := fmt.Sprintf("v%d.%d.%d", v[0], v[1], v[2])
	if g.tagsDone%7 == 6 {
		name = fmt.Sprintf("v%d.%d.0-rc%d", v[0], v[1]+1, g.tagsDone%3)
	} else if v[2]++; v[2] == 10 {
		v[1], v[2] = v[1]+1, 0
		if v[1] == 20 {
			v[0], v[1] = v[0]+1, 0
		}
	}
	if g.tagsDone%2 == 0 {
		a := g.authors[0]
		msg := "Git " + name[1:] + "\n"
		fmt.Fprintf(g.w, "tag %s\nfrom :%d\ntagger %s <%s> %d %s\ndata %d\n%s\n", name, g.main, a.name, a.email, g.when, a.tz, len(msg), msg)
	} else {
		fmt.Fprintf(g.w, "reset refs/tags/%s\nfrom :%d\n\n", name, g.main)
	}
	g.tagsDone++
}

// fenwick is a binary indexed tree of weights: add and find by prefix sum
// in O(log n).
type fenwick struct{ t []float64 }

func newFenwick(n int) *fenwick { return &fenwick{t: make([]float64, n+1)} }

func (f *fenwick) add(i int, w float64) {
	for i++; i < len(f.t); i += i & -i {
		f.t[i] += w
	}
}

func (f *fenwick) total() float64 {
	s := 0.0
	for i := len(f.t) - 1; i > 0; i -= i & -i {
		s += f.t[i]
	}
	return s
}

// find returns the smallest index whose prefix sum passes u.
func (f *fenwick) find(u float64) int {
	pos := 0
	step := 1
	for step*2 < len(f.t) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next < len(f.t) && f.t[next] <= u {
			pos = next
			u -= f.t[next]
		}
	}
	return pos
}
