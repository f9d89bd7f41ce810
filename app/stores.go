package app

import "gitlab.com/glmcp/glmcp/services/store"

// The services whose interface spans more than one of the store's
// families get the families they use put together here.

// resourceStore is resources.Store: completions and the member's projects.
type resourceStore struct {
	*store.Resources
	*store.Projects
}

// changeStore is changeSource: the catalog version and the resource
// change rows.
type changeStore struct {
	*store.Tools
	*store.Resources
}

// codeIndexStore is codeindex.Store: the index and the project it is of.
type codeIndexStore struct {
	*store.CodeIndex
	*store.Projects
}
