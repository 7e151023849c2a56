// Package bounce is the simulation of the bounce demo: balls flying in a box and bouncing off its
// walls, advanced in fixed steps. It draws nothing and reads no clock: a renderer reads the
// balls' previous and current positions (to interpolate) and velocities (to extrapolate).
//
// The simulation is exact. Positions and velocities are integers in fixed point (Unit units per
// dot, where a dot is the smallest thing a renderer draws, such as half a terminal cell), the
// random numbers come from a generator seeded by the caller and kept in the state, and the
// only inputs are steps of a given duration, keys, gamepads and resizes. The same seed, steps and input
// in the same order give the same state on every machine, and Checksum tells two states apart.
package bounce

import (
	"time"

	"github.com/gameloop-go/gameloop"
)

// Unit is the number of fixed-point units in one dot.
const Unit = 1 << 16

// Limits on the simulation's parameters.
const (
	// MaxBalls is the most balls the box holds; adding more does nothing.
	MaxBalls = 64
	// MinSpeed and MaxSpeed bound the speed of a new ball on each axis, in dots per second.
	MinSpeed = 6
	MaxSpeed = 30
	// Gravity is the downward acceleration when gravity is on, in dots per second squared.
	Gravity = 60
	// StickAccel is the acceleration of every ball with a gamepad's left stick held fully
	// over, in dots per second squared; less in proportion to how far it is held.
	StickAccel = 60
)

// Config describes a new simulation.
type Config struct {
	// Width and Height are the size of the box in dots; each is at least 1.
	Width, Height int
	// Balls is the number of balls to start with, at most MaxBalls.
	Balls int
	// Seed seeds the random numbers that place new balls. Two simulations with the same seed
	// and the same input are the same.
	Seed uint64
}

// Ball is one ball. Positions are in fixed point (Unit per dot) from the box's top-left
// corner, velocities in fixed-point units per second.
type Ball struct {
	// PrevX, PrevY is where the ball was before the last step; X, Y where it is now.
	PrevX, PrevY int64
	X, Y         int64
	// VX, VY is the ball's velocity.
	VX, VY int64
	// Color is the ball's color, an index a renderer maps to its palette.
	Color uint8
}

// Prev returns the ball's position before the last step, in dots.
func (b *Ball) Prev() gameloop.Vec2 { return gameloop.Vec2{X: toDots(b.PrevX), Y: toDots(b.PrevY)} }

// Pos returns the ball's position now, in dots.
func (b *Ball) Pos() gameloop.Vec2 { return gameloop.Vec2{X: toDots(b.X), Y: toDots(b.Y)} }

// Vel returns the ball's velocity, in dots per second.
func (b *Ball) Vel() gameloop.Vec2 { return gameloop.Vec2{X: toDots(b.VX), Y: toDots(b.VY)} }

func toDots(v int64) float64 { return float64(v) / Unit }

// Colors is the number of distinct ball colors.
const Colors = 6

// Sim is the state of the simulation. It is not safe for concurrent use.
type Sim struct {
	width, height int64 // the box, in dots
	ticks         uint64
	elapsed       time.Duration // game time simulated
	rng           uint64        // splitmix64 state
	gravity       bool
	balls         []Ball
	// sticks holds each gamepad's left stick, quantised (gameloop.AxisMax fully over), as
	// the inputs left it: integers, so that every machine accelerates the balls alike.
	sticks [gameloop.MaxGamepads][2]int16
}

// New returns a simulation for cfg. A size below 1 is taken as 1, a ball count beyond
// MaxBalls as MaxBalls.
func New(cfg Config) *Sim {
	s := &Sim{rng: cfg.Seed, balls: make([]Ball, 0, MaxBalls)}
	s.Resize(cfg.Width, cfg.Height)
	for range min(cfg.Balls, MaxBalls) {
		s.AddBall()
	}
	return s
}

