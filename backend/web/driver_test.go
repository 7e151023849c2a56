package web

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/replay"
)

// display is a made-up display refreshing at a fixed rate: frame n comes at n/hz seconds.
type display struct {
	hz int
	n  int64
}

func (dp *display) next() time.Duration {
	dp.n++
	return time.Duration(dp.n * int64(time.Second) / int64(dp.hz))
}

// logGame records the events it is handed, as short strings.
type logGame struct {
	log     []string
	onInput func(in *gameloop.Input) error
	onTick  func(u *gameloop.Update) error
}

func (g *logGame) Input(in *gameloop.Input) error {
	g.log = append(g.log, fmt.Sprintf("in %v@%d", in.Key, in.Tick))
	if g.onInput != nil {
		return g.onInput(in)
	}
	return nil
}

func (g *logGame) Update(u *gameloop.Update) error {
	g.log = append(g.log, fmt.Sprintf("tick %d", u.Tick))
	if g.onTick != nil {
		return g.onTick(u)
	}
	return nil
}

func (g *logGame) Render(r *gameloop.Render) error {
	g.log = append(g.log, fmt.Sprintf("frame %d %dx%d", r.Frame, r.Width, r.Height))
	return nil
}

func newDriver(t *testing.T, cfg gameloop.Config) *Driver {
	t.Helper()
	d, err := NewDriver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func frames(t *testing.T, d *Driver, g gameloop.Game, dp *display, n int) {
	t.Helper()
	for range n {
		if err := d.Frame(g, dp.next(), 800, 600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFrameOrder(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 30})
	g := &logGame{}
	dp := &display{hz: 60}
	// Game time starts at the first frame: tick 1 is due a 30th of a second after it, at the
	// third frame.
	frames(t, d, g, dp, 2)
	d.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeySpace})
	frames(t, d, g, dp, 3)
	got := strings.Join(g.log, ", ")
	want := "frame 1 800x600, frame 2 800x600, in Space@1, tick 1, frame 3 800x600, frame 4 800x600, tick 2, frame 5 800x600"
	if got != want {
		t.Errorf("events\n%s, want\n%s", got, want)
	}
}

// A game paced by a 60 Hz display ticks 10 times a second, each tick less than a frame late.
func TestTicksOnTheGrid(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 7})
	g := &logGame{}
	dp := &display{hz: 60}
	frames(t, d, g, dp, 601) // 10 s after the first
	st := d.Stats()
	if st.Ticks != 70 || st.Frames != 601 || st.DroppedTicks != 0 {
		t.Errorf("%d ticks, %d frames, %d dropped in 10 s; want 70, 601, 0", st.Ticks, st.Frames, st.DroppedTicks)
	}
	if st.FPS < 59.9 || st.FPS > 60.1 || st.TPS < 6.9 || st.TPS > 7.1 {
		t.Errorf("%.2f fps, %.2f tps; want 60 and 7", st.FPS, st.TPS)
	}
	frame := time.Second / 60
	if st.FrameTimeP50 < frame-time.Microsecond || st.FrameTimeMax > frame+time.Microsecond {
		t.Errorf("frame times p50 %v max %v, want %v", st.FrameTimeP50, st.FrameTimeMax, frame)
	}
	l := d.TickLateness()
	if l.Ticks != 70 || l.Max >= frame || l.P99 == 0 {
		t.Errorf("lateness %+v: want 70 ticks, each less than a frame (%v) late, and some late", l, frame)
	}
}

// Pause stops the ticks and freezes Alpha; frames go on.
func TestPause(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 10})
	var alphas []float64
	g := &alphaGame{alphas: &alphas}
	dp := &display{hz: 60}
	frames(t, d, g, dp, 15)
	d.Pause()
	if !d.Paused() {
		t.Error("not Paused after Pause")
	}
	ticks := d.Stats().Ticks
	alphas = alphas[:0]
	frames(t, d, g, dp, 120)
	if st := d.Stats(); st.Ticks != ticks || st.Frames != 135 || !st.Paused {
		t.Errorf("paused: %d ticks (had %d), %d frames, paused %v", st.Ticks, ticks, st.Frames, st.Paused)
	}
	for _, a := range alphas[1:] {
		if a != alphas[0] {
			t.Fatalf("alpha moved while paused: %v", alphas)
		}
	}
	d.Resume()
	frames(t, d, g, dp, 60)
	if st := d.Stats(); st.Ticks != ticks+10 || st.DroppedTicks != 0 {
		t.Errorf("resumed for a second: %d ticks (had %d), %d dropped; want 10 more, none dropped", st.Ticks, ticks, st.DroppedTicks)
	}
}

