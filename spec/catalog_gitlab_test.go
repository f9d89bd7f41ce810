package spec

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"gitlab.com/glmcp/glmcp/services/tools/gitlab"
)

// GitLab 19.5's tool catalog, tool by tool, as both groups list it: which
// tools each toolsets header lists, and each listed tool's annotations and
// parameters (names, types, required, enums). The table is doc/tools.md's
// "GitLab 19.5's catalog, tool by tool"; TestCatalog_gitlabTable checks that
// the doc has a row per tool naming the same GitLab source.

// gitlabTool is one tool of GitLab 19.5's catalog.
type gitlabTool struct {
	name, toolset string
	// ee: an EE tool in GitLab (served on the EE group only).
	ee bool
	// GitLab's annotations.
	readOnly, destructive bool
	// here is how glmcp serves it: "listed" (as GitLab lists it);
	// "unlisted" (GitLab's unlisted: true: callable, never listed);
	// "unavailable" (GitLab lists it only where the feature exists, and
	// glmcp has none: never listed, a call answers isError); "missing"
	// (not built).
	here string
	// src is the GitLab file the row is taken from.
	src string
	// params is a listed tool's inputSchema: its properties in byte
	// order, "name[!]:type[|type][(enum,…)]", ! marking a required one.
	params string
}

