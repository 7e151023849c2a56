package bounce

import (
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
)

const tick = 100 * time.Millisecond

// play runs a fixed script of steps and input on a new simulation and returns it.
func play(seed uint64) *Sim {
	s := New(Config{Width: 160, Height: 44, Balls: 5, Seed: seed})
	for i := range 500 {
		switch i {
		case 50:
			s.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
		case 120:
			s.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyG})
		case 200:
			s.Resize(90, 30)
		case 300:
			s.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyLeft})
		case 400:
			s.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyBackspace})
		}
		s.Step(tick)
	}
	return s
}

func TestDeterministic(t *testing.T) {
	a, b := play(42), play(42)
	if a.Checksum() != b.Checksum() {
		t.Fatalf("same seed and input, checksums %x and %x", a.Checksum(), b.Checksum())
	}
	if c := play(43); c.Checksum() == a.Checksum() {
		t.Fatalf("seeds 42 and 43 give the same checksum %x", a.Checksum())
	}
}

// The simulation is integer arithmetic, so it gives the same state on every machine: these are
// the checksums of the script on linux/amd64, and the test passes on js/wasm too (run it there
// with PATH=$(go env GOROOT)/lib/wasm:$PATH GOOS=js GOARCH=wasm go test ./internal/bounce), so a
// session recorded in a browser replays natively.
func TestChecksumIsPortable(t *testing.T) {
	for seed, want := range map[uint64]uint64{42: 0xd298aaf0dbb0549e, 7: 0x7ae2430e52f9ff4a} {
		if got := play(seed).Checksum(); got != want {
			t.Errorf("seed %d: checksum %#x, want %#x (linux/amd64's)", seed, got, want)
		}
	}
}

// TestChecksumCoversState checks that every part of the state changes the checksum.
func TestChecksumCoversState(t *testing.T) {
	base := New(Config{Width: 40, Height: 20, Balls: 2, Seed: 1})
	sum := base.Checksum()
	changes := map[string]func(s *Sim){
		"step":     func(s *Sim) { s.Step(tick) },
		"zero dt":  func(s *Sim) { s.Step(0) },
		"resize":   func(s *Sim) { s.Resize(41, 20) },
		"gravity":  func(s *Sim) { s.SetGravity(true) },
		"add":      func(s *Sim) { s.AddBall() },
		"remove":   func(s *Sim) { s.RemoveBall() },
		"rng":      func(s *Sim) { s.next() },
		"prev x":   func(s *Sim) { s.balls[0].PrevX++ },
		"velocity": func(s *Sim) { s.balls[1].VY++ },
		"color":    func(s *Sim) { s.balls[1].Color++ },
	}
	for name, change := range changes {
		s := New(Config{Width: 40, Height: 20, Balls: 2, Seed: 1})
		change(s)
		if s.Checksum() == sum {
			t.Errorf("%s: checksum unchanged", name)
		}
	}
}

func TestBallsStayInTheBox(t *testing.T) {
	s := New(Config{Width: 7, Height: 3, Balls: MaxBalls, Seed: 9})
	s.SetGravity(true)
	for i := range 2000 {
		// Steps of every size, up to many crossings of the box in one.
		s.Step(time.Duration(i%37) * 37 * time.Millisecond)
		for j, b := range s.Balls() {
			for _, v := range [...]struct{ v, hi int64 }{{b.X, s.maxX()}, {b.Y, s.maxY()}, {b.PrevX, s.maxX()}, {b.PrevY, s.maxY()}} {
				if v.v < 0 || v.v > v.hi {
					t.Fatalf("step %d: ball %d at %d outside [0, %d]", i, j, v.v, v.hi)
				}
			}
		}
	}
}

func TestBounce(t *testing.T) {
	const hi = 10
	tests := []struct {
		x, v   int64
		wantX  int64
		wantV  int64
		reason string
	}{
		{5, 1, 5, 1, "inside"},
		{10, 1, 10, 1, "on the far wall"},
		{12, 1, 8, -1, "past the far wall"},
		{-3, -1, 3, 1, "past the near wall"},
		{25, 1, 5, 1, "past both walls"},
		{-25, -1, 5, 1, "past the near wall, then the far one, then the near one"},
		{0, -1, 0, -1, "on the near wall"},
	}
	for _, tt := range tests {
		x, v := bounce(tt.x, tt.v, hi)
		if x != tt.wantX || v != tt.wantV {
			t.Errorf("%s: bounce(%d, %d, %d) = %d, %d; want %d, %d", tt.reason, tt.x, tt.v, hi, x, v, tt.wantX, tt.wantV)
		}
	}
}