type alphaGame struct{ alphas *[]float64 }

func (g *alphaGame) Update(*gameloop.Update) error { return nil }
func (g *alphaGame) Render(r *gameloop.Render) error {
	*g.alphas = append(*g.alphas, r.Alpha)
	return nil
}

// A hidden page gets no frames for a while: the time away is paused, not dropped nor caught up.
func TestHiddenPage(t *testing.T) {
	for _, tell := range []bool{true, false} {
		t.Run(fmt.Sprintf("told %v", tell), func(t *testing.T) {
			d := newDriver(t, gameloop.Config{TickRate: 50})
			var n []int
			g := &countGame{perFrame: &n}
			dp := &display{hz: 60}
			frames(t, d, g, dp, 60)
			away := dp.next()
			if tell {
				d.SetHidden(away, true)
			}
			dp.n += 60 * 30 // 30 s without a frame
			back := dp.next()
			if tell {
				d.SetHidden(back, false)
				if d.Hidden() {
					t.Error("Hidden after SetHidden(false)")
				}
			}
			n = n[:0]
			frames(t, d, g, dp, 60)
			st := d.Stats()
			if !tell {
				// Without being told, it is a stall: bounded catch-up, the rest dropped.
				if st.DroppedTicks == 0 || n[0] != gameloop.DefaultMaxTicksPerFrame {
					t.Errorf("a 30 s stall: %d ticks in the frame after, %d dropped", n[0], st.DroppedTicks)
				}
				return
			}
			if st.DroppedTicks != 0 || st.DroppedTime != 0 {
				t.Errorf("dropped %d ticks (%v) for a hidden page", st.DroppedTicks, st.DroppedTime)
			}
			for i, k := range n {
				if k > 1 {
					t.Errorf("frame %d after the page came back ran %d ticks: a burst", i, k)
				}
			}
			// A second before, one frame's time to the moment it hid, a second after: 100
			// ticks and a little.
			if st.Ticks < 100 || st.Ticks > 101 {
				t.Errorf("%d ticks, want 100: the time away is not game time", st.Ticks)
			}
			// The first frame after it came back follows the last one before by the time
			// between that one and the hiding and the time since it came back: two frames.
			if st.FrameTimeMax > 2*time.Second/60+time.Microsecond {
				t.Errorf("frame time max %v: the time away counted as a frame", st.FrameTimeMax)
			}
		})
	}
}

// countGame counts the ticks of each frame: they come before its VariableUpdate.
type countGame struct {
	perFrame *[]int
	ticks    int
}

func (g *countGame) Update(*gameloop.Update) error {
	g.ticks++
	return nil
}

func (g *countGame) VariableUpdate(*gameloop.VariableUpdate) error {
	*g.perFrame = append(*g.perFrame, g.ticks)
	g.ticks = 0
	return nil
}

func TestTimeScaleAndTickRate(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 10})
	g := &logGame{}
	dp := &display{hz: 60}
	if err := d.SetTimeScale(2); err != nil {
		t.Fatal(err)
	}
	frames(t, d, g, dp, 60)
	if st := d.Stats(); st.Ticks < 19 || st.Ticks > 20 || st.TimeScale != 2 {
		t.Errorf("a second at x2: %d ticks, scale %g; want 20", st.Ticks, st.TimeScale)
	}
	if err := d.SetTickRate(30); err != nil {
		t.Fatal(err)
	}
	before := d.Stats().Ticks
	frames(t, d, g, dp, 60)
	// The game time since the last tick at 10 Hz counts toward the first at 30 Hz: up to two more.
	if st := d.Stats(); st.Ticks-before < 59 || st.Ticks-before > 62 || st.TickRate != 30 {
		t.Errorf("a second at 30 Hz, x2: %d ticks; want 60 to 62", st.Ticks-before)
	}
	for _, err := range []error{d.SetTimeScale(-1), d.SetTickRate(0), d.SetTickRate(gameloop.MaxRate + 1)} {
		var cerr *gameloop.ConfigError
		if !errors.As(err, &cerr) {
			t.Errorf("a bad setting: %v, want a *gameloop.ConfigError", err)
		}
	}
	if _, err := NewDriver(gameloop.Config{TickRate: -1}); err == nil {
		t.Error("NewDriver with TickRate -1: no error")
	}
}

