// Package token makes and checks the tokens that admit a player to one slot of one relayed
// match: whoever creates the match (a matchmaker, a lobby) makes a token for each player with a
// key it shares with the relay, and the relay admits a player only with a valid token, for the
// slot the token names, until the token expires. A token proves nothing about who holds it: it
// is a capability, to be handed to its player over a channel the matchmaker trusts (its own
// TLS connection, say), and it expires.
//
// A token is at most MaxSize bytes:
//
//	version (1) | key id (1) | expiry, Unix seconds (8, big-endian) | slot (1) |
//	match name length (1) | match name (0 to MaxMatch) | HMAC-SHA256 of all before, first 16 bytes
//
// The key id lets a relay accept tokens of the old key and the new one while keys rotate.
package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"time"
)

// The limits of a token.
const (
	// MaxMatch is the longest match name, in bytes.
	MaxMatch = 64
	// MaxSlot is the greatest slot.
	MaxSlot = 255
	// MinKey is the shortest key, in bytes: 128 bits.
	MinKey = 16
	// MacSize is the size of a token's MAC, in bytes.
	MacSize = 16
	// MaxSize is the largest token, in bytes.
	MaxSize = headerSize + MaxMatch + MacSize

	version    = 1
	headerSize = 1 + 1 + 8 + 1 + 1
)

// Errors of Verify. Every error it returns is one of these, so that a flood of bad tokens costs
// no allocation.
var (
	ErrMalformed = errors.New("token: malformed")
	ErrUnknown   = errors.New("token: made with a key this relay does not have")
	ErrForged    = errors.New("token: its MAC does not match: forged or corrupted")
	ErrExpired   = errors.New("token: expired")
)

// Make returns a token for slot of match, valid until expiry, made with key (at least MinKey
// bytes) under id.
func Make(key []byte, id byte, match string, slot int, expiry time.Time) ([]byte, error) {
	switch {
	case len(key) < MinKey:
		return nil, fmt.Errorf("token: a key of %d bytes: want at least %d", len(key), MinKey)
	case len(match) > MaxMatch:
		return nil, fmt.Errorf("token: a match name of %d bytes: want at most %d", len(match), MaxMatch)
	case slot < 0 || slot > MaxSlot:
		return nil, fmt.Errorf("token: slot %d: want 0 to %d", slot, MaxSlot)
	}
	b := make([]byte, 0, headerSize+len(match)+MacSize)
	b = append(b, version, id)
	b = binary.BigEndian.AppendUint64(b, uint64(expiry.Unix()))
	b = append(b, byte(slot), byte(len(match)))
	b = append(b, match...)
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(b)[:len(b)+MacSize], nil
}

// Verifier checks tokens against the keys it holds. It is used by one goroutine at a time, and
// checking a token allocates nothing.
type Verifier struct {
	macs [256]hash.Hash // by key id; nil: no key
	sum  [sha256.Size]byte
}

// NewVerifier returns a verifier that holds no key.
func NewVerifier() *Verifier { return &Verifier{} }

// SetKey makes the verifier accept tokens made with key under id (replacing any key it held
// under that id); a nil key removes it.
func (v *Verifier) SetKey(id byte, key []byte) error {
	if key == nil {
		v.macs[id] = nil
		return nil
	}
	if len(key) < MinKey {
		return fmt.Errorf("token: a key of %d bytes: want at least %d", len(key), MinKey)
	}
	v.macs[id] = hmac.New(sha256.New, key)
	return nil
}

// Verify checks tok at now and returns the match it names (a part of tok) and the slot. The
// MAC is compared in constant time.
func (v *Verifier) Verify(tok []byte, now time.Time) (match []byte, slot int, err error) {
	if len(tok) < headerSize+MacSize || tok[0] != version {
		return nil, 0, ErrMalformed
	}
	n := int(tok[headerSize-1])
	if n > MaxMatch || len(tok) != headerSize+n+MacSize {
		return nil, 0, ErrMalformed
	}
	m := v.macs[tok[1]]
	if m == nil {
		return nil, 0, ErrUnknown
	}
	body := tok[:headerSize+n]
	m.Reset()
	m.Write(body)
	if !hmac.Equal(m.Sum(v.sum[:0])[:MacSize], tok[headerSize+n:]) {
		return nil, 0, ErrForged
	}
	if expiry := int64(binary.BigEndian.Uint64(tok[2:10])); now.Unix() >= expiry {
		return nil, 0, ErrExpired
	}
	return body[headerSize:], int(tok[10]), nil
}
