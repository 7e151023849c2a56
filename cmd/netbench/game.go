package main

import "github.com/gameloop-go/gameloop/netplay"

// The game both peers play: balls in a box, pushed sideways by the players' inputs, in
// integer arithmetic so that two peers agree to the bit. Its cost grows with the balls.
const (
	unit    = 1 << 10
	boxW    = 640 * unit
	boxH    = 480 * unit
	gravity = unit / 8
)

type ball struct{ x, y, vx, vy int64 }

type state struct {
	tick  uint64
	balls []ball
}

// game is one peer's game: its state and the states saved in the session's slots.
type game struct {
	st    state
	slots []state
}

func newGame(balls, slots int) *game {
	g := &game{st: state{balls: make([]ball, balls)}, slots: make([]state, slots)}
	for i := range g.slots {
		g.slots[i].balls = make([]ball, balls)
	}
	for i := range g.st.balls {
		b := &g.st.balls[i]
		b.x, b.y = int64(i*7919)%boxW, int64(i*104729)%boxH
		b.vx, b.vy = int64(i%13-6)*unit/4, int64(i%7-3)*unit/4
	}
	return g
}

// LocalInput is a bot's: buttons held for 10 ticks at a time, from a hash of the tick.
func (g *game) LocalInput(h int) uint8 {
	t := (g.st.tick + 1) / 10
	x := t*0x9e3779b97f4a7c15 ^ uint64(h+1)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	return uint8(x & 3)
}

func (g *game) Step(_ uint64, inputs []netplay.PlayerInput[uint8]) error {
	g.st.tick++
	var push int64
	for _, in := range inputs {
		push += int64(in.Input&3) - 1
	}
	for i := range g.st.balls {
		b := &g.st.balls[i]
		b.vy += gravity
		b.vx += push
		b.x += b.vx
		b.y += b.vy
		if b.x < 0 || b.x >= boxW {
			b.vx = -b.vx
			b.x = min(max(b.x, 0), boxW-1)
		}
		if b.y < 0 || b.y >= boxH {
			b.vy = -b.vy
			b.y = min(max(b.y, 0), boxH-1)
		}
	}
	return nil
}

func (g *game) Save(slot int) uint64 {
	s := &g.slots[slot]
	s.tick = g.st.tick
	copy(s.balls, g.st.balls)
	h := uint64(14695981039346656037) ^ g.st.tick
	for _, b := range g.st.balls {
		h = (h ^ uint64(b.x)) * 1099511628211
		h = (h ^ uint64(b.y)) * 1099511628211
		h = (h ^ uint64(b.vx)) * 1099511628211
		h = (h ^ uint64(b.vy)) * 1099511628211
	}
	return h
}

func (g *game) Load(slot int) {
	g.st.tick = g.slots[slot].tick
	copy(g.st.balls, g.slots[slot].balls)
}

// codec encodes an input in one byte.
type codec struct{}

func (codec) Size() int                 { return 1 }
func (codec) Put(dst []byte, in uint8)  { dst[0] = in }
func (codec) Get(src []byte) (in uint8) { return src[0] }
