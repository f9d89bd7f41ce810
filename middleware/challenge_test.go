package middleware

import "testing"

func TestChallenge401(t *testing.T) {
	const md = "https://gitlab.example.com/.well-known/oauth-protected-resource/api/v4/mcp"
	tests := []struct {
		name, code, desc, md, want string
	}{
		{
			name: "no token presented",
			md:   md,
			want: `Bearer realm="GitLab", resource_metadata="` + md + `"`,
		},
		{
			name: "no token, description ignored",
			desc: "ignored", md: md,
			want: `Bearer realm="GitLab", resource_metadata="` + md + `"`,
		},
		{
			name: "invalid token",
			code: "invalid_token", desc: "token expired", md: md,
			want: `Bearer realm="GitLab", error="invalid_token", error_description="token expired", resource_metadata="` + md + `"`,
		},
		{
			name: "error without description",
			code: "invalid_token", md: md,
			want: `Bearer realm="GitLab", error="invalid_token", resource_metadata="` + md + `"`,
		},
		{
			name: "quotes and backslashes escaped",
			code: "invalid_token", desc: `say "hi" \ bye`, md: md,
			want: `Bearer realm="GitLab", error="invalid_token", error_description="say \"hi\" \\ bye", resource_metadata="` + md + `"`,
		},
		{
			name: "control characters and non-ASCII neutralised",
			code: "invalid_token", desc: "line1\r\nline2\tx\x7fé",
			want: `Bearer realm="GitLab", error="invalid_token", error_description="line1  line2 x ?"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := challenge401(tt.md, tt.code, tt.desc); got != tt.want {
				t.Fatalf("challenge401 =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestChallengeInsufficientScope(t *testing.T) {
	const md = "https://gitlab.example.com/.well-known/oauth-protected-resource/api/v4/orbit/mcp"
	tests := []struct {
		name, scope, desc, md, want string
	}{
		{
			name:  "with description",
			scope: "mcp_orbit", desc: "The token needs the mcp_orbit scope", md: md,
			want: `Bearer realm="GitLab", error="insufficient_scope", scope="mcp_orbit", error_description="The token needs the mcp_orbit scope", resource_metadata="` + md + `"`,
		},
		{
			name:  "several scopes, no description",
			scope: "mcp api", md: md,
			want: `Bearer realm="GitLab", error="insufficient_scope", scope="mcp api", resource_metadata="` + md + `"`,
		},
		{
			name:  "escaped",
			scope: `a"b`, desc: `c\d`,
			want: `Bearer realm="GitLab", error="insufficient_scope", scope="a\"b", error_description="c\\d"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := challengeInsufficientScope(tt.md, tt.scope, tt.desc); got != tt.want {
				t.Fatalf("challengeInsufficientScope =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
