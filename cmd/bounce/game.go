package main

import (
	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
)

// game is the demo's gameloop.Game, shared with the browser demo (cmd/bounceweb).
type game = bouncegame.Game

// newGame returns the game for a window of width by height cells, running on loop (nil for a
// replay, which runs its own loop).
func newGame(opts options, loop *gameloop.Loop, v *view, width, height int) *game {
	s := startOf(opts, width, height)
	var controls bouncegame.Controls
	if loop != nil {
		controls = loop
		s.TickRate = loop.Config().TickRate
	}
	g := bouncegame.New(s, controls, v)
	g.PanicAtTick = opts.panicAtTick
	return g
}