func TestStepMovesByVelocity(t *testing.T) {
	s := New(Config{Width: 1000, Height: 1000, Seed: 1})
	s.balls = append(s.balls, Ball{X: 500 * Unit, Y: 500 * Unit, VX: 10 * Unit, VY: -20 * Unit})
	s.Step(tick)
	b := s.Balls()[0]
	if got, want := b.Pos(), (gameloop.Vec2{X: 501, Y: 498}); got != want {
		t.Errorf("after one step of %v: at %v, want %v", tick, got, want)
	}
	if got, want := b.Prev(), (gameloop.Vec2{X: 500, Y: 500}); got != want {
		t.Errorf("previous position %v, want %v", got, want)
	}
	if got, want := b.Vel(), (gameloop.Vec2{X: 10, Y: -20}); got != want {
		t.Errorf("velocity %v, want %v", got, want)
	}
}

func TestResizeKeepsBallsInside(t *testing.T) {
	s := New(Config{Width: 100, Height: 100, Balls: 20, Seed: 3})
	s.Step(tick)
	s.Resize(10, 5)
	if w, h := s.Size(); w != 10 || h != 5 {
		t.Fatalf("size %dx%d after Resize(10, 5)", w, h)
	}
	for i, b := range s.Balls() {
		if p := b.Pos(); p.X > 9 || p.Y > 4 {
			t.Errorf("ball %d at %v, outside 10x5", i, p)
		}
		if p := b.Prev(); p.X > 9 || p.Y > 4 {
			t.Errorf("ball %d was at %v, outside 10x5", i, p)
		}
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	s := New(Config{Width: 80, Height: 40, Balls: 10, Seed: 1})
	if n := testing.AllocsPerRun(100, func() { s.Step(tick); _ = s.Checksum() }); n != 0 {
		t.Errorf("Step and Checksum allocate %v times", n)
	}
}

func BenchmarkStep(b *testing.B) {
	s := New(Config{Width: 160, Height: 88, Balls: MaxBalls, Seed: 1})
	for b.Loop() {
		s.Step(tick)
	}
}

// TestGamepad: the face buttons act as their keys, the left stick accelerates every ball in
// proportion to how far it is held, the checksum sees a held stick, and a disconnect lets go.
func TestGamepad(t *testing.T) {
	cfg := Config{Width: 200, Height: 100, Balls: 2, Seed: 7}
	keys, pad := New(cfg), New(cfg)
	keys.Apply(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	pad.Apply(&gameloop.Input{Kind: gameloop.GamepadPress, Gamepad: 2, PadButton: gameloop.GamepadSouth})
	if len(pad.Balls()) != 3 || pad.Checksum() != keys.Checksum() {
		t.Fatalf("South: %d balls, want 3 as the space bar gives, and the same state", len(pad.Balls()))
	}
	before := pad.Checksum()
	half := pad.Balls()[0].VX
	pad.Apply(&gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 2, Axis: gameloop.GamepadLeftX, AxisValue: gameloop.QuantizeAxis(0.5)})
	if pad.Checksum() == before {
		t.Fatal("a held stick does not change the checksum")
	}
	pad.Step(time.Second)
	keys.Step(time.Second)
	// Half over for a second: StickAccel/2 dots a second faster, to within the quantisation.
	got := pad.Balls()[0].VX - keys.Balls()[0].VX
	if want := int64(StickAccel * Unit / 2); got < want-Unit/100 || got > want+Unit/100 {
		t.Fatalf("after a second at half: %d units/s faster, want about %d (from %d)", got, want, half)
	}
	pad.Apply(&gameloop.Input{Kind: gameloop.GamepadDisconnect, Gamepad: 2})
	v := pad.Balls()[0].VX
	pad.Step(time.Millisecond)
	keys.Step(time.Millisecond)
	if pad.Balls()[0].VX != v && pad.Balls()[0].VX != -v {
		t.Fatalf("after the gamepad left, the stick still pushes: %d -> %d", v, pad.Balls()[0].VX)
	}
}
