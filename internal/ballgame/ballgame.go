// Package ballgame is the benchmarks' game: balls in fixed point flying in a box under gravity
// and bouncing off its walls, pushed sideways by the players' inputs, with every state kept in
// slots as a rollback game keeps them. Its arithmetic is integer, so two machines agree to the
// bit; its cost a tick grows with the balls.
package ballgame

// The box and the forces, in fixed point of Unit.
const (
	Unit      = 1 << 16
	BoxWidth  = 320 * Unit
	BoxHeight = 200 * Unit
	Gravity   = Unit / 8
)

// Ball is one ball's position and velocity.
type Ball struct{ X, Y, VX, VY int64 }

// State is the game's whole state.
type State struct {
	Tick  uint64
	Balls []Ball
}

// Game is the state and the slots it is saved in.
type Game struct {
	State State
	Slots []State
}

// New returns a game of n balls, spread over the box, with slots saved states.
func New(n, slots int) *Game {
	g := &Game{State: State{Balls: make([]Ball, n)}, Slots: make([]State, slots)}
	for i := range g.Slots {
		g.Slots[i].Balls = make([]Ball, n)
	}
	for i := range g.State.Balls {
		b := &g.State.Balls[i]
		b.X, b.Y = int64(i*7919)%BoxWidth, int64(i*104729)%BoxHeight
		b.VX, b.VY = int64(i%13-6)*Unit/4, int64(i%7-3)*Unit/4
	}
	return g
}

// Step runs tick with a sideways push (the players' inputs' doing: each input's low two bits
// less one, summed, in the benchmarks).
func (g *Game) Step(tick uint64, push int64) {
	g.State.Tick = tick
	for i := range g.State.Balls {
		b := &g.State.Balls[i]
		b.VY += Gravity
		b.VX += push
		b.X += b.VX
		b.Y += b.VY
		if b.X < 0 || b.X >= BoxWidth {
			b.VX = -b.VX
			b.X = min(max(b.X, 0), BoxWidth-1)
		}
		if b.Y < 0 || b.Y >= BoxHeight {
			b.VY = -b.VY
			b.Y = min(max(b.Y, 0), BoxHeight-1)
		}
	}
}

// Save saves the state in slot and returns its checksum (FNV-1a over every field).
func (g *Game) Save(slot int) uint64 {
	s := &g.Slots[slot]
	s.Tick = g.State.Tick
	copy(s.Balls, g.State.Balls)
	h := uint64(14695981039346656037) ^ g.State.Tick
	for _, b := range g.State.Balls {
		h = (h ^ uint64(b.X)) * 1099511628211
		h = (h ^ uint64(b.Y)) * 1099511628211
		h = (h ^ uint64(b.VX)) * 1099511628211
		h = (h ^ uint64(b.VY)) * 1099511628211
	}
	return h
}

// Load goes back to the state saved in slot.
func (g *Game) Load(slot int) {
	g.State.Tick = g.Slots[slot].Tick
	copy(g.State.Balls, g.Slots[slot].Balls)
}
