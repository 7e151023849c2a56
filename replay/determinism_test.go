package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// replayConfigs are the loops a recording is replayed in: frame caps from 30 to 144 per second,
// no cap, and bench mode. All but bench run on a manual clock, which jumps to each deadline, so
// that the frames fall between the ticks as they would in real time, without the wait.
func replayConfigs() map[string]func() *gameloop.Config {
	capped := func(fps int) func() *gameloop.Config {
		return func() *gameloop.Config {
			return &gameloop.Config{MaxFPS: fps, Clock: gameloop.NewManualClock(), Window: gameloop.NewHeadlessWindow(80, 24)}
		}
	}
	return map[string]func() *gameloop.Config{
		"fps30":    capped(30),
		"fps60":    capped(60),
		"fps144":   capped(144),
		"uncapped": capped(0),
		"bench":    func() *gameloop.Config { return nil },
		"bench-window": func() *gameloop.Config {
			return &gameloop.Config{Bench: true, Window: gameloop.NewHeadlessWindow(80, 24)}
		},
	}
}

// checkReplays replays data in every replay config and checks that each matches the recording
// at every recorded checksum, the one after each tick.
func checkReplays(t *testing.T, data []byte) {
	t.Helper()
	rec := decode(t, data)
	if len(rec.Checksums) != int(rec.Ticks) {
		t.Fatalf("%d checksums for %d ticks, want one a tick", len(rec.Checksums), rec.Ticks)
	}
	for name, cfg := range replayConfigs() {
		t.Run(name, func(t *testing.T) {
			res, err := rec.Play(context.Background(), newBounce(), &replay.PlayOptions{Config: cfg()})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Matched() || res.Checked != len(rec.Checksums) || res.Inputs != len(rec.Inputs) {
				t.Fatalf("%v; want %d ticks, %d inputs, %d checksums matched", res, rec.Ticks, len(rec.Inputs), len(rec.Checksums))
			}
		})
	}
}

// TestDeterminism records bounce sessions played at several frame caps, and replays each at
// frame caps 30, 60, 144, uncapped and in bench mode: every one must reach the recorded state
// after every tick.
func TestDeterminism(t *testing.T) {
	for _, fps := range []int{0, 30, 60, 144} {
		t.Run(fmt.Sprintf("recorded-fps%d", fps), func(t *testing.T) {
			data, _ := record(t, session{cfg: gameloop.Config{MaxFPS: fps}, ticks: 1200, inputs: 80, seed: uint64(fps)})
			checkReplays(t, data)
		})
	}
}

// TestDeterminismTimeScale records a session played at half speed (and one at double speed):
// the ticks come half as often in real time, each with the same step, so the replay at full
// speed must match.
func TestDeterminismTimeScale(t *testing.T) {
	for _, scale := range []float64{0.5, 2} {
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			data, stats := record(t, session{cfg: gameloop.Config{MaxFPS: 60, TimeScale: scale}, ticks: 900, inputs: 60, seed: 5})
			if stats.TimeScale != scale {
				t.Fatalf("recorded at time scale %g, want %g", stats.TimeScale, scale)
			}
			checkReplays(t, data)
			// And replayed at the same scale it was recorded at.
			res, err := replay.Play(context.Background(), bytes.NewReader(data), newBounce(), &replay.PlayOptions{
				Config: &gameloop.Config{TimeScale: scale, MaxFPS: 60, Clock: gameloop.NewManualClock()},
			})
			if err != nil || !res.Matched() {
				t.Fatalf("replay at scale %g: %v, %v", scale, res, err)
			}
		})
	}
}

// TestDeterminismDroppedTicks records a session whose updates are now and then slow, so that
// the loop falls behind and drops ticks: dropped ticks take no number, so the replay, which
// drops none, still matches.
func TestDeterminismDroppedTicks(t *testing.T) {
	data, stats := record(t, session{
		cfg:   gameloop.Config{MaxFPS: 60, MaxTicksPerFrame: 2},
		ticks: 600, inputs: 50, seed: 9,
		stall: func(tick uint64) time.Duration {
			if tick%50 == 0 {
				return 200 * time.Millisecond
			}
			return 0
		},
	})
	if stats.DroppedTicks == 0 {
		t.Fatal("no ticks were dropped; the test does not test what it should")
	}
	checkReplays(t, data)
}

// rateChanger changes the loop's tick rate when Q is pressed, as the bounce demo's [ and ] do.
type rateChanger struct {
	gameloop.Game
	loop  *gameloop.Loop
	rates []int
	next  int
}

func (g *rateChanger) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyQ {
		if err := g.loop.SetTickRate(g.rates[g.next%len(g.rates)]); err != nil {
			return err
		}
		g.next++
	}
	return g.Game.(gameloop.InputHandler).Input(in)
}

func (g *rateChanger) Checksum() uint64 { return g.Game.(replay.Checksummer).Checksum() }

