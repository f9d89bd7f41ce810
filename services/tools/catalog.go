package tools

// Deps are what the tool executors need.
type Deps struct {
	// Store is the GitLab data store (projects, issues, …); see
	// DomainStore. The GitLab tools fail with a server error without it.
	Store DomainStore
	// Version is reported by get_mcp_server_version.
	Version ServerVersion
	// PublicURL is the instance's external base URL
	// ("https://gitlab.example.com"), used for web_url and _links. Empty
	// gives root-relative URLs ("/group/project/-/issues/1").
	PublicURL string
}

// Catalog returns every tool the code implements, ordered as GitLab
// documents them.
func Catalog(d Deps) []Definition {
	g := &gitlab{store: d.Store, base: trimSlash(d.PublicURL)}
	return []Definition{
		GetMCPServerVersion(d.Version),
		g.getIssue(),
		g.createIssue(),
		g.createMergeRequest(),
		g.getMergeRequest(),
		g.getMergeRequestCommits(),
		g.getMergeRequestDiffs(),
		g.getMergeRequestPipelines(),
		g.getPipelineJobs(),
		g.createWorkItemNote(),
		g.getWorkItemNotes(),
		g.search(),
		g.searchLabels(),
		g.semanticCodeSearch(),
	}
}
