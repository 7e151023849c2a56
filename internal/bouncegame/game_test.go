package bouncegame

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

func testGame(t *testing.T, glyphs string) (*Game, *gameloop.Loop, *Grid) {
	t.Helper()
	loop, err := gameloop.New(gameloop.Config{TickRate: 10, MaxFPS: 60, Bench: true, Window: gameloop.NewHeadlessWindow(80, 24)})
	if err != nil {
		t.Fatal(err)
	}
	out := NewGrid(80, 24)
	s := Start{Balls: 3, Seed: 1, Width: 80, Height: 24, Glyphs: glyphs, TickRate: 10}
	return New(s, loop, NewView(glyphs, out)), loop, out
}

func char(r rune) *gameloop.Input { return &gameloop.Input{Kind: gameloop.Char, Rune: r} }

func TestControls(t *testing.T) {
	g, loop, _ := testGame(t, "braille")
	for _, want := range []bounce.DrawMode{bounce.Extrapolate, bounce.Neither, bounce.Interpolate} {
		if err := g.Input(char('i')); err != nil {
			t.Fatal(err)
		}
		if g.Mode != want {
			t.Errorf("mode %v after i, want %v", g.Mode, want)
		}
	}
	must := func(in *gameloop.Input) {
		t.Helper()
		if err := g.Input(in); err != nil {
			t.Fatal(err)
		}
	}
	must(char('p'))
	if !loop.Paused() {
		t.Error("not paused after p")
	}
	must(char('p'))
	if loop.Paused() {
		t.Error("still paused after p p")
	}
	for range 5 {
		must(char('+'))
	}
	if st := loop.Stats(); st.TimeScale != MaxTimeScale {
		t.Errorf("time scale %g after five +, want %g", st.TimeScale, float64(MaxTimeScale))
	}
	for range 7 {
		must(char('-'))
	}
	if st := loop.Stats(); st.TimeScale != MinTimeScale {
		t.Errorf("time scale %g after five + and seven -, want %g", st.TimeScale, MinTimeScale)
	}
	must(char(']'))
	must(char(']'))
	if st := loop.Stats(); st.TickRate != 20 {
		t.Errorf("tick rate %d after ] ] from 10, want 20", st.TickRate)
	}
	for range 10 {
		must(char('['))
	}
	if st := loop.Stats(); st.TickRate != 1 {
		t.Errorf("tick rate %d after many [, want 1", st.TickRate)
	}
	must(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	if n := len(g.Sim.Balls()); n != 4 {
		t.Errorf("%d balls after space, want 4", n)
	}
	must(&gameloop.Input{Kind: gameloop.Resize, Width: 42, Height: 13})
	if w, h := g.Sim.Size(); w != 40*2-1 || h != 10*4-1 {
		t.Errorf("box %dx%d dots after a resize to 42x13, want %dx%d", w, h, 40*2-1, 10*4-1)
	}
	for _, in := range []*gameloop.Input{char('q'), {Kind: gameloop.KeyPress, Key: gameloop.KeyEscape}} {
		if err := g.Input(in); !errors.Is(err, gameloop.ErrStop) {
			t.Errorf("%v: %v, want ErrStop", in, err)
		}
	}
}

// Gamepad input reaches the simulation: South adds a ball, East removes one, North toggles
// gravity, and the left stick accelerates the balls until the gamepad is disconnected. After
// each input and a tick, the game's simulation is the one the same inputs give applied to the
// simulation directly (the checksum covers the stick held).
func TestGamepadInput(t *testing.T) {
	g, _, _ := testGame(t, "braille")
	w, h := g.Sim.Size()
	direct := bounce.New(bounce.Config{Width: w, Height: h, Balls: 3, Seed: 1})
	still := bounce.New(bounce.Config{Width: w, Height: h, Balls: 3, Seed: 1}) // given all but the stick
	pad := func(kind gameloop.InputKind, b gameloop.GamepadButton, stick int16) *gameloop.Input {
		in := &gameloop.Input{Kind: kind, Gamepad: 1, PadButton: b}
		if kind == gameloop.GamepadMove {
			in.Axis, in.AxisValue = gameloop.GamepadLeftX, stick
		}
		return in
	}
	for _, tt := range []struct {
		in      *gameloop.Input
		balls   int
		gravity bool
	}{
		{pad(gameloop.GamepadConnect, 0, 0), 3, false},
		{pad(gameloop.GamepadPress, gameloop.GamepadSouth, 0), 4, false},
		{pad(gameloop.GamepadRelease, gameloop.GamepadSouth, 0), 4, false},
		{pad(gameloop.GamepadPress, gameloop.GamepadNorth, 0), 4, true},
		{pad(gameloop.GamepadPress, gameloop.GamepadEast, 0), 3, true},
		{pad(gameloop.GamepadMove, 0, -gameloop.AxisMax/2), 3, true},
		{pad(gameloop.GamepadDisconnect, 0, 0), 3, true},
	} {
		if err := g.Input(tt.in); err != nil {
			t.Fatalf("%v: %v", tt.in, err)
		}
		direct.Apply(tt.in)
		if tt.in.Kind != gameloop.GamepadMove {
			still.Apply(tt.in)
		}
		if n := len(g.Sim.Balls()); n != tt.balls || g.Sim.Gravity() != tt.gravity {
			t.Errorf("after %v: %d balls, gravity %v; want %d, %v", tt.in, n, g.Sim.Gravity(), tt.balls, tt.gravity)
		}
		u := &gameloop.Update{Tick: g.Sim.Ticks() + 1, DT: 100 * time.Millisecond, Seconds: 0.1}
		if err := g.Update(u); err != nil {
			t.Fatal(err)
		}
		direct.Step(u.DT)
		still.Step(u.DT)
		if g.Sim.Checksum() != direct.Checksum() {
			t.Fatalf("after %v: the game's simulation is not the one its input gives", tt.in)
		}
		if tt.in.Kind == gameloop.GamepadMove {
			for i, b := range g.Sim.Balls() {
				if s := still.Balls()[i]; b.VX == s.VX || b.VY != s.VY {
					t.Errorf("ball %d with the stick held left moves at %d,%d, without at %d,%d: want VX changed, VY not", i, b.VX, b.VY, s.VX, s.VY)
				}
			}
		}
	}
}

// Without a loop to control (in a replay), the loop's keys do nothing and fail nothing.
func TestControlsWithoutALoop(t *testing.T) {
	g := New(Start{Balls: 1, Seed: 1, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}, nil, NewView("braille", NewGrid(80, 24)))
	for _, r := range "p+-[]" {
		if err := g.Input(char(r)); err != nil {
			t.Errorf("%q: %v", r, err)
		}
	}
	if g.Controls() != nil {
		t.Error("a game made without controls has some")
	}
}

func TestTickRateSteps(t *testing.T) {
	for _, tt := range []struct{ rate, slower, faster int }{
		{10, 5, 15}, {1, 1, 2}, {120, 60, 120}, {7, 5, 10}, {500, 120, 500},
	} {
		if got := Slower(tt.rate); got != tt.slower {
			t.Errorf("Slower(%d) = %d, want %d", tt.rate, got, tt.slower)
		}
		if got := Faster(tt.rate); got != tt.faster {
			t.Errorf("Faster(%d) = %d, want %d", tt.rate, got, tt.faster)
		}
	}
}

// oneBall replaces the balls of g with one at x, y dots that was at px, py a tick ago.
func oneBall(g *Game, px, py, x, y, vx int64) {
	g.Sim = bounce.New(bounce.Config{Width: 79, Height: 79, Seed: 1})
	g.Sim.Resize(g.View.Resize(80, 24))
	g.Sim.AddBall()
	b := &g.Sim.Balls()[0]
	b.PrevX, b.PrevY, b.X, b.Y, b.VX, b.VY = px*bounce.Unit, py*bounce.Unit, x*bounce.Unit, y*bounce.Unit, vx*bounce.Unit, 0
}

// cellOf returns the column and row of the first ball cell on the grid, or -1, -1.
func cellOf(out *Grid) (int, int) {
	_, h := out.Size()
	for y := 1; y < h-2; y++ {
		for x, r := range []rune(out.Line(y)) {
			if r != ' ' && r != '│' {
				return x, y
			}
		}
	}
	return -1, -1
}

func TestDrawModes(t *testing.T) {
	g, _, out := testGame(t, "braille")
	// A ball moving right 20 dots a tick (10 cells), from dot 20 to dot 40, on row 8 (cell row 2).
	oneBall(g, 20, 8, 40, 8, 200)
	r := &gameloop.Render{Frame: 1, Alpha: 0.5, Ext: 50 * time.Millisecond}
	tests := []struct {
		mode  bounce.DrawMode
		wantX int // the cell column, counting the border
	}{
		{bounce.Interpolate, 1 + 30/2}, // halfway: dot 30
		{bounce.Extrapolate, 1 + 50/2}, // 200 dots/s for 50 ms past dot 40: dot 50
		{bounce.Neither, 1 + 40/2},     // where the last tick left it
	}
	for _, tt := range tests {
		g.Mode = tt.mode
		g.View.Draw(g, r)
		if x, y := cellOf(out); x != tt.wantX || y != 1+8/4 {
			t.Errorf("%v: ball drawn at cell %d,%d, want %d,%d\n%s", tt.mode, x, y, tt.wantX, 1+8/4, out.Line(3))
		}
	}
}

func TestDrawHalfBlocks(t *testing.T) {
	g, _, out := testGame(t, "half")
	oneBall(g, 10, 5, 10, 5, 0) // dot row 5: the bottom half of cell row 2
	g.View.Draw(g, &gameloop.Render{Frame: 1})
	c := out.Cells()[(1+2)*80+1+10]
	if c.Rune != '▄' || c.Style.Foreground != BallColor(0) {
		t.Errorf("ball drawn as %q in %+v, want a lower half block in color %d", c.Rune, c.Style, BallColor(0))
	}
}

func TestDrawLayout(t *testing.T) {
	g, _, out := testGame(t, "braille")
	g.View.Draw(g, &gameloop.Render{Frame: 7})
	if got := out.Line(0); !strings.HasPrefix(got, "┌─ bounce: ") || !strings.HasSuffix(got, "┐") {
		t.Errorf("top border %q", got)
	}
	if got, want := out.Line(22), "└"+strings.Repeat("─", 78)+"┘"; got != want {
		t.Errorf("bottom border %q, want %q", got, want)
	}
	if got := out.Line(23); !strings.HasPrefix(got, "interpolate 0.0fps 0.0tps p99 0.0ms drop 0.0ms x1 10Hz f7 80x24 3 balls") {
		t.Errorf("status line %q", got)
	}
	if !out.Cells()[23*80].Style.Reverse {
		t.Error("the status line is not drawn in reverse")
	}
}

// fakeControls is a loop's controls with the statistics a test sets.
type fakeControls struct{ stats gameloop.Stats }

func (f *fakeControls) Paused() bool                 { return f.stats.Paused }
func (f *fakeControls) Pause()                       { f.stats.Paused = true }
func (f *fakeControls) Resume()                      { f.stats.Paused = false }
func (f *fakeControls) SetTimeScale(s float64) error { f.stats.TimeScale = s; return nil }
func (f *fakeControls) SetTickRate(r int) error      { f.stats.TickRate = r; return nil }
func (f *fakeControls) Stats() gameloop.Stats        { return f.stats }

// The status line shows the game's state (paused, time scale, tick rate, balls, gravity) in
// an 80-column window whatever the statistics say: they give way, least useful first, and
// nothing is cut in the middle.
func TestStatusLineFits(t *testing.T) {
	busy := gameloop.Stats{Paused: true, FPS: 144, TPS: 119.9, FrameTimeP99: 250 * time.Millisecond,
		DroppedTime: 12345 * time.Millisecond, TimeScale: 1.0 / 8, TickRate: 120}
	tests := []struct {
		name    string
		width   int
		stats   gameloop.Stats
		gravity bool
		balls   int
		frame   uint64
		want    string // the whole line, trailing blanks removed
	}{
		{"paused with gravity", 80, gameloop.Stats{Paused: true, FPS: 60, TPS: 10, FrameTimeP99: 16700 * time.Microsecond, TimeScale: 1, TickRate: 10},
			true, 5, 1234,
			"extrapolate PAUSED 60.0fps 10.0tps p99 16.7ms drop 0.0ms x1 10Hz 5 balls gravity"},
		{"everything large", 80, busy, true, bounce.MaxBalls, 123456789,
			"extrapolate PAUSED 144.0fps 119.9tps drop 12.3s x1/8 120Hz 64 balls gravity"},
		{"wide", 120, busy, true, bounce.MaxBalls, 123456789,
			"extrapolate PAUSED 144.0fps 119.9tps p99 250ms drop 12.3s x1/8 120Hz f123456789 120x24 64 balls gravity"},
		{"paused, frames counted", 80, gameloop.Stats{Paused: true, FPS: 59.9, TPS: 10, FrameTimeP99: 17 * time.Millisecond, TimeScale: 1, TickRate: 10},
			false, 5, 123456,
			"extrapolate PAUSED 59.9fps 10.0tps p99 17.0ms drop 0.0ms x1 10Hz f123456 5 balls"},
		{"busy, paused, frames counted", 80, gameloop.Stats{Paused: true, FPS: 31.2, TPS: 9.5, FrameTimeP99: 133 * time.Millisecond,
			DroppedTime: 4321 * time.Millisecond, TimeScale: 1, TickRate: 10}, false, 5, 12345,
			"extrapolate PAUSED 31.2fps 9.5tps p99 133ms drop 4321ms x1 10Hz f12345 5 balls"},
		{"running", 80, gameloop.Stats{FPS: 60, TPS: 10, TimeScale: 2, TickRate: 15}, false, 7, 99,
			"extrapolate 60.0fps 10.0tps p99 0.0ms drop 0.0ms x2 15Hz f99 80x24 7 balls"},
		{"narrow", 40, busy, false, 3, 1,
			"extrapolate PAUSED x1/8 120Hz 3 balls"},
		// One ball, not "1 balls"; none is "0 balls".
		{"one ball", 40, busy, false, 1, 1,
			"extrapolate PAUSED x1/8 120Hz 1 ball"},
		{"no balls", 40, busy, false, 0, 1,
			"extrapolate PAUSED x1/8 120Hz 0 balls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := NewGrid(tt.width, 24)
			g := New(Start{Balls: tt.balls, Seed: 1, Width: tt.width, Height: 24, Glyphs: "braille", TickRate: 10},
				&fakeControls{stats: tt.stats}, NewView("braille", out))
			g.Mode = bounce.Extrapolate
			g.Sim.SetGravity(tt.gravity)
			g.View.Draw(g, &gameloop.Render{Frame: tt.frame})
			got := strings.TrimRight(out.Line(23), " ")
			if got != tt.want {
				t.Errorf("status line\n%q, want\n%q", got, tt.want)
			}
			if len(got) > tt.width {
				t.Errorf("the line is %d wide, in a window of %d", len(got), tt.width)
			}
		})
	}
}

func TestDrawAllocatesNothing(t *testing.T) {
	g, _, _ := testGame(t, "braille")
	g.Sim.SetGravity(true)
	r := &gameloop.Render{Frame: 1, Alpha: 0.3}
	g.View.Draw(g, r)
	if n := testing.AllocsPerRun(50, func() { g.Sim.Step(100 * time.Millisecond); g.View.Draw(g, r) }); n != 0 {
		t.Errorf("a tick and a frame allocate %v times", n)
	}
}

// A damaged or hostile recording may replay a Resize to any size: the view holds to MaxCells
// each way rather than allocate what it is told.
func TestResizeIsBounded(t *testing.T) {
	g, _, _ := testGame(t, "braille")
	if err := g.Input(&gameloop.Input{Kind: gameloop.Resize, Width: 1 << 30, Height: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if w, h := g.View.Size(); w != MaxCells || h != MaxCells {
		t.Errorf("view is %dx%d cells, want %dx%d", w, h, MaxCells, MaxCells)
	}
	if n, most := len(g.View.dots), MaxCells*MaxCells*8; n > most {
		t.Errorf("view holds %d dots, want at most %d", n, most)
	}
}
