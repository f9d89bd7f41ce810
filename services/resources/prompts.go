package resources

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
)

// promptPartMax bounds each embedded part of a prompt; promptLogTail is
// how much of each failed job's log explain_failed_pipeline shows, and
// promptMaxJobs how many failed jobs.
const (
	promptPartMax = 64 << 10
	promptLogTail = 8 << 10
	promptMaxJobs = 5
)

// promptDef is a prompt and how it is built.
type promptDef struct {
	Prompt
	get func(s *Service, ctx context.Context, sc models.Scope, args map[string]string) (*PromptResult, error)
	// input, when set, are input requests the prompt needs answered
	// before it is built (2026-07-28 input_required; Extra prompts only).
	input map[string]json.RawMessage
}

var projectArg = PromptArgument{Name: "project", Description: "The project's path (group/project) or numeric id.", Required: true}

var gitlabPrompts = []promptDef{
	{Prompt: Prompt{Name: "explain_failed_pipeline", Title: "Explain a failed pipeline",
		Description: "Explain why a pipeline failed, from its failed jobs and the end of their logs.",
		Arguments: []PromptArgument{projectArg,
			{Name: "pipeline_id", Description: "The pipeline's id.", Required: true}}},
		get: (*Service).explainFailedPipeline},
	{Prompt: Prompt{Name: "review_merge_request", Title: "Review a merge request",
		Description: "Review a merge request: its description, its diff and its open discussions.",
		Arguments: []PromptArgument{projectArg,
			{Name: "iid", Description: "The merge request's iid (the number after !).", Required: true}}},
		get: (*Service).reviewMergeRequest},
	{Prompt: Prompt{Name: "summarize_changes", Title: "Summarize changes between two refs",
		Description: "Summarize what changed in a project between two branches, tags or commits.",
		Arguments: []PromptArgument{projectArg,
			{Name: "from", Description: "The older ref (branch, tag or commit).", Required: true},
			{Name: "to", Description: "The newer ref (branch, tag or commit).", Required: true}}},
		get: (*Service).summarizeChanges},
	{Prompt: Prompt{Name: "triage_issue", Title: "Triage an issue",
		Description: "Triage an issue: suggest labels, priority, an assignee and next steps.",
		Arguments: []PromptArgument{projectArg,
			{Name: "iid", Description: "The issue's iid (the number after #).", Required: true}}},
		get: (*Service).triageIssue},
}

// Prompts lists the prompts, by name.
func (s *Service) Prompts() []Prompt {
	out := make([]Prompt, 0, len(gitlabPrompts)+len(s.extraPrompts))
	for _, p := range gitlabPrompts {
		out = append(out, p.Prompt)
	}
	for _, p := range s.extraPrompts {
		out = append(out, p.Prompt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Service) findPrompt(name string) (*promptDef, bool) {
	defs := gitlabPrompts
	if len(s.extraPrompts) > 0 {
		defs = append(slices.Clip(defs), s.extraPrompts...)
	}
	for i := range defs {
		if defs[i].Name == name {
			return &defs[i], true
		}
	}
	return nil, false
}

// GetPrompt builds a prompt. An unknown prompt is a *NotFoundError; a
// missing, unknown or malformed argument an *InvalidError; an object the
// caller may not read reads like a missing one (*NotFoundError naming the
// object).
//
// A prompt that needs input first answers an InputRequired result (its
// InputRequests) until the retry carries inputResponses for every request.
func (s *Service) GetPrompt(ctx context.Context, sc models.Scope, name string, args map[string]string, inputResponses map[string]json.RawMessage) (*PromptResult, error) {
	p, ok := s.findPrompt(name)
	if !ok {
		return nil, &NotFoundError{Kind: "Prompt", Name: name}
	}
	if err := checkPromptArgs(p.Prompt, args); err != nil {
		return nil, err
	}
	for k := range p.input {
		if _, answered := inputResponses[k]; !answered {
			return &PromptResult{InputRequests: p.input}, nil
		}
	}
	return p.get(s, ctx, sc, args)
}

func checkPromptArgs(p Prompt, args map[string]string) error {
	for k := range args {
		if !slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			return invalidf(fmt.Sprintf("Invalid arguments for prompt %s: unknown argument %s", p.Name, quote(k)))
		}
	}
	for _, a := range p.Arguments {
		v, ok := args[a.Name]
		if a.Required && (!ok || strings.TrimSpace(v) == "") {
			return invalidf(fmt.Sprintf("Invalid arguments for prompt %s: missing required argument %s", p.Name, quote(a.Name)))
		}
		if len(v) > 1024 || strings.ContainsRune(v, 0) {
			return invalidf(fmt.Sprintf("Invalid arguments for prompt %s: argument %s is not a valid value", p.Name, quote(a.Name)))
		}
	}
	return nil
}

// idArg parses a positive decimal id argument.
func idArg(prompt, name, v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(v), "!"), "#"), 10, 64)
	if err != nil || n <= 0 {
		return 0, invalidf(fmt.Sprintf("Invalid arguments for prompt %s: %s must be a positive integer", prompt, name))
	}
	return n, nil
}

