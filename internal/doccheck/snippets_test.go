package doccheck_test

// The Go fragments of README.md and docs/, each as written there, in the context it assumes.
// TestGoSnippets checks that each is here; the compiler checks the rest.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/glfw"
	"github.com/gameloop-go/gameloop/netplay/relay"
	"github.com/gameloop-go/gameloop/netsim"
	"github.com/gameloop-go/gameloop/replay"
)

// README.md: pull the events (Piston's loop).
func pullEvents(ctx context.Context, win gameloop.Window, handle func(*gameloop.Input),
	velocity gameloop.Vec2, draw func(gameloop.Vec2), sceneOver func() bool) error {
	loop, err := gameloop.New(gameloop.Config{TickRate: 60, MaxFPS: 144, Window: win})
	if err != nil {
		return err
	}
	var pos gameloop.Interpolated[gameloop.Vec2]
	for ev := range loop.Events(ctx) {
		switch ev := ev.(type) {
		case *gameloop.Input: // all input arrives before the update it precedes
			handle(ev)
		case *gameloop.Update: // fixed step: ev.DT is the same every tick
			pos.Set(pos.Curr.Add(velocity.Scale(ev.Seconds)))
		case *gameloop.Render: // draw between the last two updates
			draw(pos.At(ev.Alpha))
		}
		if sceneOver() {
			break // the loop stays where it stopped: range over loop.Events again in the next scene
		}
	}
	return loop.Err() // nil when the window closed; ctx.Err() if cancelled
}

// README.md: own the frame (a host's callback).
func ownTheFrame(update func(), render func(alpha float64)) func(time.Duration) {
	sched, _ := gameloop.NewSchedule(gameloop.Config{TickRate: 60})
	onHostFrame := func(now time.Duration) {
		st := sched.Advance(now) // what is owed at this time: pure, reads no clock
		for range st.Ticks {
			sched.Next()
			update()
		}
		render(st.Alpha)
	}
	return onHostFrame
}

// docs/glfw.md.
func runWindowed(ctx context.Context, newGame func(*glfw.Renderer) gameloop.Game) error {
	win, err := glfw.Open(glfw.Options{Title: "game", Width: 640, Height: 480, Resizable: true, VSync: true})
	if err != nil {
		return err // glfw.ErrNoDisplay when DISPLAY is not set: "no display: set DISPLAY or run under xvfb-run"
	}
	defer win.Close()
	renderer, err := glfw.NewRenderer(win)
	if err != nil {
		return err
	}
	defer renderer.Close()
	loop, err := gameloop.New(gameloop.Config{Window: win, TickRate: 60, MaxFPS: 60})
	if err != nil {
		return err
	}
	return loop.Run(ctx, newGame(renderer)) // nil when the window is closed
}

// docs/replay.md: recording.
func recordSession(ctx context.Context, loop *gameloop.Loop, game gameloop.Game, seedAndSize []byte) error {
	f, err := os.Create("session.rec")
	if err != nil {
		return err
	}
	rec, err := replay.NewRecorder(f, loop.Config().TickRate, &replay.RecordOptions{
		Name: "bounce",
		Meta: seedAndSize, // whatever the game needs to start in the same state
	})
	if err != nil {
		return errors.Join(err, f.Close())
	}
	err = loop.Run(ctx, rec.Game(game)) // records Input before the game sees it, a checksum after each Update
	return errors.Join(err, rec.Close(), f.Close())
}

// docs/replay.md: replaying.
func replaySession(ctx context.Context, f io.Reader, newGame func() gameloop.Game) error {
	res, err := replay.Play(ctx, f, newGame(), nil) // bench mode, headless, reading f as it goes
	if err != nil {
		return err // damaged recording, or the game failed
	}
	fmt.Println(res) // matched: 36000 ticks, 600 inputs, 36000 checksums in 27ms
	if !res.Matched() {
		return fmt.Errorf("replay differs at tick %d", res.Mismatch.Tick) // the first tick that differed
	}
	return nil
}

// docs/replay.md: wiring -record and -replay into a demo.
type config struct{ seed uint64 }

