package store

// UserReferenceColumns are the "table.column"s ReassignPlaceholder knows
// to name users: those it moves, those a user's removal takes with it,
// and the two it handles itself.
func UserReferenceColumns() []string {
	out := []string{"project_members.user_id", "import_source_users.placeholder_user_id", "import_source_users.reassign_to_user_id"}
	for _, list := range [][]userReference{userReferences, ownedWithUser} {
		for _, r := range list {
			out = append(out, r.table+"."+r.column)
		}
	}
	return out
}
