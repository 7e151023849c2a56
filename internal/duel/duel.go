// Package duel is the game of the duel demo (cmd/duel): two players, a paddle each, one ball,
// on a fixed field, advanced one tick at a time by both players' inputs. It is written to be
// played over a network with rollback (package netplay), which asks three things of a game, and
// this one shows them:
//
//   - The simulation is exact. Positions and velocities are integers in fixed point (Unit units
//     a cell), random numbers come from a generator whose state is part of the game's, and the
//     only thing that changes the state is Step with both players' inputs. The same seed and
//     inputs give the same state on every machine; Checksum tells two states apart.
//   - Saving and loading are copies. State is a plain value of fixed size, with no slice, map
//     or pointer: `saved := state` saves it and `state = saved` loads it, at no cost beyond the
//     copy and with no allocation.
//   - An input is a small fixed-size value (Input, one byte) that travels as bytes (Put, Get).
//
// The field is Width by Height cells. The left paddle is player 0's, the right one player 1's.
// A point is scored when the ball passes the other player's paddle; the ball is then served
// again from the middle, after a pause.
package duel

// Unit is the number of fixed-point units in one cell of the field.
const Unit = 1 << 16

// The field and what is on it, in cells and ticks. The game runs at TickRate ticks a second;
// speeds are per tick.
const (
	// Width and Height are the size of the field in cells: the inside of an 80 by 24 terminal
	// with a border around it and two rows below.
	Width  = 78
	Height = 20
	// TickRate is the number of ticks a second the game is made for.
	TickRate = 60
	// PaddleHeight is a paddle's height in cells; a paddle is one cell wide.
	PaddleHeight = 4
	// PaddleSpeed is how far a paddle moves in a tick, in units: half a cell, 30 cells a second.
	PaddleSpeed = Unit / 2
	// ServeSpeed is the ball's speed across the field when served, in units a tick; each hit of
	// a paddle adds a sixteenth of it, up to MaxSpeed.
	ServeSpeed = Unit * 2 / 5
	// MaxSpeed is the most the ball moves across the field in a tick, in units: under a cell,
	// so that it cannot pass a paddle without crossing the paddle's column.
	MaxSpeed = Unit * 9 / 10
	// MaxSlope is the most the ball moves up or down in a tick, in units, when it leaves a
	// paddle at the paddle's very end.
	MaxSlope = Unit * 3 / 5
	// ServeDelay is the number of ticks the ball waits in the middle before a serve.
	ServeDelay = 45
)

// Columns of the paddles, in cells from the left of the field.
const (
	leftColumn  = 1
	rightColumn = Width - 2
)

// Input is one player's input for one tick: a set of the bits Up and Down. Its zero value is
// no input.
type Input uint8

// The bits of an Input.
const (
	// Up moves the player's paddle up.
	Up Input = 1 << iota
	// Down moves it down. Up and Down together cancel out.
	Down
)

// InputSize is the number of bytes an Input takes as bytes (Put, Get).
const InputSize = 1

// Put writes in to b[0]. b must hold InputSize bytes.
func (in Input) Put(b []byte) { b[0] = byte(in) }

// Get returns the Input that Put wrote to b[0]; bits that no Input has are dropped, so that a
// value read from the network is always a valid input.
func Get(b []byte) Input { return Input(b[0]) & (Up | Down) }

// Paddle is one player's paddle.
type Paddle struct {
	// Y is the paddle's top edge, in units from the field's top: 0 to (Height-PaddleHeight)*Unit.
	Y int32
}

// Ball is the ball: a point on the field, drawn in the cell it is in.
type Ball struct {
	// X, Y is where the ball is, in units from the field's top-left corner.
	X, Y int32
	// VX, VY is its velocity, in units a tick.
	VX, VY int32
}

// State is the whole state of the game, a plain value: copying it saves it, assigning it
// loads it. Its zero value is not a game; New returns one.
type State struct {
	// Tick is the number of ticks played.
	Tick uint64
	// RNG is the state of the random numbers (splitmix64) that serves use.
	RNG uint64
	// Paddles are the players' paddles, player 0's on the left.
	Paddles [2]Paddle
	// Ball is the ball.
	Ball Ball
	// Score is each player's points.
	Score [2]uint32
	// Serve is the number of ticks until the ball is served; 0 while it is in play.
	Serve uint16
	// Hits is the number of times the ball has hit a paddle since it was served.
	Hits uint16
}

// New returns the state at the start of a game seeded with seed: the paddles in the middle, the
// ball about to be served. Two games with the same seed and the same inputs stay the same.
func New(seed uint64) State {
	s := State{RNG: seed}
	mid := int32((Height - PaddleHeight) * Unit / 2)
	s.Paddles[0].Y, s.Paddles[1].Y = mid, mid
	s.serve(int(s.next() & 1))
	return s
}

