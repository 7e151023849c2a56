package duel

import (
	"bytes"
	"errors"
	"testing"
)

// A state encoded and decoded is the same state, with the same checksum, at every tick of a
// game; bytes cut short, or a paddle or the ball off the field, are refused.
func TestBinaryRoundTrip(t *testing.T) {
	s := New(42)
	bot := [2]Bot{}
	for range 5000 {
		b, err := s.AppendBinary(nil)
		if err != nil || len(b) != BinarySize {
			t.Fatalf("tick %d: %d bytes, %v", s.Tick, len(b), err)
		}
		var back State
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("tick %d: %v", s.Tick, err)
		}
		if back != s || back.Checksum() != s.Checksum() {
			t.Fatalf("tick %d: %+v came back as %+v", s.Tick, s, back)
		}
		s.Step([2]Input{bot[0].Input(&s, 0), bot[1].Input(&s, 1)})
	}
	good, _ := s.AppendBinary(nil)
	for _, bad := range [][]byte{good[:BinarySize-1], append(bytes.Clone(good), 0), edit(good, 19, 0xFF), edit(good, 27, 0x7F), edit(good, 49, 0x7F)} {
		if err := new(State).UnmarshalBinary(bad); !errors.Is(err, ErrState) {
			t.Errorf("% x: %v, want ErrState", bad, err)
		}
	}
}

func edit(b []byte, i int, v byte) []byte {
	b = bytes.Clone(b)
	b[i] = v
	return b
}

// FuzzUnmarshalBinary: whatever the bytes, UnmarshalBinary gives an error or a state that
// encodes back to them and that the game runs.
func FuzzUnmarshalBinary(f *testing.F) {
	s := New(7)
	good, _ := s.AppendBinary(nil)
	f.Add(good)
	f.Fuzz(func(t *testing.T, data []byte) {
		var st State
		if err := st.UnmarshalBinary(data); err != nil {
			return
		}
		back, _ := st.AppendBinary(nil)
		if !bytes.Equal(back, data) {
			t.Fatalf("% x decoded and encoded back as % x", data, back)
		}
		for range 200 {
			st.Step([2]Input{Up, Down})
		}
	})
}
