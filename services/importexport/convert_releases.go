package importexport

import (
	"gitlab.com/glmcp/glmcp/models"
)

// convertReleases writes the releases with their links.
func (c *converter) convertReleases() error {
	for _, l := range c.a.Releases {
		x := l.Rec
		author, err := c.um.ptr(c.ctx, x.AuthorID)
		if err != nil {
			return err
		}
		rel := models.Release{Tag: x.Tag, Name: x.Name, Description: x.Description, AuthorID: author,
			CreatedAt: orNow(x.CreatedAt), UpdatedAt: orNow(x.UpdatedAt)}
		if rel.Name == "" {
			rel.Name = x.Tag
		}
		rel.ReleasedAt = rel.CreatedAt
		if x.ReleasedAt != nil {
			rel.ReleasedAt = *x.ReleasedAt
		}
		for _, k := range x.Links {
			lt := k.LinkType
			if lt == "" {
				lt = "other"
			}
			rel.Links = append(rel.Links, models.ReleaseLink{Name: k.Name, URL: k.URL, LinkType: lt, CreatedAt: orNow(k.CreatedAt)})
			c.sum.Imported["release links"]++
		}
		c.r.Releases = append(c.r.Releases, rel)
	}
	c.sum.Imported[relReleases] = len(c.r.Releases)
	return nil
}
