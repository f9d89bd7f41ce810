package importexport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/repository/gitcmd"
)

// A wiki is a git repository in GitLab (project.wiki.bundle): one file a
// page, <slug>.<extension>, the extension naming the format. glmcp keeps
// wiki pages as rows; these convert between the two.
var wikiFormats = map[string]string{".md": "markdown", ".markdown": "markdown", ".rdoc": "rdoc",
	".adoc": "asciidoc", ".asciidoc": "asciidoc", ".org": "org"}

var wikiExtensions = map[string]string{"markdown": ".md", "rdoc": ".rdoc", "asciidoc": ".adoc", "org": ".org"}

// maxWikiPage bounds one page read from a wiki bundle; larger files are
// skipped.
const maxWikiPage = 8 << 20

// wikiTitle is the title GitLab shows for a page file: its name without
// the extension, dashes as spaces.
func wikiTitle(slug string) string { return strings.ReplaceAll(path.Base(slug), "-", " ") }

// readWiki reads the pages of the wiki repository gitDir at its HEAD: the
// files of a wiki format, their times those of the HEAD commit. Other
// files (uploads), files too large and files that are not UTF-8 are
// counted in skipped.
func readWiki(ctx context.Context, git *gitcmd.Runner, gitDir string) (pages []models.WikiPage, skipped int, err error) {
	out, err := git.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "show", Flags: []string{"-s", "--format=%cI", "HEAD"}, NoEndOfOptions: true})
	if err != nil {
		return nil, 0, nil // no commit: an empty wiki
	}
	when, err := time.Parse(time.RFC3339, strings.TrimSpace(string(out)))
	if err != nil {
		return nil, 0, fmt.Errorf("read the wiki's HEAD: %w", err)
	}
	when = when.UTC()
	out, err = git.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "ls-tree", Flags: []string{"-r", "-z", "-l", "--full-tree", "HEAD"}, NoEndOfOptions: true})
	if err != nil {
		return nil, 0, fmt.Errorf("list the wiki: %w", err)
	}
	type file struct{ sha, slug, format string }
	var files []file
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, name, ok := strings.Cut(string(rec), "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type sha size
		if len(f) != 4 || f[1] != "blob" {
			skipped++
			continue
		}
		ext := strings.ToLower(path.Ext(name))
		format, ok := wikiFormats[ext]
		size, _ := strconv.ParseInt(f[3], 10, 64)
		if !ok || size > maxWikiPage {
			skipped++
			continue
		}
		files = append(files, file{sha: f[2], slug: strings.TrimSuffix(name, path.Ext(name)), format: format})
	}
	if len(files) == 0 {
		return nil, skipped, nil
	}
	var in bytes.Buffer
	for _, f := range files {
		in.WriteString(f.sha + "\n")
	}
	out, err = git.Output(ctx, gitcmd.Cmd{Dir: gitDir, Name: "cat-file", Flags: []string{"--batch"}, Stdin: &in})
	if err != nil {
		return nil, 0, fmt.Errorf("read the wiki's pages: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	seen := map[string]bool{}
	for _, f := range files {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, 0, fmt.Errorf("read the wiki's pages: %w", err)
		}
		h := strings.Fields(header)
		if len(h) != 3 {
			return nil, 0, fmt.Errorf("read the wiki's pages: %q", header)
		}
		size, _ := strconv.Atoi(h[2])
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, 0, fmt.Errorf("read the wiki's pages: %w", err)
		}
		content := string(body[:size])
		key := strings.ToLower(f.slug)
		if !utf8.ValidString(content) || seen[key] {
			skipped++
			continue
		}
		seen[key] = true
		title, content := frontMatterTitle(content)
		if title == "" {
			title = wikiTitle(f.slug)
		}
		pages = append(pages, models.WikiPage{Slug: f.slug, Title: title, Format: f.format, Content: content,
			CreatedAt: when, UpdatedAt: when})
	}
	return pages, skipped, nil
}

// frontMatterTitle takes a leading front matter holding only a title off
// content (GitLab reads a wiki page's title there).
func frontMatterTitle(content string) (string, string) {
	rest, ok := strings.CutPrefix(content, "---\n")
	if !ok {
		return "", content
	}
	line, rest, ok := strings.Cut(rest, "\n")
	if !ok {
		return "", content
	}
	title, ok := strings.CutPrefix(line, "title: ")
	if !ok {
		return "", content
	}
	rest, ok = strings.CutPrefix(rest, "---\n")
	if !ok {
		return "", content
	}
	if t, err := strconv.Unquote(title); err == nil {
		title = t
	}
	return title, rest
}

// writeWikiBundle writes pages as a wiki repository's bundle to file: one
// commit on main holding every page as <slug>.<extension>, a page whose
// title is not its file's name given a front matter title. False when
// there is no page.
func writeWikiBundle(ctx context.Context, git *gitcmd.Runner, pages []models.WikiPage, tmp, file string) (bool, error) {
	if len(pages) == 0 {
		return false, nil
	}
	repo, err := os.MkdirTemp(tmp, "wiki-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(repo)
	if err := git.Run(ctx, gitcmd.Cmd{Name: "init", Flags: []string{"--bare", "--quiet", "--initial-branch=main"}, Args: []string{repo}}); err != nil {
		return false, fmt.Errorf("export the wiki: %w", err)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Slug < pages[j].Slug })
	var when time.Time
	for _, p := range pages {
		if p.UpdatedAt.After(when) {
			when = p.UpdatedAt
		}
	}
	var s bytes.Buffer
	msg := "Wiki exported by glmcp"
	fmt.Fprintf(&s, "commit refs/heads/main\ncommitter glmcp <glmcp@localhost> %d +0000\ndata %d\n%s\n", when.Unix(), len(msg), msg)
	for _, p := range pages {
		ext, ok := wikiExtensions[p.Format]
		if !ok {
			ext = ".md"
		}
		content := p.Content
		if p.Title != wikiTitle(p.Slug) {
			content = "---\ntitle: " + strconv.Quote(p.Title) + "\n---\n" + content
		}
		fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", fastImportPath(p.Slug+ext), len(content), content)
	}
	s.WriteString("done\n")
	if err := git.Run(ctx, gitcmd.Cmd{Dir: repo, Name: "fast-import", Flags: []string{"--quiet", "--done"}, Stdin: &s}); err != nil {
		return false, fmt.Errorf("export the wiki: %w", err)
	}
	if err := git.Run(ctx, gitcmd.Cmd{Dir: repo, Name: "bundle", Flags: []string{"create", "--quiet", file, "--all"}}); err != nil {
		return false, fmt.Errorf("export the wiki: git bundle: %w", err)
	}
	return true, nil
}

// fastImportPath quotes a path for git fast-import when it needs it.
func fastImportPath(p string) string {
	if strings.ContainsAny(p, "\n") || strings.HasPrefix(p, "\"") {
		return strconv.Quote(p)
	}
	return p
}