func encodeStart(c config) []byte { return fmt.Appendf(nil, "seed=%d", c.seed) }
func decodeStart([]byte) config   { return config{} }
func newSimGame(config) gameloop.Game {
	return gameloop.GameFunc(func(*gameloop.Update) error { return nil })
}
func runGame(loop *gameloop.Loop, g gameloop.Game) error { return loop.Run(context.Background(), g) }

func wireRecord(loop *gameloop.Loop, recordPath *string, cfg config, game gameloop.Game) (err error) {
	// -record FILE: wrap the game before handing it to Run.
	if *recordPath != "" {
		f, err := os.Create(*recordPath)
		if err != nil {
			return err
		}
		rec, err := replay.NewRecorder(f, loop.Config().TickRate,
			&replay.RecordOptions{Name: "bounce", Meta: encodeStart(cfg)})
		if err != nil {
			return errors.Join(err, f.Close())
		}
		defer func() { err = errors.Join(err, rec.Close(), f.Close()) }()
		game = rec.Game(game)
	}
	return runGame(loop, game)
}

func wireReplay(ctx context.Context, path string) error {
	// -replay FILE: headless, fast, prints whether it matched.
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	recording, err := replay.Open(bufio.NewReader(f))
	if err != nil {
		return err
	}
	if recording.Name != "bounce" {
		return fmt.Errorf("%s is a recording of %q, not of bounce", path, recording.Name)
	}
	res, err := recording.Play(ctx, newSimGame(decodeStart(recording.Meta)), nil)
	if err != nil {
		return err
	}
	fmt.Println(res) // says so if the recording was cut short
	if !res.Matched() {
		return errors.New("the replay did not match")
	}
	return nil
}

// docs/server.md: how late each update of a pool's match began.
type timed struct {
	clock *gameloop.SharedClock
	m     *gameloop.Match
	late  time.Duration // the most an update of the match began late
}

func (g *timed) Update(u *gameloop.Update) error {
	g.late = max(g.late, g.clock.Now()-g.m.Due())
	return nil
}

func startTimed(ctx context.Context, pool *gameloop.Pool) error {
	g := &timed{clock: pool.Clock()}
	m, err := pool.NewMatch(ctx, g, gameloop.Config{TickRate: 20})
	if err != nil {
		return err
	}
	g.m = m // before Start: the first update may run at once
	m.Start()
	return nil
}

// docs/gamepads.md: a game that follows its gamepads.
type game struct {
	pads [gameloop.MaxGamepads]gameloop.GamepadState
	vx   int64
}

const maxSpeed = 100

func (g *game) jump() {}

func (g *game) Input(in *gameloop.Input) error {
	if int(in.Gamepad) < len(g.pads) {
		g.pads[in.Gamepad].Apply(in) // inputs that are not a gamepad's leave it as it is
	}
	return nil
}

func (g *game) Update(u *gameloop.Update) error {
	pad := &g.pads[0]
	if pad.Pressed(gameloop.GamepadSouth) {
		g.jump()
	}
	g.vx += int64(pad.Axis(gameloop.GamepadLeftX)) * maxSpeed / gameloop.AxisMax
	return nil
}

// docs/netsim.md: a bad network around any conn.
func wrapPoor(conn net.PacketConn) error {
	conditions, err := netsim.Preset("poor")
	if err != nil {
		return err
	}
	conn = netsim.Wrap(conn, conditions, 1) // before netplay.NewSession(conn, cfg)
	return conn.Close()
}

// The fragments are compiled, not run.
var _ = []any{wrapPoor, pullEvents, ownTheFrame, runWindowed, recordSession, replaySession, wireRecord, wireReplay, startTimed, (*game).Input, (*game).Update,
	createPartyMatch, createLongMatch}

// docs/relay.md: a match of four that starts with two and takes the others late.
func createPartyMatch(r *relay.Relay) error {
	return r.CreateMatch("party-7", relay.MatchConfig{Players: 4, MinPlayers: 2, InputSize: 2, TickRate: 60})
}

// docs/relay.md: a match that gathers a state snapshot every 10 s.
func createLongMatch(r *relay.Relay) error {
	return r.CreateMatch("long-7", relay.MatchConfig{Players: 2, InputSize: 1, TickRate: 60, SnapshotEvery: 600})
}