// next returns the next number of the splitmix64 sequence whose state is s.RNG.
func (s *State) next() uint64 {
	s.RNG += 0x9e3779b97f4a7c15
	z := s.RNG
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// serve puts the ball in the middle, to be served after ServeDelay ticks toward player to.
func (s *State) serve(to int) {
	b := &s.Ball
	b.X, b.Y = Width*Unit/2, Height*Unit/2
	b.VX = ServeSpeed
	if to == 0 {
		b.VX = -ServeSpeed
	}
	// A slope in [-MaxSlope/2, MaxSlope/2], never flat.
	b.VY = int32(s.next()%uint64(MaxSlope)) - MaxSlope/2
	if b.VY == 0 {
		b.VY = Unit / 8
	}
	s.Serve = ServeDelay
	s.Hits = 0
}

// Step advances the game by one tick with both players' inputs: inputs[0] is player 0's (the
// left paddle). It allocates nothing and costs the same every tick.
func (s *State) Step(inputs [2]Input) {
	s.Tick++
	for i := range s.Paddles {
		s.Paddles[i].move(inputs[i])
	}
	if s.Serve > 0 {
		s.Serve--
		return
	}
	b := &s.Ball
	prevX := b.X
	b.X += b.VX
	b.Y += b.VY
	// Off the top and bottom walls, reflected.
	const bottom = Height*Unit - 1
	switch {
	case b.Y < 0:
		b.Y, b.VY = -b.Y, -b.VY
	case b.Y > bottom:
		b.Y, b.VY = 2*bottom-b.Y, -b.VY
	}
	// The paddles' faces: the ball turns back where it crosses one within the paddle's span.
	const leftFace, rightFace = (leftColumn + 1) * Unit, rightColumn * Unit
	switch {
	case b.VX < 0 && prevX >= leftFace && b.X < leftFace && s.Paddles[0].covers(b.Y):
		b.X = 2*leftFace - b.X
		s.hit(&s.Paddles[0])
	case b.VX > 0 && prevX < rightFace && b.X >= rightFace && s.Paddles[1].covers(b.Y):
		b.X = 2*rightFace - 1 - b.X
		s.hit(&s.Paddles[1])
	case b.X < 0:
		s.Score[1]++
		s.serve(0)
	case b.X >= Width*Unit:
		s.Score[0]++
		s.serve(1)
	}
}

// move moves the paddle by one tick of in, held to the field.
func (p *Paddle) move(in Input) {
	const lowest = (Height - PaddleHeight) * Unit
	switch in & (Up | Down) {
	case Up:
		p.Y = max(p.Y-PaddleSpeed, 0)
	case Down:
		p.Y = min(p.Y+PaddleSpeed, lowest)
	}
}

// covers reports whether the paddle's span holds y.
func (p *Paddle) covers(y int32) bool { return y >= p.Y && y < p.Y+PaddleHeight*Unit }

// hit sends the ball back off paddle p, a little faster, at a slope that depends on where it
// hit: flat in the middle, MaxSlope at the ends.
func (s *State) hit(p *Paddle) {
	b := &s.Ball
	s.Hits++
	speed := min(ServeSpeed+int32(s.Hits)*(ServeSpeed/16), MaxSpeed)
	if b.VX > 0 {
		speed = -speed
	}
	b.VX = speed
	const half = PaddleHeight * Unit / 2
	off := b.Y - (p.Y + half) // in [-half, half)
	b.VY = int32(int64(off) * MaxSlope / half)
}

// Checksum returns a 64-bit FNV-1a hash of every field of the state, in the order they are
// declared. Equal states have equal checksums; two peers whose checksums for a tick differ have
// diverged.
func (s *State) Checksum() uint64 {
	h := uint64(fnvOffset)
	h = mix(h, s.Tick)
	h = mix(h, s.RNG)
	for _, p := range s.Paddles {
		h = mix(h, uint64(uint32(p.Y)))
	}
	for _, v := range [...]int32{s.Ball.X, s.Ball.Y, s.Ball.VX, s.Ball.VY} {
		h = mix(h, uint64(uint32(v)))
	}
	for _, v := range s.Score {
		h = mix(h, uint64(v))
	}
	h = mix(h, uint64(s.Serve))
	h = mix(h, uint64(s.Hits))
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix hashes the eight bytes of v, low byte first, into h.
func mix(h, v uint64) uint64 {
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}

// Cell returns the cell of the field the ball is drawn in.
func (b *Ball) Cell() (x, y int) { return int(b.X / Unit), int(b.Y / Unit) }

// Rows returns the first row of the paddle and the number of rows it covers: PaddleHeight, or
// one more when it is between two rows.
func (p *Paddle) Rows() (top, n int) {
	top = int(p.Y / Unit)
	if p.Y%Unit != 0 {
		return top, PaddleHeight + 1
	}
	return top, PaddleHeight
}

// Codec encodes an Input as InputSize bytes and back, for a network session (it has the
// methods of netplay.Codec[Input]). Its zero value is ready to use; it allocates nothing.
type Codec struct{}

// Size returns InputSize.
func (Codec) Size() int { return InputSize }

// Put encodes in into dst, which holds InputSize bytes.
func (Codec) Put(dst []byte, in Input) { in.Put(dst) }

// Get decodes src, which holds InputSize bytes; every byte decodes to a valid Input.
func (Codec) Get(src []byte) Input { return Get(src) }
