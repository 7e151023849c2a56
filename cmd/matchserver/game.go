package main

import (
	"encoding/binary"
	"fmt"

	"github.com/gameloop-go/gameloop"
)

// arenaSize is the side of the square arena, in units.
const arenaSize = 1 << 16

// entities is the number of things moving in an arena: the player and three drones.
const entities = 4

// arena is the match's simulation: a player steered by its client's input and drones that
// bounce off the walls, in integer units, so that it is deterministic on any machine. Its start
// is decided by its seed, which the recording keeps in its Meta.
type arena struct {
	seed       uint64
	x, y       [entities]int64
	vx, vy     [entities]int64
	inputs     uint64
	lastUpdate uint64
}

// newArena returns the arena a seed starts.
func newArena(seed uint64) *arena {
	a := &arena{seed: seed}
	s := seed
	for i := range entities {
		s = s*6364136223846793005 + 1442695040888963407 // a linear congruential step
		a.x[i], a.y[i] = int64(s>>40)%arenaSize, int64(s>>20)%arenaSize
		a.vx[i], a.vy[i] = int64(s>>8)%512-256, int64(s>>16)%512-256
	}
	return a
}

// meta is what a recording keeps to start the same arena again: its seed.
func (a *arena) meta() []byte { return binary.BigEndian.AppendUint64(nil, a.seed) }

// arenaFromMeta returns the arena a recording's meta starts.
func arenaFromMeta(meta []byte) (*arena, error) {
	if len(meta) != 8 {
		return nil, fmt.Errorf("meta of %d bytes, want an 8-byte seed", len(meta))
	}
	return newArena(binary.BigEndian.Uint64(meta)), nil
}

// Input steers the player: the arrow keys change its velocity.
func (a *arena) Input(in *gameloop.Input) error {
	if in.Kind != gameloop.KeyPress {
		return nil
	}
	a.inputs++
	switch in.Key {
	case gameloop.KeyLeft:
		a.vx[0] -= 64
	case gameloop.KeyRight:
		a.vx[0] += 64
	case gameloop.KeyUp:
		a.vy[0] -= 64
	case gameloop.KeyDown:
		a.vy[0] += 64
	}
	return nil
}

// Update moves everything one step, bouncing off the walls.
func (a *arena) Update(u *gameloop.Update) error {
	for i := range entities {
		a.x[i], a.vx[i] = bounce(a.x[i]+a.vx[i], a.vx[i])
		a.y[i], a.vy[i] = bounce(a.y[i]+a.vy[i], a.vy[i])
	}
	a.lastUpdate = u.Tick
	return nil
}

func bounce(p, v int64) (int64, int64) {
	switch {
	case p < 0:
		return -p, -v
	case p >= arenaSize:
		return 2*(arenaSize-1) - p, -v
	}
	return p, v
}

// Checksum hashes the whole state with FNV-1a, for replays to compare. It allocates nothing:
// it runs after every tick.
func (a *arena) Checksum() uint64 {
	h := uint64(14695981039346656037)
	put := func(v int64) {
		for i := range 8 {
			h ^= uint64(v) >> (8 * i) & 0xff
			h *= 1099511628211
		}
	}
	for i := range entities {
		put(a.x[i])
		put(a.y[i])
		put(a.vx[i])
		put(a.vy[i])
	}
	put(int64(a.inputs))
	put(int64(a.lastUpdate))
	return h
}
