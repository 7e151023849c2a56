package bouncegame

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

func TestStartRoundTrip(t *testing.T) {
	s := Start{Seed: 1<<64 - 1, Balls: 64, Width: 80, Height: 24, Glyphs: "half", TickRate: 120}
	got, err := ParseStart(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got != s {
		t.Errorf("ParseStart(Encode(%+v)) = %+v", s, got)
	}
	if want := "bounce-start/1 seed=18446744073709551615 balls=64 width=80 height=24 glyphs=half tps=120"; string(s.Encode()) != want {
		t.Errorf("Encode = %q, want %q", s.Encode(), want)
	}
}

func TestParseStartRejects(t *testing.T) {
	for _, meta := range []string{
		"",
		"bounce-start/2 seed=1 balls=5 width=80 height=24 glyphs=braille tps=10",
		"bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille",               // no tps
		"bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=ascii tps=10",          // bad glyphs
		"bounce-start/1 seed=1 balls=5 width=0 height=24 glyphs=braille tps=10",         // no width
		"bounce-start/1 seed=1 balls=5 width=80 height=99999 glyphs=braille tps=10",     // too high
		"bounce-start/1 seed=1 balls=-1 width=80 height=24 glyphs=braille tps=10",       // negative
		"bounce-start/1 seed=1 seed=2 balls=5 width=80 height=24 glyphs=braille tps=10", // twice
		"bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=10 x=1",    // unknown
		"bounce-start/1 seed balls=5 width=80 height=24 glyphs=braille tps=10",          // no value
		"bounce-start/1 seed=1 balls=5 width=80 height=24 glyphs=braille tps=0",         // no rate
	} {
		if s, err := ParseStart([]byte(meta)); err == nil {
			t.Errorf("ParseStart(%q) = %+v, want an error", meta, s)
		}
	}
}

// Every Start that Check accepts, once Used, is one that ParseStart reads back: a recording
// of a game that started is a recording that replays.
func TestCheckedStartsParse(t *testing.T) {
	for _, s := range []Start{
		{Seed: 1, Balls: 0, Width: 1, Height: 1, Glyphs: "braille", TickRate: 1},
		{Seed: 1, Balls: 64, Width: 5000, Height: 3000, Glyphs: "half", TickRate: gameloop.MaxRate},
		{Seed: 7, Balls: 5, Width: MaxCells + 1, Height: 24, Glyphs: "braille", TickRate: 60},
	} {
		if err := s.Check(); err != nil {
			t.Errorf("Check(%+v): %v", s, err)
			continue
		}
		u := s.Used()
		got, err := ParseStart(u.Encode())
		if err != nil || got != u {
			t.Errorf("%+v, used as %+v: ParseStart gives %+v, %v", s, u, got, err)
		}
	}
	for _, s := range []Start{
		{Balls: 65, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10},
		{Balls: -1, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10},
		{Balls: 5, Width: 80, Height: 24, Glyphs: "braille", TickRate: 0},
		{Balls: 5, Width: 80, Height: 24, Glyphs: "ascii", TickRate: 10},
		{Balls: 5, Width: 0, Height: 24, Glyphs: "braille", TickRate: 10},
	} {
		if err := s.Check(); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", s)
		}
	}
}

// A game recorded in a window wider than MaxCells replays: the recording stores the size the
// view used.
func TestReplayOfAHugeWindow(t *testing.T) {
	s := Start{Seed: 3, Balls: 4, Width: 1500, Height: 1100, Glyphs: "half", TickRate: 30}
	loop, err := gameloop.New(gameloop.Config{TickRate: s.TickRate, Bench: true, Window: gameloop.NewHeadlessWindow(s.Width, s.Height)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, s.TickRate, s.Used().RecordOptions())
	if err != nil {
		t.Fatal(err)
	}
	g := New(s, loop, NewView(s.Glyphs, NewGrid(s.Width, s.Height)))
	stopAt := gameloop.GameFunc(func(u *gameloop.Update) error {
		if err := g.Update(u); err != nil {
			return err
		}
		if u.Tick == 20 {
			return gameloop.ErrStop
		}
		return nil
	})
	if err := loop.Run(t.Context(), rec.Game(withChecksum{stopAt, g})); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	decoded, err := replay.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(decoded.Meta), " width=1024 height=1024 ") {
		t.Errorf("meta %q: want the size the view used, 1024x1024", decoded.Meta)
	}
	res, err := Replay(t.Context(), decoded.Header, decoded)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched() || res.Ticks != 20 {
		t.Errorf("replay: %v, want 20 ticks matched", res)
	}
}

type withChecksum struct {
	gameloop.GameFunc
	g *Game
}

func (w withChecksum) Checksum() uint64 { return w.g.Checksum() }
