package replay_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
)

// drawnBounce is the bounce game with a method of a backend's besides Run's callbacks, as an
// Ebitengine game's Draw.
type drawnBounce struct {
	*bounceGame
	draws int
}

func (g *drawnBounce) Draw() { g.draws++ }

// TestRecordedGameUnwraps: the recorder's wrapper is a gameloop.Wrapper of the game, so that
// gameloop.As finds what the game implements that the wrapper does not pass on (a recorded
// Ebitengine game lost its Draw and Layout: backend/ebiten's TestRecordedInWindow shows it in
// a window).
func TestRecordedGameUnwraps(t *testing.T) {
	rec, err := replay.NewRecorder(&bytes.Buffer{}, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &drawnBounce{bounceGame: newBounce()}
	wrapped := rec.Game(g)
	if w, ok := wrapped.(gameloop.Wrapper); !ok || w.Unwrap() != g {
		t.Fatalf("the wrapper is %T, not a gameloop.Wrapper of the game", wrapped)
	}
	d, ok := gameloop.As[interface{ Draw() }](wrapped)
	if !ok {
		t.Fatal("gameloop.As found no Draw through the recorder's wrapper")
	}
	d.Draw()
	if g.draws != 1 {
		t.Errorf("the game drew %d times, want 1", g.draws)
	}
}

// TestRecorderNil: a nil writer or game is an error, where the game panicked at the first tick.
func TestRecorderNil(t *testing.T) {
	if _, err := replay.NewRecorder(nil, 60, nil); err == nil {
		t.Error("NewRecorder(nil, ...) accepted")
	}
	rec, err := replay.NewRecorder(&bytes.Buffer{}, 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := gameloop.New(gameloop.Config{TickRate: 60, Bench: true, NoFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	err = loop.Run(context.Background(), rec.Game(nil))
	if !errors.Is(err, gameloop.ErrNilGame) {
		t.Errorf("Run of rec.Game(nil) = %v, want an error wrapping gameloop.ErrNilGame", err)
	}
	if err := rec.Close(); !errors.Is(err, gameloop.ErrNilGame) {
		t.Errorf("Close after Game(nil) = %v, want the same error", err)
	}
}
