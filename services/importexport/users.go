package importexport

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/store"
)

// userMap maps the archive's user ids to users of this instance.
type userMap struct {
	tx       *store.Store
	admin    bool
	importer *models.User
	members  map[int64]exMember
	contrib  map[int64]exContributor // user_contributions: who authored what, member or not
	names    map[int64]string        // a source user's name, from the notes' authors
	ids      map[int64]int64
	isPH     map[int64]bool
	a        *Archive

	mapped, placeholders int
	memberRows           []models.ProjectMember
	// sources are the source identities of the placeholders made.
	sources []models.ImportSourceUser
}

func newUserMap(tx *store.Store, a *Archive, importer *models.User) *userMap {
	um := &userMap{tx: tx, admin: importer == nil || importer.Admin, importer: importer,
		members: map[int64]exMember{}, contrib: map[int64]exContributor{}, names: map[int64]string{}, ids: map[int64]int64{}, isPH: map[int64]bool{}, a: a}
	for _, m := range a.Members {
		id := m.Rec.UserID
		if m.Rec.User != nil && m.Rec.User.ID != 0 {
			id = m.Rec.User.ID
		}
		um.members[id] = m.Rec
	}
	for _, c := range a.Contributors {
		um.contrib[c.Rec.ID] = c.Rec
		if c.Rec.Name != "" {
			um.names[c.Rec.ID] = c.Rec.Name
		}
	}
	// The notes' authors' names (the checks gathered them).
	for id, name := range a.noteAuthors {
		um.names[id] = name
	}
	return um
}

// mapMembers maps every member (existing users when an administrator
// imports) and makes the memberships of the users it found; placeholder
// users get none.
func (um *userMap) mapMembers(ctx context.Context) error {
	ids := make([]int64, 0, len(um.members))
	for id := range um.members {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	seen := map[int64]bool{}
	for _, src := range ids {
		m := um.members[src]
		uid, err := um.user(ctx, src)
		if err != nil {
			return err
		}
		if um.isPH[src] {
			um.placeholderRole(src, m.AccessLevel)
			continue
		}
		if seen[uid] {
			continue
		}
		seen[uid] = true
		lvl, _ := accessLevel(m.AccessLevel)
		um.memberRows = append(um.memberRows, models.ProjectMember{UserID: uid, AccessLevel: lvl, CreatedAt: orNow(m.CreatedAt), UpdatedAt: orNow(m.UpdatedAt)})
	}
	if um.importer != nil && !seen[um.importer.ID] {
		now := orNow(time.Time{})
		um.memberRows = append(um.memberRows, models.ProjectMember{UserID: um.importer.ID, AccessLevel: models.AccessLevel(40), CreatedAt: now, UpdatedAt: now})
	}
	return nil
}

// user is the user of this instance source user src stands for.
func (um *userMap) user(ctx context.Context, src int64) (int64, error) {
	if id, ok := um.ids[src]; ok {
		return id, nil
	}
	var username string
	var emails []string
	if m, ok := um.members[src]; ok && m.User != nil {
		username, emails = m.User.Username, []string{m.User.PublicEmail, m.User.Email}
	} else if c, ok := um.contrib[src]; ok {
		username, emails = c.Username, []string{c.PublicEmail}
	}
	if um.admin && (username != "" || len(emails) > 0) {
		var u *models.User
		var err error
		if username != "" {
			u, err = um.tx.Users.FindUserByUsername(ctx, username)
		}
		for _, email := range emails {
			if u == nil && email != "" {
				u, err = um.tx.Users.FindUserByEmail(ctx, email)
			}
		}
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return 0, err
		}
		if u != nil {
			um.ids[src] = u.ID
			um.mapped++
			return u.ID, nil
		}
	}
	id, err := um.placeholder(ctx, src)
	if err != nil {
		return 0, err
	}
	um.ids[src] = id
	um.isPH[src] = true
	um.placeholders++
	return id, nil
}

var unsafeUsername = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// placeholder makes the blocked user that stands for source user src:
// named after the source's username or name, never able to sign in.
func (um *userMap) placeholder(ctx context.Context, src int64) (int64, error) {
	base, display := "", ""
	if m, ok := um.members[src]; ok && m.User != nil {
		base, display = m.User.Username, m.User.Username
	} else if c, ok := um.contrib[src]; ok && c.Username != "" {
		base, display = c.Username, c.Username
	}
	if n := um.names[src]; n != "" {
		display = n
		if base == "" {
			base = n
		}
	}
	base = strings.Trim(unsafeUsername.ReplaceAllString(base, "_"), "_.-")
	if base == "" {
		base = fmt.Sprintf("user%d", src)
	}
	if display == "" {
		display = fmt.Sprintf("source user %d", src)
	}
	for n := 1; n < 1000; n++ {
		username := fmt.Sprintf("%s_placeholder_%d", truncate(base, 40), n)
		if _, err := um.tx.Users.FindUserByUsername(ctx, username); err == nil {
			continue
		} else if !errors.Is(err, models.ErrNotFound) {
			return 0, err
		}
		u := &models.User{Username: username, Name: "Placeholder " + display,
			Email: username + "@placeholder.glmcp.invalid", State: models.UserBlocked}
		err := um.tx.Users.CreateUser(ctx, u)
		if errors.Is(err, models.ErrConflict) {
			continue
		}
		if err != nil {
			return 0, err
		}
		um.sources = append(um.sources, um.sourceUser(src, u.ID))
		return u.ID, nil
	}
	return 0, fmt.Errorf("no free placeholder username for source user %d: %w", src, models.ErrConflict)
}

func (um *userMap) ptr(ctx context.Context, src *int64) (*int64, error) {
	if src == nil || *src == 0 {
		return nil, nil
	}
	id, err := um.user(ctx, *src)
	if err != nil {
		return nil, err
	}
	return &id, nil
}
