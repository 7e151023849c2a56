package term_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/term"
	"github.com/gdamore/tcell/v2"
)

// hello draws a line of text where a counter says how many ticks have run.
type hello struct {
	win   *term.Window
	ticks uint64
}

func (h *hello) Update(u *gameloop.Update) error { h.ticks = u.Tick; return nil }

func (h *hello) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.Char && in.Rune == 'q' {
		return gameloop.ErrStop
	}
	return nil
}

func (h *hello) Render(r *gameloop.Render) error {
	h.win.Clear()
	h.win.Text(0, 0, fmt.Sprintf("tick %d (q quits)", h.ticks), tcell.StyleDefault)
	return nil
}

// A game in the terminal, restoring it on every way out: the deferred Close covers a normal
// return and a panic in main; Run returns a panic in the game as an error, printed after the
// terminal is restored; SIGTERM cancels the context, and Ctrl-C closes the window.
func Example() {
	if err := runHello(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func runHello() error {
	win, err := term.Open(term.Options{})
	if err != nil {
		return err
	}
	defer win.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	loop, err := gameloop.New(gameloop.Config{Window: win, TickRate: 10, MaxFPS: 30})
	if err != nil {
		return err
	}
	err = loop.Run(ctx, &hello{win: win})
	win.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
