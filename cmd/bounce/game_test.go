package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gdamore/tcell/v2"
)

// The game itself (its keys, its drawing, its status line) is tested in internal/bouncegame;
// these tests are of the command.

func testGame(t *testing.T, glyphs string) (*game, *gameloop.Loop) {
	t.Helper()
	loop, err := gameloop.New(gameloop.Config{TickRate: 10, MaxFPS: 60, Bench: true, Window: gameloop.NewHeadlessWindow(80, 24)})
	if err != nil {
		t.Fatal(err)
	}
	opts := options{balls: 3, seed: 1, glyphs: glyphs}
	return newGame(opts, loop, newView(glyphs, newMemSurface(80, 24)), 80, 24), loop
}

// TestBenchIsDeterministic plays the same input on simulated time twice: the same checksum.
func TestBenchIsDeterministic(t *testing.T) {
	play := func() uint64 {
		g, loop := testGame(t, "braille")
		win := loop.Window().(*gameloop.HeadlessWindow)
		for ev := range loop.Events(t.Context()) {
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
					return g.Checksum()
				}
			case *gameloop.Render:
				if err := g.Render(ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Fatal("the loop ended early:", loop.Err())
		return 0
	}
	if a, b := play(), play(); a != b {
		t.Errorf("checksums %x and %x", a, b)
	}
}

// The terminal's own colors for what has none, bright ones for the balls, and the status line
// in reverse, through the adapter to tcell.
func TestDrawStyles(t *testing.T) {
	var cells styleSurface
	g, _ := testGame(t, "half")
	g.View = newView("half", &cells)
	g.View.Resize(80, 24)
	g.View.Draw(g, &gameloop.Render{Frame: 1})
	if !cells.reverse || !cells.colored {
		t.Errorf("drawn with a reverse status line %v, colored balls %v: want both", cells.reverse, cells.colored)
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
	for _, args := range [][]string{{"-glyphs", "ascii"}, {"-balls", "-1"}, {"-balls", "65"}, {"-seconds", "0"}, {"extra"}, {"-tps", "-3", "-headless"}, {"-nosuchflag"}} {
		var stdout, stderr bytes.Buffer
		if code := realMain(args, &stdout, &stderr); code == 0 {
			t.Errorf("%q: exit status 0", args)
		}
	}
}

// Every recording that -record finishes with exit status 0 replays matched: the recording
// stores what the game used (the loop's tick rate for -tps 0), and a flag the game cannot
// honour (more balls than the box holds) is refused before anything starts, leaving no file.
func TestRecordedFlagsReplay(t *testing.T) {
	dir := t.TempDir()
	for i, tt := range []struct {
		args []string
		meta string // what the recording's meta holds, a regexp; empty when refused
	}{
		{[]string{"-tps", "0"}, `^bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=60$`},
		{[]string{"-balls", "64", "-tps", "120"}, ` balls=64 .* tps=120$`},
		{[]string{"-balls", "65"}, ""},
		{[]string{"-balls", "100000000"}, ""},
	} {
		path := filepath.Join(dir, "rec"+string(rune('a'+i)))
		args := append([]string{"-headless", "-seconds", "0.2", "-record", path}, tt.args...)
		var stdout, stderr bytes.Buffer
		code := realMain(args, &stdout, &stderr)
		if tt.meta == "" {
			if code == 0 {
				t.Errorf("%q: exit status 0, want the flags refused", args)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%q: refused, but a recording was made (%v)", args, err)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%q: exit status %d; stderr:\n%s", args, code, stderr.String())
			continue
		}
		if meta := string(decodeFile(t, path).Meta); !regexp.MustCompile(tt.meta).MatchString(meta) {
			t.Errorf("%q: meta %q, want %q", args, meta, tt.meta)
		}
		stdout.Reset()
		if code := realMain([]string{"-replay", path}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), " matched (") {
			t.Errorf("%q: replay: exit status %d, printed %q; stderr:\n%s", args, code, stdout.String(), stderr.String())
		}
	}
}

// styleSurface notes which styles were drawn with.
type styleSurface struct{ reverse, colored bool }

func (s *styleSurface) SetCell(_, _ int, _ rune, style tcell.Style) {
	fg, _, attrs := style.Decompose()
	s.reverse = s.reverse || attrs&tcell.AttrReverse != 0
	s.colored = s.colored || fg != tcell.ColorDefault
}
