package tools

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// inputStateTTL is how long a requestState handed to a client stays
// valid: long enough for a person to answer an elicitation.
const inputStateTTL = 15 * time.Minute

// maxSealedState bounds an incoming requestState (bytes of its text).
const maxSealedState = 16 << 10

var errBadState = errors.New("requestState failed verification")

// stateSealer protects the requestState of input_required results with
// AES-256-GCM under a key derived from the instance secret, so any instance
// sharing the secret can open what another sealed. A sealed state is bound
// to the user, the tool and a digest of the arguments, and expires after
// inputStateTTL; the tool's own state is neither readable nor changeable by
// the client.
type stateSealer struct {
	aead cipher.AEAD
	now  func() time.Time
	ttl  time.Duration
}

// sealedState is the plaintext of a sealed requestState.
type sealedState struct {
	User    int64  `json:"u"`
	Tool    string `json:"t"`
	Args    string `json:"a"`
	Expires int64  `json:"x"`
	State   string `json:"s"`
}

// newStateSealer derives the sealing key from secret; an empty secret
// gets a random key (states then only open in this process).
func newStateSealer(secret []byte) (*stateSealer, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("generate request state key: %w", err)
		}
	}
	key := sha256.Sum256(append([]byte("glmcp requestState v1\x00"), secret...))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("request state cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("request state cipher: %w", err)
	}
	return &stateSealer{aead: aead, now: time.Now, ttl: inputStateTTL}, nil
}

// seal returns the sealed form of state for user's call of tool with args.
func (s *stateSealer) seal(user int64, tool string, args json.RawMessage, state string) (string, error) {
	pt, err := json.Marshal(sealedState{User: user, Tool: tool, Args: argsDigest(args),
		Expires: s.now().Add(s.ttl).Unix(), State: state})
	if err != nil {
		return "", fmt.Errorf("encode request state: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(pt)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("request state nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, pt, nil)), nil
}

// open verifies a sealed state and returns the tool's state, or
// errBadState when it was altered, expired, or issued for another user,
// tool or arguments.
func (s *stateSealer) open(sealed string, user int64, tool string, args json.RawMessage) (string, error) {
	if len(sealed) > maxSealedState {
		return "", errBadState
	}
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	ns := s.aead.NonceSize()
	if err != nil || len(b) < ns+s.aead.Overhead() {
		return "", errBadState
	}
	pt, err := s.aead.Open(nil, b[:ns], b[ns:], nil)
	if err != nil {
		return "", errBadState
	}
	var st sealedState
	if json.Unmarshal(pt, &st) != nil || st.User != user || st.Tool != tool ||
		st.Args != argsDigest(args) || s.now().Unix() > st.Expires {
		return "", errBadState
	}
	return st.State, nil
}

// argsDigest identifies a call's arguments independent of key order and
// spacing (numbers keep their text).
func argsDigest(args json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	canon := []byte("{}")
	if d.Decode(&v) == nil && v != nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