var gitlabCatalog = []gitlabTool{
	{"get_mcp_server_version", "meta", false, true, false, "listed", "app/services/mcp/tools/get_server_version_service.rb",
		""},
	{"get_project", "core", false, true, false, "listed", "app/services/mcp/tools/projects/get_project_tool.rb",
		"project_id:string|integer url:string"},
	{"list_projects", "core", false, true, false, "listed", "app/services/mcp/tools/projects/list_projects_tool.rb",
		"after:string archived:string(only,include,exclude) first:integer group_id:string|integer min_access_level:string(guest,planner,reporter,developer,maintainer,owner) search:string visibility:string(private,internal,public)"},
	{"list_groups", "core", false, true, false, "listed", "app/services/mcp/tools/groups/list_groups_tool.rb",
		"after:string first:integer group_id:string|integer include_subgroups:boolean search:string visibility:string(private,internal,public)"},
	{"list_project_members", "core", false, true, false, "listed", "app/services/mcp/tools/projects/list_project_members_tool.rb",
		"after:string first:integer include_inherited:boolean project_id!:string|integer query:string"},
	{"get_user", "core", false, true, false, "listed", "app/services/mcp/tools/users/get_user_tool.rb",
		"id:integer me:boolean username:string"},
	{"search", "core", false, true, false, "listed", "app/services/mcp/tools/search/search_service.rb",
		"confidential:boolean fields:array group_id:string|integer order_by:string(created_at) page:integer per_page:integer project_id:string|integer scope!:string(projects,groups,issues,work_items,merge_requests,milestones,notes,blobs,wiki_blobs,commits,users,snippet_titles) search!:string sort:string(asc,desc) state:string(opened,closed,merged,locked,all)"},
	{"search_labels", "core", false, true, false, "listed", "app/services/mcp/tools/labels/search_tool.rb",
		"full_path!:string is_project!:boolean search:"},
	{"save_note", "core", false, false, false, "listed", "app/services/mcp/tools/notes/save_note_tool.rb",
		"body!:string discussion_id:string group_id:string|integer internal:boolean merge_request_iid:integer project_id:string|integer url:string work_item_iid:integer"},
	{"semantic_search", "core", true, true, false, "listed", "ee/lib/api/search/semantic_code_search.rb",
		"directory_path:string knn:integer limit:integer project_id!:string|integer q!:string scope!:string(code)"},
	{"list_merge_requests", "merge_requests", false, true, false, "listed", "app/services/mcp/tools/merge_requests/list_merge_requests_tool.rb",
		"after:string assignee_username:string author_username:string first:integer group_id:string|integer labels:string milestone:string project_id:string|integer reviewer_username:string scope:string(created_by_me,assigned_to_me,review_requested) search:string state:string(opened,closed,merged,locked,all) url:string"},
	{"get_merge_request", "merge_requests", false, true, false, "listed", "app/services/mcp/tools/merge_requests/get_merge_request_tool.rb",
		"commits_after:string commits_first:integer detail:string(none,stats,full_patch) diffs_after:string diffs_first:integer discussions_after:string discussions_first:integer include:array merge_request_iid:integer notes_after:string notes_before:string notes_first:integer notes_last:integer pipelines_after:string pipelines_first:integer project_id:string|integer url:string"},
	{"get_merge_request_notes", "merge_requests", false, true, false, "listed", "app/services/mcp/tools/merge_requests/get_merge_request_notes_tool.rb",
		"after:string before:string first:integer last:integer merge_request_iid:integer project_id:string|integer url:string"},
	{"get_merge_request_commits", "merge_requests", false, true, false, "listed", "lib/api/merge_requests.rb",
		"id!:string|integer merge_request_iid!:integer page:integer per_page:integer"},
	{"get_merge_request_diffs", "merge_requests", false, true, false, "listed", "lib/api/merge_requests.rb",
		"id!:string|integer merge_request_iid!:integer page:integer per_page:integer"},
	{"get_merge_request_pipelines", "merge_requests", false, true, false, "listed", "lib/api/merge_requests.rb",
		"id!:string|integer merge_request_iid!:integer"},
	{"get_merge_request_conflicts", "merge_requests", false, true, false, "listed", "app/services/mcp/tools/merge_requests/get_merge_request_conflicts_service.rb",
		"merge_request_iid!:integer project_id!:string|integer"},
	{"save_merge_request", "merge_requests", false, false, false, "listed", "app/services/mcp/tools/merge_requests/save_merge_request_service.rb",
		"add_labels:array allow_collaboration:boolean assignee_ids:array assignees:array description:string discussion_locked:boolean labels:array merge_request_iid:integer milestone:string milestone_id:integer project_id!:string|integer remove_labels:array remove_source_branch:boolean reviewer_ids:array reviewers:array source_branch:string squash:boolean state_event:string(close,reopen) target_branch:string target_project_id:integer title:string"},
	{"save_merge_request_review", "merge_requests", false, false, false, "listed", "app/services/mcp/tools/merge_requests/save_merge_request_review_tool.rb",
		"body:string comments:array discussion_id:string internal:boolean merge_request_iid:integer method!:string(approve,create_diff_note,create_note,post_duo_review,reply_discussion,resolve_discussion,submit_review,unapprove) new_line:integer new_path:string old_line:integer old_path:string project_id:string|integer resolved:boolean sha:string summary:string summary_internal:boolean url:string verdict:string"},
	{"accept_merge_request", "merge_requests", false, false, true, "listed", "app/services/mcp/tools/merge_requests/accept_merge_request_tool.rb",
		"commit_message:string merge_request_iid:integer project_id:string|integer sha!:string should_remove_source_branch:boolean squash:boolean squash_commit_message:string strategy:string(merge_when_checks_pass,merge_when_pipeline_succeeds) url:string"},
	{"get_work_item", "work_items", false, true, false, "listed", "app/services/mcp/tools/work_items/get_work_item_service.rb",
		"discussions_after:string discussions_filter:string(all_notes,only_comments,only_activity) discussions_first:integer group_id:string|integer include:array mr_page_size:integer mr_pagination_cursor:string notes_after:string notes_before:string notes_first:integer notes_last:integer project_id:string|integer related_merge_requests_after:string related_merge_requests_first:integer url:string work_item_iid:integer"},
	{"list_work_items", "work_items", false, true, false, "listed", "app/services/mcp/tools/work_items/list_work_items_service.rb",
		"after:string assignee_usernames:array author_username:string created_after:string created_before:string due_after:string due_before:string first:integer group_id:string|integer label_name:array milestone_title:array milestone_wildcard_id:string(NONE,ANY,STARTED,UPCOMING) project_id:string|integer search:string sort:string(CREATED_DESC,CREATED_ASC,UPDATED_DESC,UPDATED_ASC,TITLE_ASC,TITLE_DESC) state:string(opened,closed,all) types:array updated_after:string updated_before:string url:string"},
	{"save_work_item", "work_items", false, false, false, "listed", "app/services/mcp/tools/work_items/save_work_item_service.rb",
		"add_label_ids:array add_labels:array assignee_ids:array confidential:boolean description:string due_date:string group_id:string|integer label_ids:array labels:array milestone:string milestone_id:string parent_id:string project_id:string|integer remove_label_ids:array remove_labels:array start_date:string state:string(opened,closed) title:string todo_action:string(add,mark_as_done) todo_id:string type_name:string url:string work_item_iid:integer"},
	{"link_work_items", "work_items", false, false, false, "listed", "app/services/mcp/tools/work_items/link_work_items_service.rb",
		"group_id:string|integer link_type:string(relates_to,blocks,blocked_by) project_id:string|integer url:string work_item_iid:integer work_items_ids!:array"},
	{"get_work_item_types", "work_items", false, true, false, "listed", "app/services/mcp/tools/work_items/get_work_item_types_service.rb",
		"group_id:string|integer project_id:string|integer url:string"},
	{"get_saved_view_work_items", "work_items", false, true, false, "unavailable", "app/services/mcp/tools/work_items/get_saved_view_work_items_service.rb",
		""},
	{"get_repository_file", "repository", false, true, false, "listed", "app/services/mcp/tools/repositories/get_repository_file_service.rb",
		"file_path:string limit:integer offset:integer project_id:string ref:string url:string"},
	{"list_repository_tree", "repository", false, true, false, "listed", "app/services/mcp/tools/repositories/list_repository_tree_tool.rb",
		"after:string path:string project_id:string recursive:boolean ref:string url:string"},
	{"list_commits", "repository", false, true, false, "listed", "app/services/mcp/tools/commits/list_commits_tool.rb",
		"after:string author:string first:integer first_parent:boolean order:string(topo,date) path:string project_id:string ref_name:string since:string until:string url:string with_stats:boolean"},
	{"get_commit", "repository", false, true, false, "listed", "app/services/mcp/tools/commits/get_commit_tool.rb",
		"commit_sha:string diff_detail:string(stats,full_patch) include:array notes_after:string notes_first:integer project_id:string url:string"},
	{"add_commit", "repository", false, false, true, "listed", "app/services/mcp/tools/repositories/add_commit_tool.rb",
		"actions!:array branch!:string commit_message!:string project_id:string start_branch:string start_project:string start_sha:string url:string"},
	{"add_branch", "repository", false, false, false, "listed", "app/services/mcp/tools/repositories/branches/add_branch_tool.rb",
		"branch!:string project_id:string ref!:string url:string"},
	{"list_branches", "repository", false, true, false, "listed", "lib/api/branches.rb",
		"id!:string page:integer per_page:integer search:string"},
	{"fork_repository", "repository", false, false, false, "listed", "lib/api/projects.rb",
		"branches:string description:string id!:string|integer name:string namespace_id:integer namespace_path:string path:string visibility:string(private,internal,public)"},
	{"list_tags", "repository", false, true, false, "listed", "app/services/mcp/tools/repositories/tags/list_tags_service.rb",
		"after:string first:integer project_id:string search:string url:string"},
	{"list_releases", "repository", false, true, false, "listed", "app/services/mcp/tools/releases/list_releases_service.rb",
		"page:integer per_page:integer project_id:string state:string(released,upcoming,all) url:string"},
	{"list_pipelines", "ci", false, true, false, "listed", "lib/api/ci/pipelines.rb",
		"created_after:string created_before:string id!:string|integer order_by:string(id,status,ref,updated_at,user_id) page:integer per_page:integer ref:string sort:string(asc,desc) source:string(unknown,push,web,trigger,schedule,api,external,pipeline,chat,webide,merge_request_event,external_pull_request_event,parent_pipeline,ondemand_dast_scan,ondemand_dast_validation,security_orchestration_policy,container_registry_push,duo_workflow,pipeline_execution_policy_schedule) status:string(created,waiting_for_resource,preparing,waiting_for_callback,pending,running,success,failed,canceling,canceled,skipped,manual,scheduled)"},
	{"get_pipeline", "ci", false, true, false, "listed", "app/services/mcp/tools/pipelines/get_pipeline_tool.rb",
		"after:string first:integer id!:string|integer include:array job_status:string(created,waiting_for_resource,preparing,waiting_for_callback,pending,running,success,failed,canceling,canceled,skipped,manual,scheduled) pipeline_id!:integer"},
	{"save_pipeline", "ci", false, false, true, "listed", "app/services/mcp/tools/pipelines/save_pipeline_tool.rb",
		"action:string(retry,cancel,update) inputs:object name:string pipeline_id:integer project_id:string|integer ref:string url:string variables:array"},
	{"manage_pipeline", "ci", false, false, true, "listed", "app/services/mcp/tools/pipelines/pipeline_service.rb",
		"id!:string|integer name:string pipeline_id!:integer"},
	{"get_pipeline_jobs", "ci", false, true, false, "listed", "lib/api/ci/jobs.rb",
		"id!:string|integer page:integer per_page:integer pipeline_id!:integer"},
	{"get_job", "ci", false, true, false, "listed", "app/services/mcp/tools/jobs/get_job_service.rb",
		"byte_limit:integer byte_offset:integer id!:string|integer include:array job_id!:integer"},
	{"get_artifact_file", "ci", false, true, false, "listed", "app/services/mcp/tools/jobs/get_artifact_file_service.rb",
		"artifact_path!:string byte_limit:integer byte_offset:integer job_id:integer project_id:string|integer url:string"},
	{"list_wiki_pages", "wikis", false, true, false, "listed", "app/services/mcp/tools/wikis/list_wiki_pages_tool.rb",
		"after:string first:integer group_id:string|integer project_id:string|integer"},
	{"list_vulnerabilities", "code_security", true, true, false, "listed", "list_tools_spec.rb (EE)",
		"after:string first:integer project_full_path!:string report_type:array severity:array state:array"},
	{"get_vulnerability", "code_security", true, true, false, "listed", "list_tools_spec.rb (EE)",
		"vulnerability_id!:string"},
	{"save_vulnerability", "code_security", true, false, false, "listed", "list_tools_spec.rb (EE)",
		"action!:string(dismiss,confirm,revert_to_detected,update_severity,create_issue) comment:string dismissal_reason:string(ACCEPTABLE_RISK,FALSE_POSITIVE,MITIGATING_CONTROL,USED_IN_TESTS,NOT_APPLICABLE) project_full_path:string severity:string(INFO,UNKNOWN,LOW,MEDIUM,HIGH,CRITICAL) vulnerability_id!:string"},
	{"attach_scan_profile", "code_security", true, false, false, "listed", "ee/app/services/mcp/tools/security/attach_scan_profile_service.rb",
		"group_ids:array project_ids:array security_scan_profile_id!:string"},
	{"start_duo_session", "duo_agent_platform", true, false, true, "unavailable", "ee/app/services/mcp/tools/duo_workflows/start_duo_session_service.rb",
		""},
	{"send_duo_session_input", "duo_agent_platform", true, false, false, "unavailable", "list_tools_spec.rb (EE)",
		""},
	{"get_duo_session", "duo_agent_platform", true, true, false, "unavailable", "list_tools_spec.rb (EE)",
		""},
	{"list_duo_sessions", "duo_agent_platform", true, true, false, "unavailable", "list_tools_spec.rb (EE)",
		""},
	{"list_duo_agents_and_flows", "duo_agent_platform", true, true, false, "unavailable", "list_tools_spec.rb (EE)",
		""},
	{"get_issue", "work_items", false, true, false, "unlisted", "lib/api/issues.rb",
		""},
	{"create_issue", "work_items", false, false, false, "unlisted", "lib/api/issues.rb",
		""},
	{"get_workitem_notes", "work_items", false, true, false, "unlisted", "app/services/mcp/tools/work_items/get_work_item_notes_service.rb",
		""},
}

