package ebiten

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
	ebiten "github.com/hajimehoshi/ebiten/v2"
)

// Drawer is implemented by a game that draws with Ebitengine: Draw is called from Ebitengine's
// Draw, with its screen, once for each gameloop.Render. Draw a state between the last two
// updates with r.Alpha (or after the last with r.Ext); r.Width and r.Height are the screen's
// size, as Layout set it. A game that implements Drawer is not asked to Render.
type Drawer interface {
	Draw(screen *ebiten.Image, r *gameloop.Render) error
}

// Layouter is implemented by a game that chooses its screen's size, as an Ebitengine game's
// Layout does. Without it the screen is the window's size (outsideWidth by outsideHeight).
type Layouter interface {
	Layout(outsideWidth, outsideHeight int) (screenWidth, screenHeight int)
}

// Game is a gameloop game as an ebiten.Game: pass it to Run, or to ebiten.RunGame yourself.
// Ebitengine calls its Update once per displayed frame (the first Update sets
// ebiten.SetTPS(ebiten.SyncWithFPS) if Run has not), and that Update runs the frame's input and
// the fixed updates owed at the time it reads; its Draw hands the frame to the game's Draw.
//
// Pause, Resume, Paused, SetTimeScale, SetTickRate, Stats and TickLateness are safe to call
// from any goroutine, the game's callbacks included; a change takes effect before the next
// update. Update, Draw, Layout and SetShouldClose are Ebitengine's goroutine's. The zero value
// is not usable: make one with New. A Game allocates nothing per frame once its buffers have
// grown to the most input a frame brings.
type Game struct {
	game     gameloop.Game
	input    gameloop.InputHandler
	variable gameloop.VariableUpdater
	drawer   Drawer
	renderer gameloop.Renderer
	layouter Layouter

	driver *web.Driver
	clock  gameloop.Clock
	host   host
	frame  frameGame // the game as driver.Frame sees it

	started     bool
	in          []gameloop.Input // the input Ebitengine reported this frame
	width       int              // the screen's size, as Layout last returned it
	height      int
	laidOut     bool // Layout has been called
	sized       bool // the game has been shown a size
	shownWidth  int  // the size the game was last shown (a Resize, or the first frame)
	shownHeight int
	shouldClose bool
	render      gameloop.Render // the frame Update left for Draw
	rendered    bool            // a frame has been left for Draw at least once
	err         error           // a failure of Draw, returned by the next Update
}

// New returns a Game that runs g at cfg's TickRate. cfg's MaxTicksPerFrame, MaxFrameTime,
// TimeScale and FrameTimeSamples work as in gameloop.New; Clock, if set, is read at each frame
// (tests use a *gameloop.ManualClock); MaxFPS, Lazy, Bench, NoFrames and Window are refused:
// Ebitengine owns the window and paces the frames. A nil g is an error (gameloop.ErrNilGame).
//
// g's Draw and Layout (Drawer, Layouter) are found through the games g wraps, if it is a
// gameloop.Wrapper (see gameloop.As): a game wrapped by replay.Recorder.Game or
// netplay.NewLoopGame draws as it would unwrapped, while its input and ticks go through the
// wrapper.
func New(g gameloop.Game, cfg gameloop.Config) (*Game, error) {
	if g == nil {
		return nil, fmt.Errorf("ebiten: New: %w", gameloop.ErrNilGame)
	}
	a, err := newGame(cfg)
	if err != nil {
		return nil, err
	}
	a.setGame(g)
	return a, nil
}

// NewFunc is New for a game that needs the Game that runs it before it can be made:
// netplay.NewLoopGame, which takes it as its netplay.Loop, or a game that pauses itself. It
// makes the Game from cfg, as New does, then calls game with it and runs what game returns:
//
//	g, err := gle.NewFunc(cfg, func(loop *gle.Game) gameloop.Game {
//		return netplay.NewLoopGame(session, game, loop)
//	})
//
// A nil game, or a game that returns nil, is an error (gameloop.ErrNilGame).
func NewFunc(cfg gameloop.Config, game func(loop *Game) gameloop.Game) (*Game, error) {
	if game == nil {
		return nil, errors.New("ebiten: NewFunc: the function that makes the game is nil")
	}
	a, err := newGame(cfg)
	if err != nil {
		return nil, err
	}
	g := game(a)
	if g == nil {
		return nil, fmt.Errorf("ebiten: NewFunc: the function returned no game: %w", gameloop.ErrNilGame)
	}
	a.setGame(g)
	return a, nil
}

