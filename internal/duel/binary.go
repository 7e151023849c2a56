package duel

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// BinarySize is the length of a State's encoding (AppendBinary).
const BinarySize = 8 + 8 + 2*4 + 4*4 + 2*4 + 2 + 2

// AppendBinary appends the state's encoding, BinarySize bytes, every field in the order
// declared, little-endian (encoding.BinaryAppender). A state shared with another machine (a
// relay's state snapshot) travels so.
func (s *State) AppendBinary(b []byte) ([]byte, error) {
	b = binary.LittleEndian.AppendUint64(b, s.Tick)
	b = binary.LittleEndian.AppendUint64(b, s.RNG)
	for _, p := range s.Paddles {
		b = binary.LittleEndian.AppendUint32(b, uint32(p.Y))
	}
	for _, v := range [...]int32{s.Ball.X, s.Ball.Y, s.Ball.VX, s.Ball.VY} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range s.Score {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	b = binary.LittleEndian.AppendUint16(b, s.Serve)
	b = binary.LittleEndian.AppendUint16(b, s.Hits)
	return b, nil
}

// ErrState is the error UnmarshalBinary returns, wrapped, for bytes that are no State.
var ErrState = errors.New("duel: not a state")

// UnmarshalBinary sets the state to the one encoded in data by AppendBinary. It checks what a
// state of the game can be (paddles and ball on the field, speeds a game reaches, a serve's
// pause), so that bytes from another machine give a state the game can run, or an error
// wrapping ErrState.
func (s *State) UnmarshalBinary(data []byte) error {
	if len(data) != BinarySize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrState, len(data), BinarySize)
	}
	le := binary.LittleEndian
	var t State
	t.Tick, t.RNG = le.Uint64(data), le.Uint64(data[8:])
	t.Paddles[0].Y, t.Paddles[1].Y = int32(le.Uint32(data[16:])), int32(le.Uint32(data[20:]))
	t.Ball = Ball{X: int32(le.Uint32(data[24:])), Y: int32(le.Uint32(data[28:])), VX: int32(le.Uint32(data[32:])), VY: int32(le.Uint32(data[36:]))}
	t.Score = [2]uint32{le.Uint32(data[40:]), le.Uint32(data[44:])}
	t.Serve, t.Hits = le.Uint16(data[48:]), le.Uint16(data[50:])
	const lowest = (Height - PaddleHeight) * Unit
	for i, p := range t.Paddles {
		if p.Y < 0 || p.Y > lowest {
			return fmt.Errorf("%w: paddle %d at %d, off the field", ErrState, i, p.Y)
		}
	}
	b := t.Ball
	switch {
	case b.X < 0 || b.X >= Width*Unit || b.Y < 0 || b.Y >= Height*Unit:
		return fmt.Errorf("%w: the ball at (%d, %d), off the field", ErrState, b.X, b.Y)
	case b.VX == 0 || b.VX < -MaxSpeed || b.VX > MaxSpeed:
		return fmt.Errorf("%w: the ball's speed across %d, not a game's", ErrState, b.VX)
	case b.VY < -MaxSlope || b.VY > MaxSlope:
		return fmt.Errorf("%w: the ball's slope %d, not a game's", ErrState, b.VY)
	case t.Serve > ServeDelay:
		return fmt.Errorf("%w: a serve in %d ticks, over %d", ErrState, t.Serve, ServeDelay)
	}
	*s = t
	return nil
}