// gitlabListed returns, in byte order, the tools listed on a group of
// edition ee under the toolsets in sets ("all" for every one).
func gitlabListed(ee bool, sets ...string) []string {
	var out []string
	for _, r := range gitlabCatalog {
		if r.here != "listed" || (r.ee && !ee) {
			continue
		}
		if r.toolset == "meta" || slices.Contains(sets, "all") || slices.Contains(sets, r.toolset) {
			out = append(out, r.name)
		}
	}
	sort.Strings(out)
	return out
}

// gitlabDefaultToolsets are GitLab 19.5's Toolsets::DEFAULT.
var gitlabDefaultToolsets = []string{"core", "merge_requests", "work_items", "repository", "ci", "duo_agent_platform"}

// schemaSignature renders an inputSchema as gitlabTool.params does.
func schemaSignature(schema any) string {
	m, _ := schema.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	var required []string
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			required = append(required, fmt.Sprint(x))
		}
	}
	var out []string
	for name, p := range props {
		pm, _ := p.(map[string]any)
		var ty string
		switch v := pm["type"].(type) {
		case string:
			ty = v
		case []any:
			parts := make([]string, len(v))
			for i, x := range v {
				parts[i] = fmt.Sprint(x)
			}
			ty = strings.Join(parts, "|")
		}
		if e, ok := pm["enum"].([]any); ok {
			parts := make([]string, len(e))
			for i, x := range e {
				parts[i] = fmt.Sprint(x)
			}
			ty += "(" + strings.Join(parts, ",") + ")"
		}
		req := ""
		if slices.Contains(required, name) {
			req = "!"
		}
		out = append(out, name+req+":"+ty)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestCatalog_gitlabListings: on each group, in both eras, the listing
// without a toolsets header is GitLab's default toolsets plus meta; "all"
// adds the opt-in wikis and code_security; each toolset alone lists its
// tools and meta; a blank header is no header; the tools header lists
// exactly the tools it names, and with toolsets the union. Tools GitLab
// marks unlisted, and those glmcp cannot offer, are never listed.
func TestCatalog_gitlabListings(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		ee := g.Name == "EE"
		rows := []struct {
			name string
			hdr  http.Header
			want []string
		}{
			{"no header", nil, gitlabListed(ee, gitlabDefaultToolsets...)},
			{"blank toolsets header", catalogHeaders(hdrToolsets, " , "), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"blank tools header", catalogHeaders(hdrTools, ","), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"the default toolsets named", catalogHeaders(hdrToolsets, strings.Join(gitlabDefaultToolsets, ",")), gitlabListed(ee, gitlabDefaultToolsets...)},
			{"all", catalogHeaders(hdrToolsets, "all"), gitlabListed(ee, "all")},
			{"all beside a toolset", catalogHeaders(hdrToolsets, "wikis,All"), gitlabListed(ee, "all")},
			{"the opt-in toolsets", catalogHeaders(hdrToolsets, "wikis,code_security"), gitlabListed(ee, "wikis", "code_security")},
			{"two toolsets", catalogHeaders(hdrToolsets, "ci,merge_requests"), gitlabListed(ee, "ci", "merge_requests")},
			{"toolsets and tools: union", catalogHeaders(hdrToolsets, "ci", hdrTools, "get_work_item,list_wiki_pages"),
				catalogUnion(gitlabListed(ee, "ci"), []string{"get_work_item", "list_wiki_pages"})},
			{"tools alone: exactly those, no meta", catalogHeaders(hdrTools, "list_branches,fork_repository"), []string{"fork_repository", "list_branches"}},
			{"tools: unlisted and unavailable tools stay unlisted", catalogHeaders(hdrTools, "get_issue,start_duo_session,get_saved_view_work_items,search"), []string{"search"}},
		}
		for _, ts := range []string{"meta", "core", "merge_requests", "work_items", "repository", "ci", "duo_agent_platform", "wikis", "code_security"} {
			rows = append(rows, struct {
				name string
				hdr  http.Header
				want []string
			}{"toolset " + ts, catalogHeaders(hdrToolsets, ts), gitlabListed(ee, ts)})
		}
		for _, row := range rows {
			for _, era := range eras {
				if got := toolsNames(h.toolsList(t, g, era, "alice", row.hdr)); !slices.Equal(got, row.want) {
					t.Errorf("%s %s %s:\n got  %v\n want %v", g.Name, era, row.name, got, row.want)
				}
			}
		}
	}
}

