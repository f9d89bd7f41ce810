package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/bench/harness"
)

// gitBin is the git the benchmark builds with and compares against.
var gitBin = "/usr/bin/git"

// built describes a cached repository; it is written last, so a
// repository without it is incomplete.
type built struct {
	Params     params        `json:"params"`
	Head       string        `json:"head"`
	Commits    int           `json:"commits"`
	Generate   time.Duration `json:"generate_ns"` // generator and fast-import, together
	Repack     time.Duration `json:"repack_ns"`   // git repack -a -d -f
	PackBytes  int64         `json:"pack_bytes"`
	BuiltAt    time.Time     `json:"built_at"`
	GitVersion string        `json:"git_version"`
}

const builtFile = "glmcp-bench.json"

// key names params in the cache.
func (p params) key() string {
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// cachedRepository returns the bare repository of p under cacheDir,
// building it first when it is missing or incomplete.
func cachedRepository(ctx context.Context, cacheDir string, p params) (string, *built, error) {
	dir := filepath.Join(cacheDir, "bench-repo-"+p.key()+".git")
	if b, err := readBuilt(dir); err == nil {
		return dir, b, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", nil, err
	}
	_ = os.RemoveAll(dir) // incomplete
	tmp, err := os.MkdirTemp(cacheDir, "building-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo.git")
	b, err := buildRepository(ctx, repo, p)
	if err != nil {
		return "", nil, err
	}
	if err := os.Rename(repo, dir); err != nil {
		return "", nil, err
	}
	return dir, b, nil
}

func readBuilt(dir string) (*built, error) {
	raw, err := os.ReadFile(filepath.Join(dir, builtFile))
	if err != nil {
		return nil, err
	}
	var b built
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// gitEnv keeps the user's and the system's configuration out of every
// git the benchmark runs.
func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C")
}

// gitCmd is git with args on the repository dir.
func gitCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, gitBin, append([]string{"--git-dir=" + dir}, args...)...)
	cmd.Env = gitEnv()
	harness.SetParentDeath(cmd)
	return cmd
}

// gitOut runs git and returns its stdout.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := gitCmd(ctx, dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.String(), nil
}

// buildRepository makes the bare repository of p at dir: the generator's
// stream through git fast-import, the scratch branch deleted, then one
// pack as a clone receives it (git repack -a -d -f).
func buildRepository(ctx context.Context, dir string, p params) (*built, error) {
	init := exec.CommandContext(ctx, gitBin, "init", "--quiet", "--bare", "--initial-branch="+defaultBranch, dir)
	init.Env = gitEnv()
	if out, err := init.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %w\n%s", err, out)
	}
	began := time.Now()
	fi := gitCmd(ctx, dir, "fast-import", "--quiet", "--done")
	var errb bytes.Buffer
	fi.Stderr = &errb
	stdin, err := fi.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := fi.Start(); err != nil {
		return nil, err
	}
	n, genErr := generate(p, stdin)
	_ = stdin.Close()
	if err := fi.Wait(); err != nil {
		return nil, fmt.Errorf("git fast-import: %w\n%s", err, errb.Bytes())
	}
	if genErr != nil {
		return nil, genErr
	}
	b := &built{Params: p, Commits: n, Generate: time.Since(began)}
	if _, err := gitOut(ctx, dir, "update-ref", "-d", "refs/heads/"+scratchBranch); err != nil {
		return nil, err
	}
	began = time.Now()
	if _, err := gitOut(ctx, dir, "repack", "-a", "-d", "-f", "-q"); err != nil {
		return nil, err
	}
	b.Repack = time.Since(began)
	packs, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.pack"))
	for _, pk := range packs {
		if st, err := os.Stat(pk); err == nil {
			b.PackBytes += st.Size()
		}
	}
	head, err := gitOut(ctx, dir, "rev-parse", "refs/heads/"+defaultBranch)
	if err != nil {
		return nil, err
	}
	b.Head = strings.TrimSpace(head)
	v, _ := exec.Command(gitBin, "version").Output()
	b.GitVersion = strings.TrimSpace(string(v))
	b.BuiltAt = time.Now().UTC().Truncate(time.Second)
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, builtFile), raw, 0o644); err != nil {
		return nil, err
	}
	if n != p.Commits {
		return nil, errors.New("generator wrote " + fmt.Sprint(n) + " commits, want " + fmt.Sprint(p.Commits))
	}
	return b, nil
}
