package replay_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/replay"
)

// bounceGame is the bounce demo's simulation as a gameloop.Game: keys and resizes change it,
// each update steps it, and its checksum covers all of it. It fails if an input does not come
// just before the tick it is marked with.
type bounceGame struct {
	sim      *bounce.Sim
	lastTick uint64
}

func newBounce() *bounceGame {
	return &bounceGame{sim: bounce.New(bounce.Config{Width: 80, Height: 24, Balls: 4, Seed: 7})}
}

func (g *bounceGame) Input(in *gameloop.Input) error {
	if in.Tick != g.lastTick+1 {
		return fmt.Errorf("%v delivered after tick %d", in, g.lastTick)
	}
	if in.Kind == gameloop.Resize {
		g.sim.Resize(in.Width, in.Height)
		return nil
	}
	g.sim.Apply(in)
	return nil
}

func (g *bounceGame) Update(u *gameloop.Update) error {
	g.sim.Step(u.DT)
	g.lastTick = u.Tick
	return nil
}

func (g *bounceGame) Checksum() uint64 { return g.sim.Checksum() }

// timedInput is input that arrives at a time of the (manual) clock.
type timedInput struct {
	at time.Duration
	in gameloop.Input
}

// scriptWindow is a headless window whose input arrives at the times a script gives, by a
// manual clock: the loop sees each input at its first poll at or after that time, as it would
// a player's.
type scriptWindow struct {
	*gameloop.HeadlessWindow
	clock  *gameloop.ManualClock
	script []timedInput
}

func (w *scriptWindow) PollInput(buf []gameloop.Input) []gameloop.Input {
	for len(w.script) > 0 && w.script[0].at <= w.clock.Now() {
		buf = append(buf, w.script[0].in)
		w.script = w.script[1:]
	}
	return w.HeadlessWindow.PollInput(buf)
}

// makeScript returns n inputs of the kinds bounce reacts to (and some it ignores), at times
// spread over length, the same for the same seed.
func makeScript(seed uint64, n int, length time.Duration) []timedInput {
	rng := rand.New(rand.NewPCG(seed, 1))
	keys := []gameloop.Key{gameloop.KeySpace, gameloop.KeyBackspace, gameloop.KeyG,
		gameloop.KeyLeft, gameloop.KeyRight, gameloop.KeyUp, gameloop.KeyDown, gameloop.KeyQ}
	script := make([]timedInput, n)
	for i := range script {
		// Times in nanoseconds that fall anywhere between ticks, several at once now and then.
		at := time.Duration(rng.Int64N(int64(length)))
		var in gameloop.Input
		switch r := rng.IntN(10); {
		case r < 6:
			in = gameloop.Input{Kind: gameloop.KeyPress, Key: keys[rng.IntN(len(keys))], Mods: gameloop.Mods(rng.IntN(4))}
		case r < 7:
			in = gameloop.Input{Kind: gameloop.Resize, Width: 20 + rng.IntN(100), Height: 10 + rng.IntN(40)}
		case r < 8:
			in = gameloop.Input{Kind: gameloop.CursorMove, X: rng.Float64() * 80, Y: rng.Float64() * 24}
		case r < 9:
			in = gameloop.Input{Kind: gameloop.Char, Rune: rune('a' + rng.IntN(26))}
		default:
			in = gameloop.Input{Kind: gameloop.KeyRelease, Key: keys[rng.IntN(len(keys))]}
		}
		script[i] = timedInput{at: at, in: in}
	}
	slices.SortStableFunc(script, func(a, b timedInput) int { return cmp.Compare(a.at, b.at) })
	return script
}

// untilTick stops a game with ErrStop after its update of tick last.
type untilTick struct {
	*bounceGame
	last uint64
}

func (g untilTick) Update(u *gameloop.Update) error {
	if err := g.bounceGame.Update(u); err != nil {
		return err
	}
	if u.Tick >= g.last {
		return gameloop.ErrStop
	}
	return nil
}

// session describes a recorded play.
type session struct {
	cfg     gameloop.Config // TickRate, MaxFPS, TimeScale...; the clock and window are set by record
	ticks   uint64
	inputs  int
	seed    uint64
	options *replay.RecordOptions
	// stall, if set, is how far the clock jumps during the update of a tick, to make the loop
	// fall behind and drop ticks.
	stall func(tick uint64) time.Duration
	// wrap, if set, wraps the game played, which may control the loop.
	wrap func(g gameloop.Game, loop *gameloop.Loop) gameloop.Game
}

// stallGame advances the manual clock inside updates, as a slow update takes real time.
type stallGame struct {
	untilTick
	clock *gameloop.ManualClock
	stall func(tick uint64) time.Duration
}

func (g stallGame) Update(u *gameloop.Update) error {
	g.clock.Advance(g.stall(u.Tick))
	return g.untilTick.Update(u)
}

// record plays s on a manual clock with the script's input arriving at its times, records it
// with Recorder.Game and Loop.Run, and returns the recording and the loop's stats.
func record(t testing.TB, s session) ([]byte, gameloop.Stats) {
	t.Helper()
	tickRate := s.cfg.TickRate
	if tickRate == 0 {
		tickRate = gameloop.DefaultTickRate
	}
	clock := gameloop.NewManualClock()
	length := time.Duration(float64(s.ticks) * float64(time.Second) / float64(tickRate) / scaleOf(s.cfg))
	win := &scriptWindow{HeadlessWindow: gameloop.NewHeadlessWindow(80, 24), clock: clock,
		script: makeScript(s.seed, s.inputs, length)}
	cfg := s.cfg
	cfg.Clock, cfg.Window = clock, win
	loop, err := gameloop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, loop.Config().TickRate, s.options)
	if err != nil {
		t.Fatal(err)
	}
	var game gameloop.Game = untilTick{newBounce(), s.ticks}
	if s.stall != nil {
		game = stallGame{untilTick{newBounce(), s.ticks}, clock, s.stall}
	}
	if s.wrap != nil {
		game = s.wrap(game, loop)
	}
	if err := loop.Run(context.Background(), rec.Game(game)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.Ticks() != s.ticks {
		t.Fatalf("recorded %d ticks, want %d", rec.Ticks(), s.ticks)
	}
	return buf.Bytes(), loop.Stats()
}

func scaleOf(cfg gameloop.Config) float64 {
	if cfg.TimeScale == 0 {
		return 1
	}
	return cfg.TimeScale
}

func decode(t testing.TB, data []byte) *replay.Recording {
	t.Helper()
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
