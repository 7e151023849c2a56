package main

import (
	"context"
	"fmt"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/term"
)

// runTerminal plays the game in the terminal. The terminal is restored on every way out: the
// deferred Close on a return or a panic that escapes the loop, the explicit Close before a
// panic in the game (returned by Run as a *gameloop.PanicError) is printed; Ctrl-C is a key
// that closes the window, and a signal cancels ctx, which ends Run.
func runTerminal(ctx context.Context, opts options) error {
	win, err := term.Open(term.Options{})
	if err != nil {
		return fmt.Errorf("%w (-headless runs without a terminal)", err)
	}
	defer win.Close()
	loop, err := gameloop.New(gameloop.Config{TickRate: opts.tickRate, MaxFPS: opts.maxFPS, Window: win})
	if err != nil {
		return fmt.Errorf("creating the loop: %w", err)
	}
	width, height := win.Size()
	g := newGame(opts, loop, newView(opts.glyphs, win), width, height)
	err = play(ctx, opts, loop, g, width, height)
	if cerr := win.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("restoring the terminal: %w", cerr)
	}
	return err
}
