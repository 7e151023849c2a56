package gameloop

import (
	"context"
	"errors"
	"testing"
)

// TestRunNilGame: Run with a nil Game returns ErrNilGame, where it panicked in its first
// update; the loop is untouched and runs a game afterwards.
func TestRunNilGame(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10, NoFrames: true})
	err := l.Run(context.Background(), nil)
	if !errors.Is(err, ErrNilGame) {
		t.Fatalf("Run(ctx, nil) = %v, want ErrNilGame", err)
	}
	g := &testGame{}
	g.update = func(u *Update) error {
		if u.Tick == 3 {
			return ErrStop
		}
		return nil
	}
	if err := l.Run(context.Background(), g); err != nil || g.updates != 3 {
		t.Errorf("Run after: %v with %d updates, want nil with 3", err, g.updates)
	}
}

// TestNilContext: Run with a nil context.Context returns ErrNilContext, and a range over Events
// with one ends at once, Err saying why; both panicked before.
func TestNilContext(t *testing.T) {
	l, _ := newLoop(t, Config{TickRate: 10, NoFrames: true})
	var ctx context.Context // nil
	g := &testGame{}
	if err := l.Run(ctx, g); !errors.Is(err, ErrNilContext) || g.updates != 0 {
		t.Errorf("Run(nil, g) = %v after %d updates, want ErrNilContext and none", err, g.updates)
	}
	n := 0
	for range l.Events(ctx) {
		n++
	}
	if err := l.Err(); n != 0 || !errors.Is(err, ErrNilContext) {
		t.Errorf("Events(nil): %d events, Err %v; want none and ErrNilContext", n, err)
	}
}

// wrapping is a Wrapper around a game, passing on Update only.
type wrapping struct{ inner any }

func (w *wrapping) Update(*Update) error { return nil }
func (w *wrapping) Unwrap() any          { return w.inner }

// drawer is what a backend might ask of a game besides Run's callbacks.
type drawer interface{ Draw() string }

type drawing struct{ name string }

func (d *drawing) Update(*Update) error { return nil }
func (d *drawing) Draw() string         { return d.name }

func TestAs(t *testing.T) {
	inner := &drawing{"inner"}
	if d, ok := As[drawer](&wrapping{&wrapping{inner}}); !ok || d.Draw() != "inner" {
		t.Errorf("As through two wrappers: %v, %v; want the inner game", d, ok)
	}
	outer := &struct {
		wrapping
		drawing
	}{wrapping{inner}, drawing{"outer"}}
	if d, ok := As[drawer](outer); !ok || d.Draw() != "outer" {
		t.Errorf("As of a wrapper that draws: %v, %v; want the wrapper, outermost first", d, ok)
	}
	if _, ok := As[drawer](&wrapping{&testGame{}}); ok {
		t.Error("As found a drawer where there is none")
	}
	if _, ok := As[drawer](nil); ok {
		t.Error("As found a drawer in nil")
	}
	self := &wrapping{}
	self.inner = self
	if _, ok := As[drawer](self); ok {
		t.Error("As found a drawer in a wrapper of itself")
	}
}
