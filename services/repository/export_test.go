package repository

import "context"

// PathLogWalk is what Log's in-process walk of a path answers for opt,
// without the git log fallback: done is false when the walk gave up.
// Tests use it to tell the walk's answer from git log's.
func PathLogWalk(ctx context.Context, l *Local, opt LogOptions) (page *LogPage, done bool, err error) {
	if opt.Limit == 0 {
		opt.Limit = 20
	}
	path, ok, err := pathWalkable(opt)
	if err != nil || !ok {
		return nil, false, err
	}
	return l.walkPathLog(ctx, opt, path)
}