// newGame returns a Game for cfg, without its game yet.
func newGame(cfg gameloop.Config) (*Game, error) {
	if err := check(cfg); err != nil {
		return nil, fmt.Errorf("ebiten: %w", err)
	}
	driver, err := web.NewDriver(cfg)
	if err != nil {
		// web's errors begin with "web: ": take the reason it wraps.
		return nil, fmt.Errorf("ebiten: %w", errors.Unwrap(err))
	}
	a := &Game{driver: driver, clock: cfg.Clock, host: &ebitenHost{}, in: make([]gameloop.Input, 0, 64)}
	a.frame.a = a
	if a.clock == nil {
		a.clock = gameloop.NewSystemClock()
	}
	return a, nil
}

// setGame makes g the game run: its callbacks as Run finds them, and its Draw and Layout as
// gameloop.As finds them, through any wrapper.
func (a *Game) setGame(g gameloop.Game) {
	a.game = g
	a.input, _ = g.(gameloop.InputHandler)
	a.variable, _ = g.(gameloop.VariableUpdater)
	a.renderer, _ = g.(gameloop.Renderer)
	a.drawer, _ = gameloop.As[Drawer](g)
	a.layouter, _ = gameloop.As[Layouter](g)
}

// check refuses what Ebitengine does for itself.
func check(cfg gameloop.Config) error {
	bad := func(field string, value any, reason string) error {
		return &gameloop.ConfigError{Field: field, Value: value, Reason: reason}
	}
	switch {
	case cfg.MaxFPS != 0:
		return bad("MaxFPS", cfg.MaxFPS, "Ebitengine paces the frames (v-sync: ebiten.SetVsyncEnabled); leave it 0")
	case cfg.Lazy:
		return bad("Lazy", cfg.Lazy, "not supported inside Ebitengine")
	case cfg.Bench:
		return bad("Bench", cfg.Bench, "Ebitengine runs in real time; replay a recording headless instead")
	case cfg.NoFrames:
		return bad("NoFrames", cfg.NoFrames, "Ebitengine draws every frame")
	case cfg.Window != nil:
		return bad("Window", fmt.Sprintf("%T", cfg.Window), "Ebitengine owns the window; leave it nil")
	}
	return nil
}

// Run runs g in Ebitengine's window until the game returns gameloop.ErrStop, the window is
// closed (both return nil) or a callback fails (its error, wrapped with the tick or frame; a
// panic as a *gameloop.PanicError). It sets Ebitengine's TPS to SyncWithFPS and handles the
// window's close button itself (see SetShouldClose), then calls ebiten.RunGameWithOptions with
// options (nil for Ebitengine's defaults). Call it from main, as ebiten.RunGame, once a process.
func Run(g *Game, options *ebiten.RunGameOptions) error {
	if err := g.usable(); err != nil {
		return fmt.Errorf("ebiten: Run: %w", err)
	}
	g.host.start()
	g.started = true
	if err := ebiten.RunGameWithOptions(g, options); err != nil {
		return fmt.Errorf("ebiten: %w", err)
	}
	return nil
}

// Update is Ebitengine's Update: it runs one frame of the loop at the clock's time, up to the
// Render, which Draw carries out. It returns ebiten.Termination once the game has returned
// gameloop.ErrStop or the window is to close, and the game's error if it failed.
func (a *Game) Update() error {
	if err := a.usable(); err != nil {
		return fmt.Errorf("ebiten: Update: %w", err)
	}
	if a.err != nil {
		return a.err
	}
	if !a.started {
		a.host.start()
		a.started = true
	}
	now := a.clock.Now()
	a.in = a.host.appendInput(a.in[:0])
	// A new size (not zero: that is a minimised window) reaches the game before the frame drawn
	// at it; the first size the game learns from its first Render, as from a window it opened.
	if a.laidOut && a.width > 0 && a.height > 0 {
		if a.sized && (a.width != a.shownWidth || a.height != a.shownHeight) {
			a.in = append(a.in, gameloop.Input{Kind: gameloop.Resize, Width: a.width, Height: a.height})
		}
		a.sized, a.shownWidth, a.shownHeight = true, a.width, a.height
	}
	for i := range a.in {
		if a.in[i].Kind == gameloop.Close {
			a.shouldClose = true
		}
	}
	a.driver.Push(a.in...)
	width, height := a.width, a.height
	if a.host.minimized() {
		width, height = 0, 0 // no frame is drawn at zero size, as with backend/glfw
	}
	if err := a.driver.Frame(&a.frame, now, width, height); err != nil {
		return a.end(err)
	}
	if a.shouldClose {
		return ebiten.Termination
	}
	return nil
}

// errNotMade is the error of a Game that New did not make.
var errNotMade = errors.New("the Game was not made with New or NewFunc")

// usable returns an error for a nil Game or one that New did not make.
func (a *Game) usable() error {
	if a == nil {
		return errors.New("the *Game is nil")
	}
	if a.driver == nil || a.game == nil {
		return errNotMade
	}
	return nil
}

