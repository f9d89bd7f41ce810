package tools

// DomainStore is what the GitLab tools need from the store (projects,
// issues, merge requests, …). Each tool file documents the methods it uses.
type DomainStore interface{}

// Deps are what the tool executors need.
type Deps struct {
	Store   DomainStore
	Version ServerVersion
}

// Catalog returns every tool the code implements.
func Catalog(d Deps) []Definition {
	return []Definition{
		GetMCPServerVersion(d.Version),
	}
}
