package gitlab

import (
	"gitlab.com/glmcp/glmcp/services/tools"
)

type connection struct {
	Nodes    any          `json:"nodes"`
	PageInfo pageInfoJSON `json:"pageInfo"`
}

type endPageInfo struct {
	EndCursor   *string `json:"endCursor"`
	HasNextPage bool    `json:"hasNextPage"`
}

// idPageInfo is the pageInfo of an id-ordered page: an end cursor (the
// last id, from last) when more follow.
func idPageInfo(pages pager, more bool, last func() int64) endPageInfo {
	pi := endPageInfo{HasNextPage: more}
	if more {
		c := pages.mint(last())
		pi.EndCursor = &c
	}
	return pi
}

type graphPageInfoJSON struct {
	HasNextPage bool    `json:"hasNextPage"`
	EndCursor   *string `json:"endCursor"`
}

// pageOf is one REST page of a list built in memory, rendered (or the
// validation error of a page past the offset cap).
func pageOf[T any](items []T, page, perPage intArg) (*tools.Result, error) {
	p, pp, err := paging(page, perPage)
	if err != nil {
		return nil, err
	}
	from := min(len(items), (p-1)*pp)
	return jsonResult(listJSON[T]{Items: items[from:min(len(items), from+pp)], PageInfo: newRESTPageInfo(p, pp, int64(len(items)))})
}
