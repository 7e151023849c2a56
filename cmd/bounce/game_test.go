package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
)

func testGame(t *testing.T, glyphs string) (*game, *memSurface) {
	t.Helper()
	loop, err := gameloop.New(gameloop.Config{TickRate: 10, MaxFPS: 60, Bench: true, Window: gameloop.NewHeadlessWindow(80, 24)})
	if err != nil {
		t.Fatal(err)
	}
	out := newMemSurface(80, 24)
	opts := options{balls: 3, seed: 1, glyphs: glyphs}
	return newGame(opts, loop, newView(glyphs, out), 80, 24), out
}

func char(r rune) *gameloop.Input { return &gameloop.Input{Kind: gameloop.Char, Rune: r} }

func TestControls(t *testing.T) {
	g, _ := testGame(t, "braille")
	for _, want := range []drawMode{extrapolate, neither, interpolate} {
		if err := g.Input(char('i')); err != nil {
			t.Fatal(err)
		}
		if g.mode != want {
			t.Errorf("mode %v after i, want %v", g.mode, want)
		}
	}
	must := func(in *gameloop.Input) {
		t.Helper()
		if err := g.Input(in); err != nil {
			t.Fatal(err)
		}
	}
	must(char('p'))
	if !g.loop.Paused() {
		t.Error("not paused after p")
	}
	must(char('p'))
	if g.loop.Paused() {
		t.Error("still paused after p p")
	}
	for range 5 {
		must(char('+'))
	}
	if st := g.loop.Stats(); st.TimeScale != maxTimeScale {
		t.Errorf("time scale %g after five +, want %g", st.TimeScale, float64(maxTimeScale))
	}
	for range 7 {
		must(char('-'))
	}
	if st := g.loop.Stats(); st.TimeScale != minTimeScale {
		t.Errorf("time scale %g after five + and seven -, want %g", st.TimeScale, minTimeScale)
	}
	must(char(']'))
	must(char(']'))
	if st := g.loop.Stats(); st.TickRate != 20 {
		t.Errorf("tick rate %d after ] ] from 10, want 20", st.TickRate)
	}
	for range 10 {
		must(char('['))
	}
	if st := g.loop.Stats(); st.TickRate != 1 {
		t.Errorf("tick rate %d after many [, want 1", st.TickRate)
	}
	must(&gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	if n := len(g.sim.Balls()); n != 4 {
		t.Errorf("%d balls after space, want 4", n)
	}
	must(&gameloop.Input{Kind: gameloop.Resize, Width: 42, Height: 13})
	if w, h := g.sim.Size(); w != 40*2-1 || h != 10*4-1 {
		t.Errorf("box %dx%d dots after a resize to 42x13, want %dx%d", w, h, 40*2-1, 10*4-1)
	}
	for _, in := range []*gameloop.Input{char('q'), {Kind: gameloop.KeyPress, Key: gameloop.KeyEscape}} {
		if err := g.Input(in); !errors.Is(err, gameloop.ErrStop) {
			t.Errorf("%v: %v, want ErrStop", in, err)
		}
	}
}

func TestTickRateSteps(t *testing.T) {
	for _, tt := range []struct{ rate, slower, faster int }{
		{10, 5, 15}, {1, 1, 2}, {120, 60, 120}, {7, 5, 10}, {500, 120, 500},
	} {
		if got := slower(tt.rate); got != tt.slower {
			t.Errorf("slower(%d) = %d, want %d", tt.rate, got, tt.slower)
		}
		if got := faster(tt.rate); got != tt.faster {
			t.Errorf("faster(%d) = %d, want %d", tt.rate, got, tt.faster)
		}
	}
}

// oneBall replaces the balls of g with one at x, y dots that was at px, py a tick ago.
func oneBall(g *game, px, py, x, y, vx int64) {
	g.sim = bounce.New(bounce.Config{Width: 79, Height: 79, Seed: 1})
	g.sim.Resize(g.view.resize(80, 24))
	g.sim.AddBall()
	b := &g.sim.Balls()[0]
	b.PrevX, b.PrevY, b.X, b.Y, b.VX, b.VY = px*bounce.Unit, py*bounce.Unit, x*bounce.Unit, y*bounce.Unit, vx*bounce.Unit, 0
}

// cellOf returns the column and row of the first ball cell on the surface, or -1, -1.
func cellOf(out *memSurface) (int, int) {
	for y := 1; y < out.height-2; y++ {
		for x, r := range []rune(out.line(y)) {
			if r != ' ' && r != '│' {
				return x, y
			}
		}
	}
	return -1, -1
}

func TestDrawModes(t *testing.T) {
	g, out := testGame(t, "braille")
	// A ball moving right 20 dots a tick (10 cells), from dot 20 to dot 40, on row 8 (cell row 2).
	oneBall(g, 20, 8, 40, 8, 200)
	r := &gameloop.Render{Frame: 1, Alpha: 0.5, Ext: 50 * time.Millisecond}
	tests := []struct {
		mode  drawMode
		wantX int // the cell column, counting the border
	}{
		{interpolate, 1 + 30/2}, // halfway: dot 30
		{extrapolate, 1 + 50/2}, // 200 dots/s for 50 ms past dot 40: dot 50
		{neither, 1 + 40/2},     // where the last tick left it
	}
	for _, tt := range tests {
		g.mode = tt.mode
		g.view.draw(g, r)
		if x, y := cellOf(out); x != tt.wantX || y != 1+8/4 {
			t.Errorf("%v: ball drawn at cell %d,%d, want %d,%d\n%s", tt.mode, x, y, tt.wantX, 1+8/4, out.line(3))
		}
	}
}

func TestDrawHalfBlocks(t *testing.T) {
	g, out := testGame(t, "half")
	oneBall(g, 10, 5, 10, 5, 0) // dot row 5: the bottom half of cell row 2
	g.view.draw(g, &gameloop.Render{Frame: 1})
	if got := []rune(out.line(1 + 2))[1+10]; got != '▄' {
		t.Errorf("ball drawn as %q, want a lower half block", got)
	}
}

func TestDrawLayout(t *testing.T) {
	g, out := testGame(t, "braille")
	g.view.draw(g, &gameloop.Render{Frame: 7})
	if got := out.line(0); !strings.HasPrefix(got, "┌─ bounce: ") || !strings.HasSuffix(got, "┐") {
		t.Errorf("top border %q", got)
	}
	if got, want := out.line(22), "└"+strings.Repeat("─", 78)+"┘"; got != want {
		t.Errorf("bottom border %q, want %q", got, want)
	}
	if got := out.line(23); !strings.HasPrefix(got, "interpolate 0.0fps 0.0tps p99 0.0ms drop 0.0ms x1 10Hz f7 80x24 3 balls") {
		t.Errorf("status line %q", got)
	}
}

func TestDrawAllocatesNothing(t *testing.T) {
	g, _ := testGame(t, "braille")
	r := &gameloop.Render{Frame: 1, Alpha: 0.3}
	g.view.draw(g, r)
	if n := testing.AllocsPerRun(50, func() { g.sim.Step(100 * time.Millisecond); g.view.draw(g, r) }); n != 0 {
		t.Errorf("a tick and a frame allocate %v times", n)
	}
}

// TestBenchIsDeterministic plays the same input on simulated time twice: the same checksum.
func TestBenchIsDeterministic(t *testing.T) {
	play := func() uint64 {
		g, _ := testGame(t, "braille")
		win := g.loop.Window().(*gameloop.HeadlessWindow)
		for ev := range g.loop.Events(t.Context()) {
			switch ev := ev.(type) {
			case *gameloop.Input:
				if err := g.Input(ev); err != nil {
					t.Fatal(err)
				}
			case *gameloop.Update:
				if err := g.Update(ev); err != nil {
					t.Fatal(err)
				}
				switch ev.Tick {
				case 5:
					win.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
				case 9:
					win.Push(gameloop.Input{Kind: gameloop.Resize, Width: 60, Height: 20})
				case 50:
					return g.sim.Checksum()
				}
			case *gameloop.Render:
				if err := g.Render(ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Fatal("the loop ended early:", g.loop.Err())
		return 0
	}
	if a, b := play(), play(); a != b {
		t.Errorf("checksums %x and %x", a, b)
	}
}

func TestHeadless(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"-headless", "-seconds", "0.2", "-tps", "50"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{"ticks ", "frames ", "frame time p99 ", "dropped time ", "checksum "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, stdout.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-glyphs", "ascii"}, {"-balls", "-1"}, {"-seconds", "0"}, {"extra"}, {"-tps", "-3", "-headless"}, {"-nosuchflag"}} {
		var stdout, stderr bytes.Buffer
		if code := realMain(args, &stdout, &stderr); code == 0 {
			t.Errorf("%q: exit status 0", args)
		}
	}
}

// A damaged or hostile recording may replay a Resize to any size: the view holds to maxCells
// each way rather than allocate what it is told.
func TestResizeIsBounded(t *testing.T) {
	g, _ := testGame(t, "braille")
	if err := g.Input(&gameloop.Input{Kind: gameloop.Resize, Width: 1 << 30, Height: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	if g.view.width != maxCells || g.view.height != maxCells {
		t.Errorf("view is %dx%d cells, want %dx%d", g.view.width, g.view.height, maxCells, maxCells)
	}
	if n, most := len(g.view.dots), maxCells*maxCells*g.view.dotsX*g.view.dotsY; n > most {
		t.Errorf("view holds %d dots, want at most %d", n, most)
	}
}
