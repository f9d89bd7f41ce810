// Package secrets is secret push protection for the write tools
// (doc/security.md, "Secret push protection"): the text a write would store
// — file contents of a commit, descriptions, notes, review comments, wiki
// pages — is scanned before anything is written, with gitleaks' maintained
// rule set (the one GitLab's secret detection derives from) and rules for
// GitLab's token formats it lacks. A finding names the rule and where
// (file and line, or argument), never the secret.
package secrets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Finding is one secret found: the rule that matched and where, never the
// secret itself.
type Finding struct {
	// Rule is the rule's id (gitleaks' ids, e.g. gitlab-pat, private-key,
	// aws-access-token, and this package's gitlab-* additions).
	Rule string
	// Where names the place: an argument path (`description`,
	// `actions[0].content`) with, for a file, its path and line.
	Where string
}

// String is "<rule> in <where>".
func (f Finding) String() string { return f.Rule + " in " + f.Where }

// gitlabPrefixes are GitLab's token prefixes (doc/security.md).
var gitlabPrefixes = []string{"glpat", "gloas", "gldt", "glrt", "glrtr", "glcbt", "glptt", "glft", "glimt",
	"glagent", "glsoat", "glffct"}

// extraRules are the rules gitleaks' default set lacks for GitLab's
// tokens: the runner token created through a registration token, and the
// routable formats with a version field (`<prefix><b64>.01.<len><crc>`,
// what GitLab and glmcp mint today) for every prefix.
func extraRules(instancePrefixes []string) string {
	var b strings.Builder
	b.WriteString(`
[[rules]]
id = "gitlab-runner-registration-token"
description = "GitLab runner authentication token created with a registration token (glrtr-)."
regex = '''glrtr-[0-9a-zA-Z_\-]{20}'''
entropy = 3
keywords = ["glrtr-"]

[[rules]]
id = "gitlab-routable-token"
description = "GitLab token in the routable format (with or without a version field)."
regex = '''\b(?:` + strings.Join(gitlabPrefixes, "|") + `)-[0-9a-zA-Z_\-]{20,300}\.(?:01\.)?[0-9a-z]{2}[0-9a-z]{7}\b'''
keywords = [` + quoted(gitlabPrefixes, "-") + `]
`)
	for i, p := range instancePrefixes {
		fmt.Fprintf(&b, `
[[rules]]
id = "gitlab-instance-token-%d"
description = "Personal access token with this instance's prefix."
regex = '''%s[0-9a-zA-Z_\-]{20,300}'''
entropy = 3
keywords = [%q]
`, i+1, regexp.QuoteMeta(p), strings.ToLower(p))
	}
	return b.String()
}

func quoted(ps []string, suffix string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q", p+suffix)
	}
	return strings.Join(q, ", ")
}

// Scanner scans texts for secrets. It is safe for concurrent use.
type Scanner struct {
	d *detect.Detector
}

var quietOnce sync.Once

// New returns a Scanner with gitleaks' default rules, this package's
// GitLab rules and a rule for each extra token prefix the instance mints
// (GLMCP_TOKEN_PREFIX and the instance prefix, when they are not glpat-).
func New(tokenPrefixes ...string) (*Scanner, error) {
	// gitleaks logs to stderr, at debug level with the secret: never.
	quietOnce.Do(func() { logging.Logger = zerolog.Nop() })
	var extra []string
	for _, p := range tokenPrefixes {
		if p != "" && p != "glpat-" {
			extra = append(extra, p)
		}
	}
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig + extraRules(extra))); err != nil {
		return nil, fmt.Errorf("secrets: read rules: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, fmt.Errorf("secrets: read rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("secrets: rules: %w", err)
	}
	d := detect.NewDetector(cfg)
	// A "gitleaks:allow" comment must not let an agent (or the text
	// steering it) wave a secret through.
	d.IgnoreGitleaksAllow = true
	return &Scanner{d: d}, nil
}

var shared sync.Map // prefixes joined → *Scanner

// Shared is New, built once per set of prefixes in a process: the rules
// take about 170 ms and a few MB to compile, and a Scanner is safe for
// concurrent use.
func Shared(tokenPrefixes ...string) (*Scanner, error) {
	key := strings.Join(tokenPrefixes, "\x00")
	if s, ok := shared.Load(key); ok {
		return s.(*Scanner), nil
	}
	s, err := New(tokenPrefixes...)
	if err != nil {
		return nil, err
	}
	actual, _ := shared.LoadOrStore(key, s)
	return actual.(*Scanner), nil
}

// Rules is the number of rules the scanner applies.
func (s *Scanner) Rules() int { return len(s.d.Config.Rules) }

// Text scans one text. file, when not "", is the repository path it is
// written to (gitleaks' path rules apply: an image is not scanned).
// Lines are reported 1-based.
func (s *Scanner) Text(text, file string) []Hit {
	if text == "" {
		return nil
	}
	found := s.d.Detect(detect.Fragment{Raw: text, FilePath: file})
	out := make([]Hit, 0, len(found))
	for _, f := range found {
		out = append(out, Hit{Rule: f.RuleID, Line: f.StartLine + 1})
	}
	// gitleaks reports in no fixed order: by line, then rule, each once.
	slices.SortFunc(out, func(a, b Hit) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	return slices.Compact(out)
}

// Hit is one rule matching in a text, at a line (1-based).
type Hit struct {
	Rule string
	Line int
}