// TestCatalog_gitlabSchemas: every tool the EE group lists with "all" has
// GitLab's toolset and annotations and the parameters of the table, name by
// name (types, required, enums); the CE group lists the same definitions.
func TestCatalog_gitlabSchemas(t *testing.T) {
	h := startServer(t, withEE())
	byName := map[string]gitlabTool{}
	for _, r := range gitlabCatalog {
		if _, dup := byName[r.name]; dup {
			t.Fatalf("%s twice in the table", r.name)
		}
		byName[r.name] = r
	}
	for _, g := range h.groups() {
		for _, era := range eras {
			for _, tool := range h.toolsList(t, g, era, "alice", catalogHeaders(hdrToolsets, "all")) {
				name := tool["name"].(string)
				r, ok := byName[name]
				if !ok || r.here != "listed" {
					t.Errorf("%s %s: %s is listed, but GitLab's table has it %q", g.Name, era, name, r.here)
					continue
				}
				if got := schemaSignature(tool["inputSchema"]); got != r.params {
					t.Errorf("%s %s %s parameters:\n got  %s\n want %s", g.Name, era, name, got, r.params)
				}
				if toolsDig(tool, "inputSchema", "type") != "object" || toolsDig(tool, "inputSchema", "additionalProperties") != false {
					t.Errorf("%s: inputSchema %v is not a closed object", name, tool["inputSchema"])
				}
				if got := toolsDig(tool, "annotations", "toolset"); got != r.toolset {
					t.Errorf("%s: toolset %v, want %s", name, got, r.toolset)
				}
				if got := toolsDig(tool, "annotations", "readOnlyHint"); got != r.readOnly {
					t.Errorf("%s: readOnlyHint %v, want %v", name, got, r.readOnly)
				}
				if got, _ := toolsDig(tool, "annotations", "destructiveHint").(bool); got != r.destructive {
					t.Errorf("%s: destructiveHint %v, want %v", name, got, r.destructive)
				}
			}
		}
	}
}

