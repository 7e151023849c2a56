package duelnet

import (
	"testing"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
)

// TestHeldInput: in a window or a web page a key holds the paddle from its press to its release (repeats
// add nothing), and a gamepad moves it with the d-pad or the left stick past half way; up and
// down together hold it still.
func TestHeldInput(t *testing.T) {
	var w HeldInput
	steps := []struct {
		in   gameloop.Input
		want duel.Input
	}{
		{gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyUp}, duel.Up},
		{gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyUp, Repeat: true}, duel.Up},
		{gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyS}, 0},
		{gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyUp}, duel.Down},
		{gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyS}, 0},
		{gameloop.Input{Kind: gameloop.GamepadConnect, Gamepad: 3}, 0},
		{gameloop.Input{Kind: gameloop.GamepadPress, Gamepad: 3, PadButton: gameloop.GamepadUp}, duel.Up},
		{gameloop.Input{Kind: gameloop.GamepadRelease, Gamepad: 3, PadButton: gameloop.GamepadUp}, 0},
		{gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 3, Axis: gameloop.GamepadLeftY, AxisValue: gameloop.AxisMax / 3}, 0},
		{gameloop.Input{Kind: gameloop.GamepadMove, Gamepad: 3, Axis: gameloop.GamepadLeftY, AxisValue: gameloop.AxisMax * 2 / 3}, duel.Down},
		{gameloop.Input{Kind: gameloop.GamepadDisconnect, Gamepad: 3}, 0},
		{gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.KeyW}, 0}, // a release never seen pressed
		{gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyW}, duel.Up},
	}
	for i, s := range steps {
		w.Apply(&s.in)
		if got := w.Input(); got != s.want {
			t.Fatalf("after step %d (%v): %v, want %v", i, &s.in, got, s.want)
		}
	}
}
