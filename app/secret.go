package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"

	"gitlab.com/glmcp/glmcp/services/store"
)

// fingerprintSetting is the glmcp_settings key of the secret's fingerprint.
const fingerprintSetting = "instance_secret_fingerprint"

// SecretFingerprint identifies secret without revealing it: HMAC-SHA256
// keyed by the secret over a fixed label, in hex.
func SecretFingerprint(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("glmcp instance secret fingerprint v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// SecretMismatchError is returned when the configured secret is not the
// one the database was set up with.
type SecretMismatchError struct {
	Stored, Configured string // fingerprints
}

func (e *SecretMismatchError) Error() string {
	return fmt.Sprintf("the instance secret (GLMCP_SECRET, or the generated one when it is unset) is not the secret this database was set up with "+
		"(its fingerprint %.12s…, configured %.12s…): tokens minted with it would never verify "+
		"and the tokens already handed out would stop working. Use the original secret, "+
		"or change it on purpose with `glmcp secret rotate --yes` (revokes every personal "+
		"access token; see doc/auth.md, Rotating the instance secret)", e.Stored, e.Configured)
}

// checkSecret records the secret's fingerprint on first use and refuses a
// different secret afterwards.
func checkSecret(ctx context.Context, e *Env) error {
	want := SecretFingerprint(e.Secret)
	stored, err := e.Store.Settings.EnsureSetting(ctx, fingerprintSetting, want)
	if err != nil {
		return fmt.Errorf("instance secret fingerprint: %w", err)
	}
	if !hmac.Equal([]byte(stored), []byte(want)) {
		return &SecretMismatchError{Stored: stored, Configured: want}
	}
	return nil
}

// Rotation is what RotateSecret did.
type Rotation struct {
	// Changed is false when the secret already was the database's.
	Changed bool
	// Generated is set when GLMCP_SECRET was unset and a new secret was
	// generated into the database.
	Generated bool
	// RevokedTokens counts the personal access tokens revoked.
	RevokedTokens int64
}

// RotateSecret makes the configured GLMCP_SECRET (or, when it is unset, a
// newly generated one kept in the database) the database's secret. Every
// personal access token is revoked in the same transaction: its digest
// depends on the old secret and can never verify again. OAuth access
// tokens (SHA-512, no secret) are untouched. A concurrent rotation makes
// one of them fail with a conflict.
func RotateSecret(ctx context.Context, cfg *Config, logger *slog.Logger) (Rotation, error) {
	e, err := openEnv(ctx, cfg, logger)
	if err != nil {
		return Rotation{}, err
	}
	defer e.Close()
	oldGenerated := ""
	if cfg.Secret == "" { // e.Secret is the generated one: replace it
		oldGenerated = e.Secret
		buf := make([]byte, 48)
		if _, err := rand.Read(buf); err != nil {
			return Rotation{}, fmt.Errorf("generate secret: %w", err)
		}
		e.Secret = base64.RawURLEncoding.EncodeToString(buf)
	}
	want := SecretFingerprint(e.Secret)
	stored, err := e.Store.Settings.EnsureSetting(ctx, fingerprintSetting, want)
	if err != nil {
		return Rotation{}, fmt.Errorf("instance secret fingerprint: %w", err)
	}
	if stored == want {
		return Rotation{}, nil
	}
	var r Rotation
	err = e.Store.WithTx(ctx, func(tx *store.Store) error {
		if err := tx.Settings.ReplaceSetting(ctx, fingerprintSetting, stored, want); err != nil {
			return err
		}
		if oldGenerated != "" {
			if err := tx.Settings.ReplaceSetting(ctx, secretSetting, oldGenerated, e.Secret); err != nil {
				return err
			}
		}
		n, err := tx.Users.RevokeAllTokens(ctx)
		r = Rotation{Changed: true, Generated: oldGenerated != "", RevokedTokens: n}
		return err
	})
	if err != nil {
		return Rotation{}, fmt.Errorf("rotate secret: %w", err)
	}
	return r, nil
}
