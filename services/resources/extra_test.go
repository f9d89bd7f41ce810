package resources_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/resources"
)

// noTools is a Caller that knows no tool.
type noTools struct{}

func (noTools) CallJSON(context.Context, models.Scope, string, json.RawMessage) (json.RawMessage, bool, error) {
	return nil, false, nil
}

// noProjects is a Store with nothing in it.
type noProjects struct{}

func (noProjects) MemberProjectsAfter(context.Context, int64, int64, int) ([]models.Project, error) {
	return nil, nil
}
func (noProjects) CompleteProjectPaths(context.Context, *models.User, string, int) ([]string, error) {
	return nil, nil
}
func (noProjects) CompleteIssueIIDs(context.Context, *models.User, int64, string, int) ([]int64, error) {
	return nil, nil
}
func (noProjects) CompleteMergeRequestIIDs(context.Context, int64, string, int) ([]int64, error) {
	return nil, nil
}
func (noProjects) FindProjectWithRoleByPath(context.Context, string, int64) (*models.Project, models.AccessLevel, error) {
	return nil, 0, models.ErrNotFound
}

const testSecret = "resources-test-secret-0123456789abcdef"

func newService(t *testing.T, extra resources.Extra) *resources.Service {
	t.Helper()
	s, err := resources.New(noTools{}, noProjects{}, resources.Options{BaseURL: "https://gitlab.example.com", Secret: []byte(testSecret), Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// extra is a small Extra: one resource, one template, one prompt that
// asks for input first, and a completion of it.
func extra() resources.Extra {
	return resources.Extra{
		Resources: []resources.Resource{{URI: "x://one", Name: "one"}},
		Templates: []resources.Template{{URITemplate: "x://t/{id}", Name: "t"}},
		Read: func(uri string) ([]resources.Contents, bool) {
			if uri != "x://one" {
				return nil, false
			}
			return []resources.Contents{{URI: uri, MimeType: "text/plain", Text: "one"}}, true
		},
		Prompts: []resources.ExtraPrompt{{
			Prompt: resources.Prompt{Name: "a_prompt", Arguments: []resources.PromptArgument{{Name: "who", Required: true}}},
			Get: func(args map[string]string) *resources.PromptResult {
				return &resources.PromptResult{Messages: []resources.PromptMessage{resources.UserText("hello " + args["who"])}}
			},
			Input: map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)},
		}},
		Complete: func(prompt, arg, value string) (resources.Completion, bool) {
			if prompt != "a_prompt" {
				return resources.Completion{}, false
			}
			return resources.Completion{Values: []string{arg + ":" + value}}, true
		},
	}
}

// Ensure a Service without Extra serves none of it, and one with it
// serves each part where GitLab's content is: resources before the
// projects on the first page, templates after GitLab's, reads and
// completions asked first, prompts among GitLab's in name order.
func TestExtra(t *testing.T) {
	ctx := context.Background()
	var sc models.Scope // no identity: no projects are read
	plain, with := newService(t, resources.Extra{}), newService(t, extra())

	gitlab := plain.Templates()
	if got := with.Templates(); len(got) != len(gitlab)+1 || got[len(got)-1].Name != "t" {
		t.Errorf("templates with Extra = %v, want GitLab's %d then t", got, len(gitlab))
	}
	if slices.ContainsFunc(gitlab, func(tm resources.Template) bool { return tm.Name == "t" }) {
		t.Errorf("templates without Extra hold Extra's: %v", gitlab)
	}

	for _, tt := range []struct {
		s    *resources.Service
		want []string
	}{{plain, nil}, {with, []string{"x://one"}}} {
		page, err := tt.s.List(ctx, sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range page.Resources {
			got = append(got, r.URI)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("resources/list = %v, want %v", got, tt.want)
		}
	}

	if _, err := plain.Read(ctx, sc, "x://one"); !resources.IsNotFound(err) {
		t.Errorf("read x://one without Extra: %v, want not found", err)
	}
	if c, err := with.Read(ctx, sc, "x://one"); err != nil || len(c) != 1 || c[0].Text != "one" {
		t.Errorf("read x://one = %+v, %v", c, err)
	}
	if _, err := with.Read(ctx, sc, "x://two"); !resources.IsNotFound(err) {
		t.Errorf("read x://two (not Extra's): %v, want not found", err)
	}

	names := func(s *resources.Service) []string {
		var out []string
		for _, p := range s.Prompts() {
			out = append(out, p.Name)
		}
		return out
	}
	if got := names(plain); slices.Contains(got, "a_prompt") {
		t.Errorf("prompts without Extra = %v", got)
	}
	got := names(with)
	if !slices.Contains(got, "a_prompt") || !slices.IsSorted(got) || len(got) != len(names(plain))+1 {
		t.Errorf("prompts with Extra = %v, want GitLab's and a_prompt in name order", got)
	}

	if _, err := plain.GetPrompt(ctx, sc, "a_prompt", map[string]string{"who": "x"}, nil); !resources.IsNotFound(err) {
		t.Errorf("a_prompt without Extra: %v, want not found", err)
	}
	if _, err := with.GetPrompt(ctx, sc, "a_prompt", nil, nil); !resources.IsInvalid(err) || !strings.Contains(err.Error(), `missing required argument "who"`) {
		t.Errorf("a_prompt without its argument: %v", err)
	}
	res, err := with.GetPrompt(ctx, sc, "a_prompt", map[string]string{"who": "x"}, nil)
	if err != nil || len(res.InputRequests) != 1 || res.Messages != nil {
		t.Errorf("a_prompt before its input: %+v, %v; want its input requests", res, err)
	}
	res, err = with.GetPrompt(ctx, sc, "a_prompt", map[string]string{"who": "x"}, map[string]json.RawMessage{"q": json.RawMessage(`{}`)})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.Text != "hello x" {
		t.Errorf("a_prompt with its input: %+v, %v", res, err)
	}

	ref := resources.Ref{Type: "ref/prompt", Name: "a_prompt"}
	if _, err := plain.Complete(ctx, sc, ref, "who", "a", nil); !resources.IsNotFound(err) {
		t.Errorf("complete a_prompt without Extra: %v, want not found", err)
	}
	if c, err := with.Complete(ctx, sc, ref, "who", "a", nil); err != nil || !slices.Equal(c.Values, []string{"who:a"}) {
		t.Errorf("complete a_prompt = %+v, %v", c, err)
	}
}

// Ensure an Extra prompt that cannot be built is refused when the
// Service is made, not when a client asks for it.
func TestExtra_promptWithoutGet(t *testing.T) {
	_, err := resources.New(noTools{}, noProjects{}, resources.Options{Secret: []byte(testSecret),
		Extra: resources.Extra{Prompts: []resources.ExtraPrompt{{Prompt: resources.Prompt{Name: "broken"}}}}})
	if err == nil || err.Error() != `resources: extra prompt "broken" has no Get` {
		t.Fatalf("New with a prompt without Get: %v", err)
	}
}
