package gameloop

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

// Game is what Run drives: the game logic, in the shape of the LWJGL book's IGameLogic. Update
// is required; a Game may also implement InputHandler, VariableUpdater and Renderer, which Run
// finds by type assertion.
type Game interface {
	// Update advances the game by one fixed step.
	Update(u *Update) error
}

// InputHandler is implemented by a Game that takes input events.
type InputHandler interface {
	Input(in *Input) error
}

// VariableUpdater is implemented by a Game that does work once per drawn frame, before Render.
type VariableUpdater interface {
	VariableUpdate(v *VariableUpdate) error
}

// Renderer is implemented by a Game that draws.
type Renderer interface {
	Render(r *Render) error
}

// Run drives g with the loop's events until the window closes (Run returns nil), a callback
// returns ErrStop (nil), a callback fails (its error, wrapped with the tick or frame), or ctx is
// cancelled (ctx.Err()). A panic in a callback is recovered and returned as a *PanicError with
// its stack, so that the caller can restore the terminal or close the window before reporting
// it. The loop can be run again afterwards, and goes on where it stopped.
//
// Run returns an error wrapping ErrAlreadyRunning, and does nothing else, if the loop is already
// running (Run or a range over Events, in any goroutine). A nil g or ctx is an error too
// (ErrNilGame, ErrNilContext), returned before the loop starts.
func (l *Loop) Run(ctx context.Context, g Game) error {
	switch {
	case g == nil:
		return fmt.Errorf("gameloop: Run: %w", ErrNilGame)
	case ctx == nil:
		return fmt.Errorf("gameloop: Run: %w", ErrNilContext)
	}
	if !l.running.CompareAndSwap(false, true) {
		return fmt.Errorf("gameloop: Run: %w", ErrAlreadyRunning)
	}
	defer l.running.Store(false)
	input, _ := g.(InputHandler)
	variable, _ := g.(VariableUpdater)
	renderer, _ := g.(Renderer)
	l.noIdle = true
	var err error
	l.events(ctx, func(ev Event) bool {
		switch ev := ev.(type) {
		case *Input:
			if input != nil {
				err = call(input.Input, ev, "Input before tick", ev.Tick)
			}
		case *Update:
			err = call(g.Update, ev, "Update at tick", ev.Tick)
		case *VariableUpdate:
			if variable != nil {
				err = call(variable.VariableUpdate, ev, "VariableUpdate of frame", ev.Frame)
			}
		case *Render:
			if renderer != nil {
				err = call(renderer.Render, ev, "Render of frame", ev.Frame)
			}
		}
		return err == nil
	})
	if err != nil {
		if err == errStopped {
			return nil
		}
		return err
	}
	return l.Err()
}

// ErrNilGame is the error Run returns, wrapped, for a nil Game, as do the backends and the
// wrappers that take a Game (backend/ebiten.New, replay.Recorder.Game).
var ErrNilGame = errors.New("gameloop: the Game is nil")

// ErrNilContext is the error Run returns, wrapped, for a nil context.Context, and Err after a
// range over Events with one: pass context.Background() for a loop that only its window ends.
var ErrNilContext = errors.New("gameloop: the context.Context is nil")

// Wrapper is implemented by a Game that wraps another game: replay.Recorder.Game's, which records
// the input and ticks it passes on, and netplay.NewLoopGame's, which runs a netplay game from
// the loop's ticks. Unwrap returns the game wrapped.
//
// A wrapper passes on the callbacks Run makes (Update, and Input, VariableUpdate and Render if
// the game has them), but cannot know of what a backend asks of a game besides: an Ebitengine
// game's Draw and Layout (backend/ebiten). Such a backend looks for them with As, which looks
// through the wrappers, so that a game wrapped to be recorded or to play over the network still
// draws.
type Wrapper interface {
	Unwrap() any
}

// maxWrapped bounds how deep As looks, against a wrapper that unwraps to itself.
const maxWrapped = 64

// As returns the first of g and the games it wraps (through Wrapper, outermost first) that is a
// T, and true; or the zero T and false if none is. A backend calls it for what a game may
// implement that a wrapper does not pass on; see Wrapper.
func As[T any](g any) (T, bool) {
	for range maxWrapped {
		if t, ok := g.(T); ok {
			return t, true
		}
		w, ok := g.(Wrapper)
		if !ok {
			break
		}
		g = w.Unwrap()
	}
	var zero T
	return zero, false
}

// errStopped is what call returns when a callback returned ErrStop. Only a returned ErrStop ends
// Run normally: a panic whose value is or wraps ErrStop is still a panic.
var errStopped = errors.New("gameloop: stopped by the game")

// call calls f(ev), turning an error or a panic into an error that says where it happened.
func call[E any](f func(E) error, ev E, where string, n uint64) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked(v, where, n)
		}
	}()
	return callResult(f(ev), where, n)
}

// callUpdate is call for g.Update, through the interface: a pool, with thousands of matches out
// of the cache, saves fetching a method value's closure on every pass.
func callUpdate(g Game, u *Update) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked(v, "Update at tick", u.Tick)
		}
	}()
	return callResult(g.Update(u), "Update at tick", u.Tick)
}

// panicked is the error of a panic in a callback.
func panicked(v any, where string, n uint64) error {
	return &PanicError{Value: v, Stack: debug.Stack(), Where: fmt.Sprintf("%s %d", where, n)}
}

// callResult is the error call returns for what a callback returned.
func callResult(err error, where string, n uint64) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrStop) {
		return errStopped
	}
	return fmt.Errorf("gameloop: %s %d: %w", where, n, err)
}

// PanicError is a panic in a game's callback, recovered by Run.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the stack of the panicking goroutine
	Where string // the callback and its tick or frame, such as "Update at tick 42"
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("gameloop: panic in %s: %v\n%s", e.Where, e.Value, e.Stack)
}

// Unwrap returns the panic's value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// GameFunc adapts an update function to a Game, for games that only update.
type GameFunc func(u *Update) error

// Update calls f(u).
func (f GameFunc) Update(u *Update) error { return f(u) }
