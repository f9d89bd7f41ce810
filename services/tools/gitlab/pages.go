package gitlab

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
