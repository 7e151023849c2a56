package netplay

import (
	"errors"

	"github.com/gameloop-go/gameloop"
)

// Loop is what NewLoopGame needs of the loop that runs the game: its clock, for the session's
// timers, and its time scale, for time sync. *gameloop.Loop has both.
type Loop interface {
	Clock() gameloop.Clock
	SetTimeScale(scale float64) error
}

// NewLoopGame returns a gameloop.Game that runs g in session s from loop's fixed step: each
// Update adds every local player's input (g.LocalInput), advances the session, carries out its
// requests on g (see Run) and sets the loop's time scale to the session's recommendation, so
// that a peer ahead of the others slows down a little rather than skipping ticks. A tick the
// session cannot run yet (ErrNotSynchronized, ErrPredictionThreshold) is skipped: the loop's
// Update has no tick of the game then, and the game's tick numbers, not the loop's, count
// what ran. Other errors of the session end the loop's Run.
//
// Between the loop's ticks the session is not polled: a loop that ticks at the game's rate
// polls often enough. A paused loop runs no Update, so a game that pauses (a menu) polls the
// session from its other callbacks meanwhile (Render, say: s.Poll(loop.Clock().Now())), or the
// peers take it for gone after the disconnect timeout. Events, Stats and PeerStats may be read
// from the loop's other callbacks.
//
// If g also implements gameloop.InputHandler, gameloop.VariableUpdater or gameloop.Renderer,
// the loop's input events, variable updates and frames reach it through the returned game:
// read the keys in Input for LocalInput, and draw in Render, interpolating with its Alpha.
// The returned game is a gameloop.Wrapper of g, so that a backend finds what else g implements:
// inside Ebitengine (backend/ebiten, which is a Loop: make it with its NewFunc, which hands it
// to the function that calls NewLoopGame), g draws with its Draw and sizes its screen with
// its Layout.
//
// A nil s, g or loop makes the returned game's first Update return an error that names it.
func NewLoopGame[I comparable](s *Session[I], g Game[I], loop Loop) gameloop.Game {
	lg := &loopGame[I]{s: s, g: g, loop: loop, scale: 1}
	switch {
	case s == nil:
		lg.err = errors.New("netplay: NewLoopGame: the *Session is nil")
	case g == nil:
		lg.err = errors.New("netplay: NewLoopGame: the Game is nil")
	case loop == nil:
		lg.err = errors.New("netplay: NewLoopGame: the Loop is nil")
	}
	lg.input, _ = g.(gameloop.InputHandler)
	lg.variable, _ = g.(gameloop.VariableUpdater)
	lg.renderer, _ = g.(gameloop.Renderer)
	return lg
}

type loopGame[I comparable] struct {
	s     *Session[I]
	g     Game[I]
	loop  Loop
	scale float64
	// What g implements of the loop's other callbacks, if anything.
	input    gameloop.InputHandler
	variable gameloop.VariableUpdater
	renderer gameloop.Renderer
	err      error // a nil argument of NewLoopGame's
}

// Unwrap returns the netplay game run.
func (lg *loopGame[I]) Unwrap() any { return lg.g }

// Input passes the loop's input events to the game, if it takes them.
func (lg *loopGame[I]) Input(in *gameloop.Input) error {
	if lg.input == nil {
		return nil
	}
	return lg.input.Input(in)
}

// VariableUpdate passes the loop's variable updates to the game, if it takes them.
func (lg *loopGame[I]) VariableUpdate(v *gameloop.VariableUpdate) error {
	if lg.variable == nil {
		return nil
	}
	return lg.variable.VariableUpdate(v)
}

// Render passes the loop's frames to the game, if it draws.
func (lg *loopGame[I]) Render(r *gameloop.Render) error {
	if lg.renderer == nil {
		return nil
	}
	return lg.renderer.Render(r)
}

func (lg *loopGame[I]) Update(*gameloop.Update) error {
	if lg.err != nil {
		return lg.err
	}
	now := lg.loop.Clock().Now()
	for h, p := range lg.s.players {
		if p.Local {
			if err := lg.s.AddLocalInput(h, lg.g.LocalInput(h)); err != nil {
				return err
			}
		}
	}
	reqs, err := lg.s.Advance(now)
	switch {
	case errors.Is(err, ErrNotSynchronized), errors.Is(err, ErrPredictionThreshold):
	case err != nil:
		return err
	default:
		if err := Run(reqs, lg.g); err != nil {
			return err
		}
	}
	if scale := lg.s.TimeScale(); scale != lg.scale {
		lg.scale = scale
		return lg.loop.SetTimeScale(scale)
	}
	return nil
}