// TestDeterminismTickRateChanges records a session in which the tick rate changes, so that the
// step of the updates changes: the replay must change it before the same ticks.
func TestDeterminismTickRateChanges(t *testing.T) {
	for _, fps := range []int{0, 144} {
		t.Run(fmt.Sprintf("recorded-fps%d", fps), func(t *testing.T) {
			data, _ := record(t, session{cfg: gameloop.Config{MaxFPS: fps}, ticks: 1500, inputs: 150, seed: 21,
				wrap: func(g gameloop.Game, loop *gameloop.Loop) gameloop.Game {
					return &rateChanger{Game: g, loop: loop, rates: []int{120, 30, 1000, 7, 60}}
				}})
			rec := decode(t, data)
			if len(rec.RateChanges) < 3 {
				t.Fatalf("%d tick rate changes recorded, want at least 3", len(rec.RateChanges))
			}
			checkReplays(t, data)
			// A replay that does not change the rate differs from the first change on.
			rec.RateChanges = nil
			res, err := rec.Play(t.Context(), newBounce(), nil)
			if err != nil || res.Mismatch == nil {
				t.Fatalf("replay without the rate changes: %v, %v", res, err)
			}
		})
	}
}

// TestReplayCatchUp replays into a loop that falls behind, so that passes of the loop run
// several ticks after polling input once: the input of the later ticks must still arrive
// before them.
func TestReplayCatchUp(t *testing.T) {
	data, _ := record(t, session{cfg: gameloop.Config{MaxFPS: 144}, ticks: 600, inputs: 300, seed: 11})
	rec := decode(t, data)
	clock := gameloop.NewManualClock()
	game := stallGame{untilTick{newBounce(), rec.Ticks}, clock, func(tick uint64) time.Duration {
		return time.Duration(tick%4) * 10 * time.Millisecond
	}}
	res, err := rec.Play(context.Background(), game, &replay.PlayOptions{
		Config: &gameloop.Config{Clock: clock, MaxFPS: 30, MaxTicksPerFrame: 1000, MaxFrameTime: time.Hour},
	})
	if err != nil || !res.Matched() {
		t.Fatalf("%v, %v", res, err)
	}
}

// TestDeterminismMismatch checks that a game that is not deterministic, whose state depends on
// the frames drawn, is caught at the first tick that differs.
func TestDeterminismMismatch(t *testing.T) {
	clock := gameloop.NewManualClock()
	loop, err := gameloop.New(gameloop.Config{MaxFPS: 144, Clock: clock, Window: gameloop.NewHeadlessWindow(80, 24)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, loop.Config().TickRate, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorded := &frameCounter{untilTick: untilTick{newBounce(), 300}}
	if err := loop.Run(context.Background(), rec.Game(recorded)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// At 144 frames per second, two or three frames come between ticks; at 60, one.
	res, err := replay.Play(context.Background(), &buf, &frameCounter{untilTick: untilTick{newBounce(), 300}},
		&replay.PlayOptions{Frames: true, Config: &gameloop.Config{MaxFPS: 60, Clock: gameloop.NewManualClock(), Window: gameloop.NewHeadlessWindow(80, 24)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Matched() || res.Mismatch == nil {
		t.Fatalf("a game that counts frames matched at another frame rate: %v", res)
	}
	if res.Mismatch.Tick != res.Ticks || res.Checked != int(res.Ticks) || res.Mismatch.Tick < 1 || res.Mismatch.Tick > 3 {
		t.Fatalf("%v: want the replay stopped at the first differing tick, one of the first three", res)
	}
	t.Log(res)
}

// frameCounter is a game that is not deterministic: it counts frames into its state.
type frameCounter struct {
	untilTick
	frames uint64
}

func (g *frameCounter) VariableUpdate(*gameloop.VariableUpdate) error {
	g.frames++
	return nil
}

func (g *frameCounter) Update(u *gameloop.Update) error { return g.untilTick.Update(u) }

func (g *frameCounter) Checksum() uint64 { return g.bounceGame.Checksum() ^ g.frames }

// TestReplaySystemClock replays on the system's clock, sped up a hundredfold, as a viewer
// watching a replay would (at normal speed): however the real time falls, every input must
// come before its tick. Only the outcome is checked, never the time taken.
func TestReplaySystemClock(t *testing.T) {
	data, _ := record(t, session{cfg: gameloop.Config{MaxFPS: 144}, ticks: 300, inputs: 100, seed: 12})
	for name, cfg := range map[string]gameloop.Config{
		"headless":        {},
		"fps1000":         {MaxFPS: 1000},
		"uncapped-window": {Window: gameloop.NewHeadlessWindow(80, 24)},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.TimeScale, cfg.MaxTicksPerFrame, cfg.MaxFrameTime = 100, 1000, time.Hour
			res, err := replay.Play(t.Context(), bytes.NewReader(data), newBounce(), &replay.PlayOptions{Config: &cfg})
			if err != nil || !res.Matched() {
				t.Fatalf("%v, %v", res, err)
			}
		})
	}
}
