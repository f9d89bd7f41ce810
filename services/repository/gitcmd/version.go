package gitcmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MinVersion is the oldest git glmcp runs: --end-of-options everywhere,
// fetch --atomic, commit-graph changed-path filters, repack --geometric
// and GIT_CONFIG_GLOBAL are all older than it, and it is Debian 12's.
var MinVersion = Version{2, 39, 0}

// Version is a git release, major.minor.patch.
type Version [3]int

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

var versionRE = regexp.MustCompile(`^git version (\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion reads the output of `git version` ("git version 2.39.5",
// "git version 2.45.1.windows.1").
func ParseVersion(out string) (Version, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(out))
	if m == nil {
		return Version{}, fmt.Errorf("unrecognised git version %q", strings.TrimSpace(out))
	}
	var v Version
	for i := range 3 {
		if m[i+1] != "" {
			v[i], _ = strconv.Atoi(m[i+1])
		}
	}
	return v, nil
}