// projectRef is the project argument as the tools take it: a numeric id
// or a path.
func projectRef(v string) any {
	v = strings.Trim(strings.TrimSpace(v), "/")
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return n
	}
	return v
}

func projectLabel(v string) string { return strings.Trim(strings.TrimSpace(v), "/") }

// embed runs a read tool and embeds its result as a resource, cut to
// promptPartMax.
func (s *Service) embed(ctx context.Context, sc models.Scope, uri, tool string, args map[string]any) (ContentBlock, error) {
	raw, err := s.callTool(ctx, sc, uri, tool, args)
	if err != nil {
		return ContentBlock{}, err
	}
	return ResourceBlock(Contents{URI: uri, MimeType: "application/json", Text: cutPart(string(raw))}), nil
}

func cutPart(s string) string {
	if len(s) <= promptPartMax {
		return s
	}
	return cut(s, promptPartMax) + "\n… (cut)"
}

// UserText is a user message of one text block.
func UserText(text string) PromptMessage {
	return PromptMessage{Role: "user", Content: textBlock(text)}
}

// UserBlock is a user message of one content block.
func UserBlock(b ContentBlock) PromptMessage { return PromptMessage{Role: "user", Content: b} }

func (s *Service) reviewMergeRequest(ctx context.Context, sc models.Scope, args map[string]string) (*PromptResult, error) {
	iid, err := idArg("review_merge_request", "iid", args["iid"])
	if err != nil {
		return nil, err
	}
	proj := projectLabel(args["project"])
	uri := mergeRequestURI(s.base, proj, iid)
	mr, err := s.embed(ctx, sc, uri, "get_merge_request", map[string]any{"project_id": projectRef(proj), "merge_request_iid": iid})
	if err != nil {
		return nil, err
	}
	t := target{kind: kindMergeRequest, project: proj, iid: iid}
	patch, err := s.mergeRequestPatch(ctx, sc, uri, t)
	if err != nil {
		return nil, err
	}
	msgs := []PromptMessage{
		UserText(fmt.Sprintf("Review merge request !%d of %s. Read its description, its diff and its open discussions below. "+
			"Point out bugs, risky changes, missing tests and unclear code, each with the file and line; say what is good too; "+
			"do not repeat points already raised in open discussions. End with a verdict: approve, or the changes needed.", iid, proj)),
		UserBlock(mr),
		UserBlock(ResourceBlock(Contents{URI: uri + ".diff", MimeType: "text/x-diff", Text: cutPart(patch)})),
	}
	if d, err := s.embed(ctx, sc, uri+"#discussions", "get_merge_request",
		map[string]any{"project_id": projectRef(proj), "merge_request_iid": iid, "include": []string{"discussions"}}); err == nil {
		msgs = append(msgs, UserBlock(d))
	}
	return &PromptResult{Description: fmt.Sprintf("Review of !%d in %s", iid, proj), Messages: msgs}, nil
}