// A control asked for by an update applies before the next update of the same frame.
func TestControlFromUpdate(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 60})
	g := &logGame{}
	g.onTick = func(u *gameloop.Update) error {
		if u.Tick == 3 {
			d.Pause()
		}
		return nil
	}
	dp := &display{hz: 10} // 6 ticks owed at the second frame, 5 granted
	frames(t, d, g, dp, 2)
	if st := d.Stats(); st.Ticks != 3 {
		t.Errorf("%d ticks; want 3, the pause at tick 3 stopping the rest of its frame", st.Ticks)
	}
	// As in gameloop.Loop, the ticks owed when the pause began stay owed, and run.
	frames(t, d, g, dp, 2)
	if st := d.Stats(); st.Ticks != 5 {
		t.Errorf("%d ticks; want 5", st.Ticks)
	}
}

func TestErrors(t *testing.T) {
	dp := &display{hz: 60}
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		g     *logGame
		check func(error) bool
	}{
		{"stop", &logGame{onTick: func(*gameloop.Update) error { return fmt.Errorf("over: %w", gameloop.ErrStop) }},
			func(err error) bool { return errors.Is(err, gameloop.ErrStop) }},
		{"error", &logGame{onTick: func(*gameloop.Update) error { return boom }},
			func(err error) bool { return errors.Is(err, boom) && strings.Contains(err.Error(), "Update at tick 1") }},
		{"input error", &logGame{onInput: func(*gameloop.Input) error { return boom }},
			func(err error) bool {
				return errors.Is(err, boom) && strings.Contains(err.Error(), "Input before tick 1")
			}},
		{"panic", &logGame{onTick: func(*gameloop.Update) error { panic("oops") }},
			func(err error) bool {
				var p *gameloop.PanicError
				return errors.As(err, &p) && p.Value == "oops" && p.Where == "Update at tick 1" && len(p.Stack) > 0
			}},
	} {
		d := newDriver(t, gameloop.Config{TickRate: 60})
		d.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA})
		var err error
		for range 3 {
			if err = d.Frame(tt.g, dp.next(), 10, 10); err != nil {
				break
			}
		}
		if !tt.check(err) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// A canvas with no size skips the frame.
func TestZeroSize(t *testing.T) {
	d := newDriver(t, gameloop.Config{})
	g := &logGame{}
	dp := &display{hz: 60}
	if err := d.Frame(g, dp.next(), 0, 0); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats(); st.Frames != 0 || st.SkippedFrames != 1 {
		t.Errorf("%d frames, %d skipped; want 0 and 1", st.Frames, st.SkippedFrames)
	}
}

// The pull style: a frame's events in a range; leaving it early leaves the rest owed.
func TestEvents(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 60})
	var got []string
	for range d.Events(0, 4, 3) { // the start of game time
	}
	d.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA}, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyB})
	for ev := range d.Events(50*time.Millisecond, 4, 3) {
		got = append(got, ev.String())
		if _, ok := ev.(*gameloop.Input); ok {
			break
		}
	}
	for ev := range d.Events(60*time.Millisecond, 4, 3) {
		got = append(got, ev.String())
	}
	want := []string{
		"Input{KeyPress A tick=1}",
		"Input{KeyPress B tick=1}", "Update{tick=1 dt=16.666666ms}", "Update{tick=2 dt=16.666666ms}", "Update{tick=3 dt=16.666666ms}",
		// Game time started a millisecond before the first frame (gridLead).
		"VariableUpdate{frame=2 dt=60ms}", "Render{frame=2 tick=3 alpha=0.660 ext=11ms size=4x3}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Browsers' requestAnimationFrame times are a tenth of a millisecond or so either side of the
// display's refresh (Chromium rounds them to 0.1 ms). At 60 ticks a second on a 60 Hz display,
// each frame still runs the one tick that falls in it, rather than none and then two.
func TestJitteryFrameTimes(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 60})
	var n []int
	g := &countGame{perFrame: &n}
	dp := &display{hz: 60}
	for k := range 600 {
		jitter := time.Duration((k+2)%3-1) * 100 * time.Microsecond // +0.1 ms, -0.1, 0, +0.1...
		if err := d.Frame(g, dp.next()+jitter, 1, 1); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range n[1:] {
		if k != 1 {
			t.Fatalf("frame %d ran %d ticks, want 1 a frame: %v", i+2, k, n[:i+2])
		}
	}
	// Each tick is due gridLead before its frame, give or take the jitter.
	if l := d.TickLateness(); l.Max > gridLead+200*time.Microsecond {
		t.Errorf("ticks ran up to %v late, want at most %v", l.Max, gridLead+200*time.Microsecond)
	}
}