// TestCatalog_gitlabUnlisted: GitLab's unlisted tools answer by name on
// both groups; the tools glmcp cannot offer answer isError with GitLab's
// "not available" wording and write nothing.
func TestCatalog_gitlabUnlisted(t *testing.T) {
	h := startServer(t, withEE())
	args := map[string]map[string]any{
		"get_issue":                 {"id": "gitlab-org/gitlab-mcp", "issue_iid": 1},
		"get_workitem_notes":        {"project_id": "gitlab-org/gitlab-mcp", "work_item_iid": 1},
		"start_duo_session":         {"project_id": "gitlab-org/gitlab-mcp", "ai_catalog_item_consumer_id": 1, "goal": "Fix the flaky spec"},
		"send_duo_session_input":    {"workflow_id": 1, "human_approval": true},
		"get_duo_session":           {"workflow_id": 1},
		"list_duo_sessions":         {},
		"list_duo_agents_and_flows": {"project_id": "gitlab-org/gitlab-mcp"},
	}
	before := toolsState(t, h)
	for _, g := range h.groups() {
		for _, r := range gitlabCatalog {
			a, ok := args[r.name]
			if !ok {
				continue
			}
			switch r.here {
			case "unlisted":
				toolsSucceeded(t, toolsResult(t, g, modern, h.toolsCall(t, g, modern, "alice", r.name, a)))
			case "unavailable":
				want := "GitLab Duo Agent Platform is not available for this namespace: this instance has no GitLab Duo " +
					"Agent Platform, so " + r.name + " cannot run."
				if text := h.toolsFail(t, g, "alice", r.name, a); text != want {
					t.Errorf("%s %s: %q\nwant %q", g.Name, r.name, text, want)
				}
			default:
				t.Fatalf("%s is %s", r.name, r.here)
			}
		}
	}
	toolsExpectState(t, h, before)
	// start_duo_session: GitLab's schema and annotations, though unlisted.
	for _, d := range gitlab.Tools(gitlab.Deps{}) {
		if d.Name != "start_duo_session" {
			continue
		}
		if a := d.Annotations; a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
			t.Errorf("start_duo_session annotations %+v, want GitLab's readOnlyHint false, destructiveHint true", a)
		}
		var schema any
		if err := json.Unmarshal(d.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if got, want := schemaSignature(schema), "ai_catalog_item_consumer_id!:integer goal!:string project_id!:string"; got != want {
			t.Errorf("start_duo_session parameters %s, want %s", got, want)
		}
	}
}

