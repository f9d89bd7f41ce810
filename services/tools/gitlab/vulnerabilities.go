package gitlab

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gitlab.com/glmcp/glmcp/models"
	"gitlab.com/glmcp/glmcp/services/access"
)

// The code_security tools' shared parts: vulnerabilities as GitLab's
// GraphQL Vulnerability type shows them, and the lookup every tool does.

const toolsetCodeSecurity = "code_security"

func upperAll(in []string) []string {
	out := make([]string, len(in))
	for k, s := range in {
		out[k] = strings.ToUpper(s)
	}
	return out
}

func lowerAll(in []string) []string {
	out := make([]string, len(in))
	for k, s := range in {
		out[k] = strings.ToLower(s)
	}
	return out
}

// vulnerabilityJSON is a vulnerability (GraphQL field names).
func (l links) vulnerabilityJSON(p *models.Project, v *models.Vulnerability, full bool) obj {
	ids := make([]obj, 0, len(v.Identifiers))
	for _, i := range v.Identifiers {
		ids = append(ids, obj{"externalType": i.ExternalType, "externalId": i.ExternalID, "name": i.Name, "url": nilIfEmpty(i.URL)})
	}
	loc := obj{}
	if v.Location.File != "" {
		loc["file"], loc["startLine"], loc["endLine"] = v.Location.File, v.Location.StartLine, v.Location.EndLine
	}
	if v.Location.Dependency != "" {
		loc["dependency"] = obj{"package": obj{"name": v.Location.Dependency}, "version": v.Location.Version}
	}
	out := obj{"id": gid("Vulnerability", v.ID), "title": v.Title, "state": strings.ToUpper(v.State),
		"severity": strings.ToUpper(v.Severity), "reportType": strings.ToUpper(v.ReportType),
		"detectedAt": apiTime(v.CreatedAt), "updatedAt": apiTime(v.UpdatedAt),
		"webUrl":  l.projectURL(p) + "/-/security/vulnerabilities/" + strconv.FormatInt(v.ID, 10),
		"scanner": obj{"name": v.ScannerName}, "location": loc, "identifiers": ids,
		"project": obj{"id": gid("Project", p.ID), "fullPath": p.PathWithNamespace}}
	if full {
		out["description"], out["solution"] = v.Description, v.Solution
		out["confirmedAt"], out["dismissedAt"], out["resolvedAt"] = apiTimePtr(v.ConfirmedAt), apiTimePtr(v.DismissedAt), apiTimePtr(v.ResolvedAt)
		out["dismissalReason"] = nil
		if v.DismissalReason != nil {
			out["dismissalReason"] = strings.ToUpper(*v.DismissalReason)
		}
		out["issueLinks"] = obj{"nodes": []obj{}}
		if v.IssueID != nil {
			out["issueLinks"] = obj{"nodes": []obj{{"linkType": "CREATED", "issue": obj{"id": gid("Issue", *v.IssueID)}}}}
		}
	}
	return out
}

// vulnerabilityLookupStore is what finding a readable vulnerability reads.
type vulnerabilityLookupStore interface {
	LoadVulnerability(ctx context.Context, id int64) (*models.Vulnerability, error)
	FindProjectWithRoleByID(ctx context.Context, id, userID int64) (*models.Project, models.AccessLevel, error)
}

// readableVulnerability loads vulnerability id (a numeric string) if u may
// see its project's vulnerabilities; anything else reads as missing.
func readableVulnerability(ctx context.Context, st vulnerabilityLookupStore, u *models.User, id string) (*projectAccess, *models.Vulnerability, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(id), "gid://gitlab/Vulnerability/"), 10, 64)
	if err != nil || n <= 0 {
		return nil, nil, invalidf("vulnerability_id: %q is not a numeric vulnerability ID (for example 567)", id)
	}
	v, err := st.LoadVulnerability(ctx, n)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, notFound("Vulnerability")
	}
	if err != nil {
		return nil, nil, err
	}
	p, level, err := st.FindProjectWithRoleByID(ctx, v.ProjectID, u.ID)
	if err != nil {
		return nil, nil, err
	}
	if !access.CanReadVulnerability(u, p, level) {
		return nil, nil, notFound("Vulnerability")
	}
	return &projectAccess{project: p, level: level}, v, nil
}
