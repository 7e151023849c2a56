package token

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	key    = []byte("0123456789abcdef")
	newKey = []byte("fedcba9876543210fedcba")
	now    = time.Unix(1_800_000_000, 0)
)

func verifier(t testing.TB) *Verifier {
	t.Helper()
	v := NewVerifier()
	if err := v.SetKey(1, key); err != nil {
		t.Fatal(err)
	}
	return v
}

// A token names its match and slot until it expires; at its expiry it is refused.
func TestRoundTrip(t *testing.T) {
	v := verifier(t)
	for _, match := range []string{"", "m", strings.Repeat("x", MaxMatch)} {
		for _, slot := range []int{0, 7, MaxSlot} {
			tok, err := Make(key, 1, match, slot, now.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if len(tok) > MaxSize {
				t.Errorf("a token of %d bytes, more than MaxSize %d", len(tok), MaxSize)
			}
			m, s, err := v.Verify(tok, now)
			if err != nil || string(m) != match || s != slot {
				t.Errorf("Verify(Make(%q, %d)) = %q, %d, %v", match, slot, m, s, err)
			}
			if _, _, err := v.Verify(tok, now.Add(time.Minute-time.Second)); err != nil {
				t.Errorf("a second before its expiry: %v", err)
			}
			if _, _, err := v.Verify(tok, now.Add(time.Minute)); err != ErrExpired {
				t.Errorf("at its expiry: %v, want ErrExpired", err)
			}
		}
	}
}

// No change to a token's bytes gets it accepted: another slot, another match, a later expiry
// all need the key.
func TestTampered(t *testing.T) {
	v := verifier(t)
	tok, _ := Make(key, 1, "final", 1, now.Add(time.Hour))
	for i := range tok {
		for bit := range 8 {
			bad := bytes.Clone(tok)
			bad[i] ^= 1 << bit
			if _, _, err := v.Verify(bad, now); err == nil {
				t.Fatalf("byte %d bit %d flipped: accepted", i, bit)
			}
		}
	}
	for n := range len(tok) {
		if _, _, err := v.Verify(tok[:n], now); err == nil {
			t.Fatalf("cut to %d bytes: accepted", n)
		}
	}
	if _, _, err := v.Verify(append(bytes.Clone(tok), 0), now); err != ErrMalformed {
		t.Errorf("a byte added: %v", err)
	}
	other, _ := Make([]byte("another key, not the relay's"), 1, "final", 1, now.Add(time.Hour))
	if _, _, err := v.Verify(other, now); err != ErrForged {
		t.Errorf("made with another key under the same id: %v, want ErrForged", err)
	}
}

// Keys rotate: a verifier holding the old key and the new one takes tokens of both; once the
// old is removed, its tokens are refused.
func TestKeyRotation(t *testing.T) {
	v := verifier(t)
	if err := v.SetKey(2, newKey); err != nil {
		t.Fatal(err)
	}
	old, _ := Make(key, 1, "m", 0, now.Add(time.Hour))
	cur, _ := Make(newKey, 2, "m", 0, now.Add(time.Hour))
	for _, tok := range [][]byte{old, cur} {
		if _, _, err := v.Verify(tok, now); err != nil {
			t.Errorf("key %d: %v", tok[1], err)
		}
	}
	v.SetKey(1, nil)
	if _, _, err := v.Verify(old, now); err != ErrUnknown {
		t.Errorf("the old key removed: %v, want ErrUnknown", err)
	}
}

// Bad arguments are errors that say what is wrong.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		key   []byte
		match string
		slot  int
		want  string
	}{
		{key[:15], "m", 0, "key"},
		{key, strings.Repeat("x", MaxMatch+1), 0, "match name"},
		{key, "m", -1, "slot"},
		{key, "m", MaxSlot + 1, "slot"},
	} {
		if _, err := Make(c.key, 1, c.match, c.slot, now); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Make(%d-byte key, %d-byte match, slot %d): %v, want an error about the %s", len(c.key), len(c.match), c.slot, err, c.want)
		}
	}
	if err := NewVerifier().SetKey(0, key[:8]); err == nil {
		t.Errorf("SetKey with 8 bytes: no error")
	}
}

// Checking a token, good or bad, allocates nothing: a flood of forged joins costs no garbage.
func TestVerifyNoAllocations(t *testing.T) {
	v := verifier(t)
	good, _ := Make(key, 1, "m", 3, now.Add(time.Hour))
	bad := bytes.Clone(good)
	bad[len(bad)-1] ^= 1
	if a := testing.AllocsPerRun(1000, func() {
		v.Verify(good, now)
		v.Verify(bad, now)
	}); a != 0 {
		t.Errorf("%v allocations a check", a)
	}
}

// FuzzVerify: whatever Verify accepts is exactly the token Make makes of what it returned (one
// encoding per token), and nothing but ErrMalformed, ErrUnknown, ErrForged and ErrExpired is
// returned.
func FuzzVerify(f *testing.F) {
	tok, _ := Make(key, 1, "final", 2, now.Add(time.Hour))
	f.Add(tok)
	f.Add([]byte{1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		v := verifier(t)
		match, slot, err := v.Verify(b, now)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && err != ErrUnknown && err != ErrForged && err != ErrExpired {
				t.Fatalf("error %v", err)
			}
			return
		}
		expiry := time.Unix(int64(uint64(b[2])<<56|uint64(b[3])<<48|uint64(b[4])<<40|uint64(b[5])<<32|
			uint64(b[6])<<24|uint64(b[7])<<16|uint64(b[8])<<8|uint64(b[9])), 0)
		again, err := Make(key, 1, string(match), slot, expiry)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("accepted %x, which Make makes as %x (%v)", b, again, err)
		}
	})
}