// next returns the next number of a splitmix64 sequence: small, fast, and with its whole state
// in one word that the checksum covers.
func (s *Sim) next() uint64 {
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// between returns a number in [lo, hi).
func (s *Sim) between(lo, hi int64) int64 {
	return lo + int64(s.next()%uint64(hi-lo))
}

// AddBall adds a ball at a random place with a random velocity; it does nothing when the box
// holds MaxBalls already.
func (s *Sim) AddBall() {
	if len(s.balls) >= MaxBalls {
		return
	}
	var b Ball
	b.X = s.between(0, s.maxX()+1)
	b.Y = s.between(0, s.maxY()+1)
	b.PrevX, b.PrevY = b.X, b.Y
	b.VX = s.between(MinSpeed*Unit, MaxSpeed*Unit)
	b.VY = s.between(MinSpeed*Unit, MaxSpeed*Unit)
	if s.next()&1 == 0 {
		b.VX = -b.VX
	}
	if s.next()&1 == 0 {
		b.VY = -b.VY
	}
	b.Color = uint8(len(s.balls) % Colors)
	s.balls = append(s.balls, b)
}

// RemoveBall removes the most recently added ball, if any.
func (s *Sim) RemoveBall() {
	if n := len(s.balls); n > 0 {
		s.balls = s.balls[:n-1]
	}
}

// SetGravity turns gravity on or off.
func (s *Sim) SetGravity(on bool) { s.gravity = on }

// Gravity reports whether gravity is on.
func (s *Sim) Gravity() bool { return s.gravity }

// maxX and maxY are the largest coordinates a ball may have.
func (s *Sim) maxX() int64 { return (s.width - 1) * Unit }
func (s *Sim) maxY() int64 { return (s.height - 1) * Unit }

// Resize changes the size of the box, in dots; balls outside it are moved to its edge, with no
// motion to blend. A size below 1 is taken as 1.
func (s *Sim) Resize(width, height int) {
	s.width, s.height = int64(max(width, 1)), int64(max(height, 1))
	for i := range s.balls {
		b := &s.balls[i]
		if b.X > s.maxX() || b.Y > s.maxY() {
			b.X, b.Y = min(b.X, s.maxX()), min(b.Y, s.maxY())
			b.PrevX, b.PrevY = b.X, b.Y
		}
		b.PrevX, b.PrevY = min(b.PrevX, s.maxX()), min(b.PrevY, s.maxY())
	}
}

// Size returns the size of the box in dots.
func (s *Sim) Size() (width, height int) { return int(s.width), int(s.height) }

// Apply applies one input: Space adds a ball, Backspace or Delete removes one, G toggles
// gravity, the arrow keys push every ball. Other input is ignored; a Resize is not applied
// here, because the box is measured in dots and only the renderer knows how many a cell holds:
// it calls Resize.
func (s *Sim) Apply(in *gameloop.Input) {
	switch in.Kind {
	case gameloop.KeyPress:
		s.applyKey(in.Key)
	case gameloop.GamepadPress:
		s.applyButton(in.PadButton)
	case gameloop.GamepadMove:
		if int(in.Gamepad) < len(s.sticks) && (in.Axis == gameloop.GamepadLeftX || in.Axis == gameloop.GamepadLeftY) {
			s.sticks[in.Gamepad][in.Axis-gameloop.GamepadLeftX] = in.AxisValue
		}
	case gameloop.GamepadDisconnect:
		if int(in.Gamepad) < len(s.sticks) {
			s.sticks[in.Gamepad] = [2]int16{}
		}
	}
}

// applyButton applies a gamepad's button: the face buttons as space (South), backspace (East)
// and g (North), the d-pad as the arrow keys.
func (s *Sim) applyButton(b gameloop.GamepadButton) {
	switch b {
	case gameloop.GamepadSouth:
		s.applyKey(gameloop.KeySpace)
	case gameloop.GamepadEast:
		s.applyKey(gameloop.KeyBackspace)
	case gameloop.GamepadNorth:
		s.applyKey(gameloop.KeyG)
	case gameloop.GamepadLeft:
		s.applyKey(gameloop.KeyLeft)
	case gameloop.GamepadRight:
		s.applyKey(gameloop.KeyRight)
	case gameloop.GamepadUp:
		s.applyKey(gameloop.KeyUp)
	case gameloop.GamepadDown:
		s.applyKey(gameloop.KeyDown)
	}
}

func (s *Sim) applyKey(k gameloop.Key) {
	const push = 8 * Unit
	switch k {
	case gameloop.KeySpace:
		s.AddBall()
	case gameloop.KeyBackspace, gameloop.KeyDelete:
		s.RemoveBall()
	case gameloop.KeyG:
		s.gravity = !s.gravity
	case gameloop.KeyLeft:
		s.push(-push, 0)
	case gameloop.KeyRight:
		s.push(push, 0)
	case gameloop.KeyUp:
		s.push(0, -push)
	case gameloop.KeyDown:
		s.push(0, push)
	}
}

func (s *Sim) push(dx, dy int64) {
	for i := range s.balls {
		s.balls[i].VX += dx
		s.balls[i].VY += dy
	}
}

// Step advances the simulation by dt of game time (one tick: Update.DT). The motion is
// integer arithmetic, truncated toward zero, so it is exact and the same everywhere.
func (s *Sim) Step(dt time.Duration) {
	s.ticks++
	s.elapsed += dt
	ns := int64(dt)
	var sx, sy int64 // the sticks' sum, at most MaxGamepads × AxisMax
	for _, st := range &s.sticks {
		sx += int64(st[0])
		sy += int64(st[1])
	}
	ax := scale(StickAccel*Unit*sx/gameloop.AxisMax, ns)
	ay := scale(StickAccel*Unit*sy/gameloop.AxisMax, ns)
	for i := range s.balls {
		b := &s.balls[i]
		b.PrevX, b.PrevY = b.X, b.Y
		if s.gravity {
			b.VY += Gravity * Unit * ns / int64(time.Second)
		}
		b.VX += ax
		b.VY += ay
		b.X, b.VX = bounce(b.X+scale(b.VX, ns), b.VX, s.maxX())
		b.Y, b.VY = bounce(b.Y+scale(b.VY, ns), b.VY, s.maxY())
	}
}

// scale returns v (units per second) times ns nanoseconds, in units, without overflowing for
// any speed a ball can reach and any step a loop takes (up to an hour).
func scale(v, ns int64) int64 {
	sec, rem := ns/int64(time.Second), ns%int64(time.Second)
	return v*sec + v*rem/int64(time.Second)
}

// bounce folds a coordinate x, reached from [0, hi] with velocity v, back into [0, hi] as if
// reflected off the walls each time it crossed one, and returns it with the velocity. Unfolded,
// the walls repeat every 2*hi: in the first half of a period the ball moves as it did, in the
// second it is mirrored and moves the other way.
func bounce(x, v, hi int64) (int64, int64) {
	if hi == 0 {
		return 0, v
	}
	period := 2 * hi
	m := x % period
	if m < 0 {
		m += period
	}
	if m > hi {
		return period - m, -v
	}
	return m, v
}

// Balls returns the balls. The slice is the simulation's own: read it, don't keep it past the
// next call that changes the simulation.
func (s *Sim) Balls() []Ball { return s.balls }

// Ticks returns the number of steps taken.
func (s *Sim) Ticks() uint64 { return s.ticks }

// Elapsed returns the game time simulated: the sum of the steps.
func (s *Sim) Elapsed() time.Duration { return s.elapsed }

// Checksum returns a 64-bit FNV-1a hash of the whole state: size, steps, game time, the
// random generator, gravity, every field of every ball and the gamepads' sticks where one is
// held (so that a state with none held sums as it did before gamepads). Equal states have equal checksums;
// a replay that diverges shows up as a different one.
func (s *Sim) Checksum() uint64 {
	h := uint64(fnvOffset)
	h = mix(h, uint64(s.width))
	h = mix(h, uint64(s.height))
	h = mix(h, s.ticks)
	h = mix(h, uint64(s.elapsed))
	h = mix(h, s.rng)
	var g uint64
	if s.gravity {
		g = 1
	}
	h = mix(h, g)
	h = mix(h, uint64(len(s.balls)))
	for i := range s.balls {
		b := &s.balls[i]
		for _, v := range [...]int64{b.PrevX, b.PrevY, b.X, b.Y, b.VX, b.VY, int64(b.Color)} {
			h = mix(h, uint64(v))
		}
	}
	for i, st := range &s.sticks {
		if st != [2]int16{} {
			h = mix(h, uint64(i))
			h = mix(h, uint64(uint16(st[0]))|uint64(uint16(st[1]))<<16)
		}
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix hashes the eight bytes of v, little end first, into h.
func mix(h, v uint64) uint64 {
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}
