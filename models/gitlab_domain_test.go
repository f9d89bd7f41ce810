package models_test

import (
	"errors"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
)

func TestParseAccessLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    models.AccessLevel
		wantErr bool
	}{
		{"guest", models.Guest, false},
		{"Reporter", models.Reporter, false},
		{" developer ", models.Developer, false},
		{"MAINTAINER", models.Maintainer, false},
		{"owner", models.Owner, false},
		{"30", models.Developer, false},
		{"50", models.Owner, false},
		{"no_access", models.NoAccess, true},
		{"0", models.NoAccess, true},
		{"15", models.NoAccess, true},
		{"admin", models.NoAccess, true},
		{"", models.NoAccess, true},
	}
	for _, tt := range tests {
		got, err := models.ParseAccessLevel(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseAccessLevel(%q) = %v, %v; want %v, error %t", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("ParseAccessLevel(%q) error %v does not wrap ErrInvalidInput", tt.in, err)
		}
	}
	if got := models.Maintainer.String(); got != "maintainer" {
		t.Errorf("Maintainer.String() = %q", got)
	}
	if got := models.AccessLevel(35).String(); got != "35" {
		t.Errorf("AccessLevel(35).String() = %q", got)
	}
	if models.NoAccess.Valid() || !models.Guest.Valid() || models.AccessLevel(60).Valid() {
		t.Error("Valid() accepts NoAccess or 60, or refuses Guest")
	}
}

func TestParseVisibility(t *testing.T) {
	for in, want := range map[string]models.Visibility{"public": models.VisibilityPublic, " Internal": models.VisibilityInternal, "PRIVATE": models.VisibilityPrivate} {
		if got, err := models.ParseVisibility(in); got != want || err != nil {
			t.Errorf("ParseVisibility(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "secret", "10"} {
		if _, err := models.ParseVisibility(in); !errors.Is(err, models.ErrInvalidInput) {
			t.Errorf("ParseVisibility(%q) error = %v, want ErrInvalidInput", in, err)
		}
	}
}

func TestGitBlobID(t *testing.T) {
	// Values from `git hash-object`.
	tests := map[string]string{
		"":        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"hello\n": "ce013625030ba8dba906f756967f9e9ca394464a",
	}
	for content, want := range tests {
		if got := models.GitBlobID(content); got != want {
			t.Errorf("GitBlobID(%q) = %s, want %s", content, got, want)
		}
	}
}

func TestProjectWebURL(t *testing.T) {
	p := models.Project{PathWithNamespace: "gitlab-org/gitlab-mcp"}
	for _, base := range []string{"https://gitlab.example.com", "https://gitlab.example.com/"} {
		if got := p.WebURL(base); got != "https://gitlab.example.com/gitlab-org/gitlab-mcp" {
			t.Errorf("WebURL(%q) = %q", base, got)
		}
	}
}