// TestCatalog_gitlabUnknown: an unknown tool and an unknown toolset answer
// GitLab's -32602 with its text in data.params (and in the message, which
// is what clients show).
func TestCatalog_gitlabUnknown(t *testing.T) {
	h := startServer(t, withEE())
	for _, g := range h.groups() {
		for _, era := range eras {
			msg, data := h.toolsCall(t, g, era, "alice", "no_such_tool", map[string]any{}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
			if want := "Tool 'no_such_tool' not found."; msg != want || toolsDig(data, "params") != want {
				t.Errorf("%s %s unknown tool: %q %v", g.Name, era, msg, data)
			}
			body, hd := h.parts(t, call{Era: era, User: "alice", Method: "tools/list"})
			hd.Set(hdrToolsets, "CI,Bogus")
			msg, data = h.send(t, call{URL: g.URL, Body: body, Header: hd}).expectError(t, rpcStatus(era, http.StatusBadRequest), -32602)
			want := "Unknown toolsets: bogus. Valid toolsets: meta, core, merge_requests, work_items, repository, ci, duo_agent_platform, wikis, code_security"
			if msg != want || toolsDig(data, "params") != want {
				t.Errorf("%s %s unknown toolset: %q %v", g.Name, era, msg, data)
			}
		}
	}
}

// TestCatalog_gitlabTable: doc/tools.md has the table, a row per tool
// naming the tool, its toolset, how glmcp serves it and GitLab's source.
func TestCatalog_gitlabTable(t *testing.T) {
	doc, err := os.ReadFile("../doc/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## GitLab 19.5's catalog, tool by tool\n")
	if !ok {
		t.Fatal(`doc/tools.md has no section "GitLab 19.5's catalog, tool by tool"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `") {
			rows[strings.SplitN(line, "`", 3)[1]] = line
		}
	}
	for _, r := range gitlabCatalog {
		line, ok := rows[r.name]
		if !ok {
			t.Errorf("doc/tools.md has no row for %s", r.name)
			continue
		}
		for _, want := range []string{"`" + r.toolset + "`", r.here, "`" + r.src + "`"} {
			if !strings.Contains(line, want) {
				t.Errorf("doc/tools.md row of %s does not say %s: %s", r.name, want, line)
			}
		}
	}
}
