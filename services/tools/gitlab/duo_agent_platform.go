package gitlab

import (
	"context"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/tools"
)

// The duo_agent_platform toolset is known (the toolsets header accepts it,
// and it is one of GitLab's default toolsets) but glmcp has no GitLab Duo
// Agent Platform. GitLab lists these tools only to users who have it, so
// here they are never listed (not with the default toolsets, the toolset
// named, or "all"), and a call answers isError with GitLab's "GitLab Duo
// Agent Platform is not available for this namespace".

const toolsetDuoAgentPlatform = "duo_agent_platform"

// duoTool is a Duo Agent Platform tool whose arguments are A: its schema
// is tied to A (argsSchema), so the two cannot drift apart, though no call
// decodes them (each answers that the platform is not available).
func duoTool[A any](name, source, title, desc string, ann models.ToolAnnotations, props obj, aliases []string, required ...string) tools.Definition {
	var run func(context.Context, *tools.Call, A) (*tools.Result, error) // never runs: the schema's type
	return tools.Definition{Name: name, Title: title, Description: desc + " Not available on glmcp.",
		InputSchema: argsSchema(run, props, required...), Annotations: ann,
		Toolset: toolsetDuoAgentPlatform, Edition: models.EditionCE, Aliases: aliases, Unlisted: true, Unavailable: true, Source: source,
		Run: notAvailable(name)}
}

type listDuoAgentsAndFlowsArgs struct {
	ProjectID refArg `json:"project_id"`
	ItemType  string `json:"item_type"`
	After     string `json:"after"`
	First     intArg `json:"first"`
}

func listDuoAgentsAndFlows(*gitlab) tools.Definition {
	return duoTool[listDuoAgentsAndFlowsArgs]("list_duo_agents_and_flows", "list_tools_spec.rb (EE)",
		"List Duo agents and flows",
		"List the GitLab Duo agents and flows enabled in a project.", readOnlyTool("List Duo agents and flows"), obj{
			"project_id": projectRefProp("Numeric ID or full path of the project."),
			"item_type":  enumProp("Return only entries of this kind.", "agent", "flow", "third_party_flow"),
			"after":      cursorProp("agents and flows", "pageInfo.endCursor", ""),
			"first":      firstProp("agents and flows", "", ""),
		}, nil, "project_id")
}

type startDuoSessionArgs struct {
	ProjectID               string `json:"project_id"`
	AICatalogItemConsumerID intArg `json:"ai_catalog_item_consumer_id"`
	Goal                    string `json:"goal"`
}

func startDuoSession(*gitlab) tools.Definition {
	return duoTool[startDuoSessionArgs]("start_duo_session", "ee/app/services/mcp/tools/duo_workflows/start_duo_session_service.rb",
		"Start Duo session",
		"Start a GitLab Duo Agent Platform session that runs a flow from the AI Catalog, and return its session id.",
		// GitLab's annotations: it starts a CI job that can push commits.
		destructiveTool("Start Duo session"), obj{
			"project_id": withDesc(obj{"type": "string"}, "ID or full path of the project the flow runs in."),
			"ai_catalog_item_consumer_id": withDesc(obj{"type": "integer"},
				"ID of the AI Catalog item consumer that configures which flow to run."),
			"goal": withDesc(obj{"type": "string"}, "What the agent should do, in prose. This is the prompt the flow starts from."),
		}, nil, "project_id", "ai_catalog_item_consumer_id", "goal")
}

type listDuoSessionsArgs struct {
	URL         string   `json:"url"`
	ProjectID   refArg   `json:"project_id"`
	StatusGroup string   `json:"status_group"`
	Statuses    []string `json:"statuses"`
	After       string   `json:"after"`
	First       intArg   `json:"first"`
}

func listDuoSessions(*gitlab) tools.Definition {
	return duoTool[listDuoSessionsArgs]("list_duo_sessions", "list_tools_spec.rb (EE)",
		"List Duo sessions",
		"List your GitLab Duo Agent Platform sessions.", readOnlyTool("List Duo sessions"), obj{
			"url":          urlProp("GitLab URL of the project to filter sessions by."),
			"project_id":   projectRefProp("Numeric ID or full path of the project to filter sessions by."),
			"status_group": enumProp("Session status group.", "active", "paused", "awaiting_input", "completed", "failed", "canceled"),
			"statuses": enumListProp("Session statuses.", false, "created", "running", "paused",
				"finished", "failed", "stopped", "input_required", "plan_approval_required", "tool_call_approval_required"),
			"after": cursorProp("sessions", "pageInfo.endCursor", ""),
			"first": firstProp("sessions", "", ""),
		}, nil)
}

type getDuoSessionArgs struct {
	WorkflowID intArg `json:"workflow_id"`
}

func getDuoSession(*gitlab) tools.Definition {
	return duoTool[getDuoSessionArgs]("get_duo_session", "list_tools_spec.rb (EE)",
		"Get Duo session",
		"Check the status of a GitLab Duo Agent Platform session.", readOnlyTool("Get Duo session"), obj{
			"workflow_id": iidProp("The workflow ID of the session."),
		}, []string{"get_duo_workflow_status"}, "workflow_id")
}

type sendDuoSessionInputArgs struct {
	WorkflowID    intArg `json:"workflow_id"`
	HumanApproval bool   `json:"human_approval"`
	HumanMessage  string `json:"human_message"`
}

func sendDuoSessionInput(*gitlab) tools.Definition {
	return duoTool[sendDuoSessionInputArgs]("send_duo_session_input", "list_tools_spec.rb (EE)",
		"Send Duo session input",
		"Answer a GitLab Duo Agent Platform session that is waiting for input.", writeTool("Send Duo session input"), obj{
			"workflow_id":    iidProp("ID of the Duo session."),
			"human_approval": boolProp("true approves the pending plan or tool call; false rejects it."),
			"human_message":  strProp("Feedback for the agent, or the answer to its question.", 1, 2000),
		}, nil, "workflow_id", "human_approval")
}