func TestFirstRates(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 10})
	dp := &display{hz: 60}
	frames(t, d, &logGame{}, dp, 4)
	if st := d.Stats(); st.FPS != 0 {
		t.Errorf("FPS %.1f after 4 frames, want 0: too few to tell", st.FPS)
	}
	frames(t, d, &logGame{}, dp, 16) // a third of a second in all
	if st := d.Stats(); st.FPS < 59.9 || st.FPS > 60.1 || st.TPS < 9 || st.TPS > 10.1 {
		t.Errorf("%.1f fps, %.1f tps after a third of a second, want 60 and about 10", st.FPS, st.TPS)
	}
}

// A frame allocates nothing, input included, pushed or pulled.
func TestFrameAllocatesNothing(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 60})
	g := gameloop.GameFunc(func(*gameloop.Update) error { return nil })
	dp := &display{hz: 60}
	frames(t, d, g, dp, 10)
	key := gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA}
	n := testing.AllocsPerRun(200, func() {
		d.Push(key)
		if err := d.Frame(g, dp.next(), 640, 480); err != nil {
			t.Fatal(err)
		}
		_ = d.Stats()
	})
	if n != 0 {
		t.Errorf("a frame allocates %v times", n)
	}
	n = testing.AllocsPerRun(200, func() {
		d.Push(key)
		for ev := range d.Events(dp.next(), 640, 480) {
			if u, ok := ev.(*gameloop.Update); ok && u.Tick == 0 {
				t.Fatal("an update of tick 0")
			}
		}
	})
	if n != 0 {
		t.Errorf("a frame pulled with Events allocates %v times", n)
	}
}

// A session of bounce played on the driver, with the loop's keys pressed, recorded, replays
// matched in a native loop: the driver delivers input and ticks as gameloop.Loop does.
func TestRecordingReplays(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 10})
	s := bouncegame.Start{Seed: 5, Balls: 4, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}
	g := bouncegame.New(s, d, bouncegame.NewView(s.Glyphs, bouncegame.NewGrid(80, 24)))
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, s.TickRate, s.RecordOptions())
	if err != nil {
		t.Fatal(err)
	}
	played := rec.Game(g)
	dp := &display{hz: 60}
	key := func(k gameloop.Key) gameloop.Input { return gameloop.Input{Kind: gameloop.KeyPress, Key: k} }
	ch := func(r rune) gameloop.Input { return gameloop.Input{Kind: gameloop.Char, Rune: r} }
	script := map[int][]gameloop.Input{
		10: {key(gameloop.KeySpace)}, 30: {ch(']')}, 50: {ch('p')}, 70: {key(gameloop.KeySpace), key(gameloop.KeyG)},
		90: {ch('p'), ch('+')}, 120: {key(gameloop.KeyLeft), ch('[')}, 150: {ch('-'), ch('-')},
	}
	for i := range 300 {
		if i == 200 {
			d.SetHidden(dp.next(), true)
			dp.n += 600
			d.SetHidden(dp.next(), false)
		}
		d.Push(script[i]...)
		if err := d.Frame(played, dp.next(), 800, 600); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	decoded, err := replay.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(decoded.RateChanges) != 2 {
		t.Errorf("rate changes %v, want two", decoded.RateChanges)
	}
	res, err := bouncegame.Replay(t.Context(), decoded.Header, decoded)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched() || res.Ticks != d.Stats().Ticks {
		t.Errorf("replay: %v; want %d ticks matched", res, d.Stats().Ticks)
	}
}

// dtGame records the DT of every VariableUpdate.
type dtGame struct{ dts []time.Duration }

func (g *dtGame) Update(*gameloop.Update) error { return nil }
func (g *dtGame) VariableUpdate(v *gameloop.VariableUpdate) error {
	g.dts = append(g.dts, v.DT)
	return nil
}

// A frame that comes after the page was hidden (a browser may draw one more) does not make the
// time since the last frame negative once the page is shown: the time away left out is only the
// part of it after that frame.
func TestFrameWhileHidden(t *testing.T) {
	d := newDriver(t, gameloop.Config{TickRate: 60})
	g := &dtGame{}
	ms := time.Millisecond
	for _, step := range []struct {
		at     time.Duration
		hidden int // 1 hide, 2 show, 0 a frame
	}{{0, 0}, {5 * ms, 1}, {16 * ms, 0}, {1000 * ms, 2}, {1005 * ms, 0}, {1021 * ms, 0}} {
		switch step.hidden {
		case 1:
			d.SetHidden(step.at, true)
		case 2:
			d.SetHidden(step.at, false)
		default:
			if err := d.Frame(g, step.at, 800, 600); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []time.Duration{0, 16 * ms, 5 * ms, 16 * ms}
	if fmt.Sprint(g.dts) != fmt.Sprint(want) {
		t.Errorf("frame DTs %v, want %v: the time away, from 16 ms to 1000 ms, left out", g.dts, want)
	}
}