// end returns what Update returns for err, a callback's error: Termination for ErrStop.
func (a *Game) end(err error) error {
	var p *gameloop.PanicError
	if errors.Is(err, gameloop.ErrStop) && !errors.As(err, &p) {
		err = ebiten.Termination
	}
	a.err = err
	return err
}

// Draw is Ebitengine's Draw: it calls the game's Draw (or Render) with the frame the last
// Update left. When Ebitengine draws without an Update in between, the last frame is drawn
// again, the same Render, so that the screen Ebitengine has cleared is not left blank. A
// failure is returned by the next Update.
func (a *Game) Draw(screen *ebiten.Image) {
	if !a.rendered || a.err != nil {
		return
	}
	if err := a.draw(screen); err != nil {
		a.err = a.end(err) // returned by the next Update
	}
}

// draw calls the game's Draw or Render, turning a panic into a *gameloop.PanicError.
func (a *Game) draw(screen *ebiten.Image) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &gameloop.PanicError{Value: v, Stack: debug.Stack(), Where: fmt.Sprintf("Draw of frame %d", a.render.Frame)}
		}
	}()
	switch {
	case a.drawer != nil:
		err = a.drawer.Draw(screen, &a.render)
	case a.renderer != nil:
		err = a.renderer.Render(&a.render)
	}
	if err != nil && !errors.Is(err, gameloop.ErrStop) {
		return fmt.Errorf("gameloop: Draw of frame %d: %w", a.render.Frame, err)
	}
	return err
}

// Layout is Ebitengine's Layout: the game's Layout if it has one, else the window's size. A
// change of the size reaches the game as a Resize input before the next update.
func (a *Game) Layout(outsideWidth, outsideHeight int) (screenWidth, screenHeight int) {
	screenWidth, screenHeight = outsideWidth, outsideHeight
	if a.layouter != nil {
		screenWidth, screenHeight = a.layouter.Layout(outsideWidth, outsideHeight)
	}
	a.width, a.height, a.laidOut = screenWidth, screenHeight, true
	return screenWidth, screenHeight
}

// SetShouldClose sets or clears the request to close: true ends Run once the frame is done;
// false, while the game handles a Close input, keeps the window open.
func (a *Game) SetShouldClose(close bool) { a.shouldClose = close }

// Pause stops game time before the next update: frames go on, with Alpha and Ext frozen.
func (a *Game) Pause() { a.driver.Pause() }

// Resume lets game time run again from where it stopped.
func (a *Game) Resume() { a.driver.Resume() }

// Paused reports whether the game is paused (or will be, before its next update).
func (a *Game) Paused() bool { return a.driver.Paused() }

// SetTimeScale makes game time run at scale times real time; see gameloop.Loop.SetTimeScale.
func (a *Game) SetTimeScale(scale float64) error {
	if err := a.driver.SetTimeScale(scale); err != nil {
		return fmt.Errorf("ebiten: %w", errors.Unwrap(err))
	}
	return nil
}

// SetTickRate changes the number of updates per second; see gameloop.Loop.SetTickRate.
func (a *Game) SetTickRate(rate int) error {
	if err := a.driver.SetTickRate(rate); err != nil {
		return fmt.Errorf("ebiten: %w", errors.Unwrap(err))
	}
	return nil
}

// Clock returns the clock each frame's time is read from: Config.Clock, or the system's
// monotonic clock. With it a Game is a netplay.Loop, so that netplay.NewLoopGame runs a netplay
// session in an Ebitengine window (make the Game with NewFunc, which hands it to the function
// that makes the game).
func (a *Game) Clock() gameloop.Clock { return a.clock }

// Stats returns what the loop has done so far, as gameloop.Loop.Stats does. MaxFPS is 0:
// Ebitengine paces the frames.
func (a *Game) Stats() gameloop.Stats { return a.driver.Stats() }

// TickLateness returns how late the recent ticks ran against their ideal times on the tick
// grid: a tick can only run when a frame comes, so it runs up to a frame late.
func (a *Game) TickLateness() web.Lateness { return a.driver.TickLateness() }

// frameGame is the game as the driver runs it in Update: everything goes to the game but the
// Render, which is kept for Ebitengine's Draw.
type frameGame struct{ a *Game }

func (f *frameGame) Update(u *gameloop.Update) error { return f.a.game.Update(u) }

func (f *frameGame) Input(in *gameloop.Input) error {
	if f.a.input == nil {
		return nil
	}
	return f.a.input.Input(in)
}

func (f *frameGame) VariableUpdate(v *gameloop.VariableUpdate) error {
	if f.a.variable == nil {
		return nil
	}
	return f.a.variable.VariableUpdate(v)
}

func (f *frameGame) Render(r *gameloop.Render) error {
	f.a.render, f.a.rendered = *r, true
	return nil
}

var _ ebiten.Game = (*Game)(nil)