func (s *Service) triageIssue(ctx context.Context, sc models.Scope, args map[string]string) (*PromptResult, error) {
	iid, err := idArg("triage_issue", "iid", args["iid"])
	if err != nil {
		return nil, err
	}
	proj := projectLabel(args["project"])
	uri := issueURI(s.base, proj, iid)
	issue, err := s.embed(ctx, sc, uri, "get_issue", map[string]any{"id": projectRef(proj), "issue_iid": iid})
	if err != nil {
		return nil, err
	}
	return &PromptResult{
		Description: fmt.Sprintf("Triage of #%d in %s", iid, proj),
		Messages: []PromptMessage{
			UserText(fmt.Sprintf("Triage issue #%d of %s (below). Say whether it is a bug, a feature request or a question; "+
				"suggest labels from the project's existing labels (search_labels), a priority and severity with reasons, "+
				"who could own it, whether it duplicates another issue (search), and the next step.", iid, proj)),
			UserBlock(issue),
		},
	}, nil
}

func (s *Service) explainFailedPipeline(ctx context.Context, sc models.Scope, args map[string]string) (*PromptResult, error) {
	id, err := idArg("explain_failed_pipeline", "pipeline_id", args["pipeline_id"])
	if err != nil {
		return nil, err
	}
	proj := projectLabel(args["project"])
	uri := projectURI(s.base, proj) + "/-/pipelines/" + strconv.FormatInt(id, 10)
	raw, err := s.callTool(ctx, sc, uri, "get_pipeline_jobs",
		map[string]any{"id": projectRef(proj), "pipeline_id": id, "per_page": 100})
	if err != nil {
		return nil, err
	}
	var jobs []struct {
		ID            int64  `json:"id"`
		Name          string `json:"name"`
		Stage         string `json:"stage"`
		Status        string `json:"status"`
		FailureReason string `json:"failure_reason"`
		AllowFailure  bool   `json:"allow_failure"`
	}
	if err := json.Unmarshal(unwrapItems(raw), &jobs); err != nil {
		return nil, err
	}
	msgs := []PromptMessage{UserText(fmt.Sprintf("Pipeline %d of %s failed. Below are its failed jobs and the end of each log. "+
		"Explain the root cause of each failure in plain words, tell flaky or infrastructure failures from real defects, "+
		"and propose the fix (file and change) or the next diagnostic step.", id, proj))}
	total := 0
	for _, j := range jobs {
		if j.Status == "failed" {
			total++
		}
	}
	failed := 0
	for _, j := range jobs {
		if j.Status != "failed" {
			continue
		}
		failed++
		if failed > promptMaxJobs {
			msgs = append(msgs, UserText(fmt.Sprintf("(%d more failed jobs not shown)", total-promptMaxJobs)))
			break
		}
		juri := jobURI(s.base, proj, j.ID)
		log, err := s.jobLog(ctx, sc, juri, proj, j.ID, promptLogTail)
		if err != nil && !IsNotFound(err) {
			return nil, err
		}
		head := fmt.Sprintf("Job %s (stage %s, id %d) failed", j.Name, j.Stage, j.ID)
		if j.FailureReason != "" {
			head += ": " + j.FailureReason
		}
		msgs = append(msgs, UserText(head), UserBlock(ResourceBlock(Contents{URI: juri, MimeType: "text/plain", Text: log})))
	}
	if failed == 0 {
		msgs = append(msgs, UserText("No job of this pipeline has failed."))
	}
	return &PromptResult{Description: fmt.Sprintf("Why pipeline %d of %s failed", id, proj), Messages: msgs}, nil
}

func (s *Service) summarizeChanges(ctx context.Context, sc models.Scope, args map[string]string) (*PromptResult, error) {
	proj := projectLabel(args["project"])
	from, to := strings.TrimSpace(args["from"]), strings.TrimSpace(args["to"])
	uri := projectURI(s.base, proj) + "/-/compare/" + escapePath(from) + "..." + escapePath(to)
	commits, err := s.embed(ctx, sc, uri, "list_commits",
		map[string]any{"project_id": projectRef(proj), "ref_name": from + ".." + to, "first": 100})
	if err != nil {
		return nil, err
	}
	return &PromptResult{
		Description: fmt.Sprintf("Changes in %s from %s to %s", proj, from, to),
		Messages: []PromptMessage{
			UserText(fmt.Sprintf("Summarize the changes in %s from %s to %s, from the commits below: group them by theme "+
				"(features, fixes, refactoring, dependencies), name breaking changes first, and keep it short enough for release notes.",
				proj, from, to)),
			UserBlock(commits),
		},
	}, nil
}
