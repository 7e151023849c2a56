package web

import (
	"reflect"
	"testing"

	"github.com/gameloop-go/gameloop"
)

func TestKeyOf(t *testing.T) {
	for code, want := range map[string]gameloop.Key{
		"KeyA": gameloop.KeyA, "KeyZ": gameloop.KeyZ, "Digit0": gameloop.Key0, "Digit9": gameloop.Key9,
		"F1": gameloop.KeyF1, "F9": gameloop.KeyF9, "F10": gameloop.KeyF10, "F12": gameloop.KeyF12,
		"Space": gameloop.KeySpace, "Equal": gameloop.KeyEqual, "BracketLeft": gameloop.KeyLeftBracket,
		"ArrowLeft": gameloop.KeyLeft, "Backspace": gameloop.KeyBackspace, "Escape": gameloop.KeyEscape,
		"NumpadEnter": gameloop.KeyEnter, "ShiftRight": gameloop.KeyRightShift, "MetaLeft": gameloop.KeyLeftSuper,
		"": gameloop.KeyUnknown, "Keya": gameloop.KeyUnknown, "F13": gameloop.KeyUnknown, "Digit": gameloop.KeyUnknown,
		"Numpad5": gameloop.KeyUnknown, "KeyAB": gameloop.KeyUnknown,
	} {
		if got := KeyOf(code); got != want {
			t.Errorf("KeyOf(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestAppendKeyInput(t *testing.T) {
	press := func(k gameloop.Key, m gameloop.Mods) gameloop.Input {
		return gameloop.Input{Kind: gameloop.KeyPress, Key: k, Mods: m}
	}
	char := func(r rune, m gameloop.Mods) gameloop.Input {
		return gameloop.Input{Kind: gameloop.Char, Rune: r, Mods: m}
	}
	for _, tt := range []struct {
		name string
		ev   KeyEvent
		want []gameloop.Input
	}{
		{"a letter", KeyEvent{Down: true, Code: "KeyP", Key: "p"}, []gameloop.Input{press(gameloop.KeyP, 0), char('p', 0)}},
		{"plus, shifted", KeyEvent{Down: true, Code: "Equal", Key: "+", Mods: gameloop.ModShift},
			[]gameloop.Input{press(gameloop.KeyEqual, gameloop.ModShift), char('+', gameloop.ModShift)}},
		{"space", KeyEvent{Down: true, Code: "Space", Key: " "}, []gameloop.Input{press(gameloop.KeySpace, 0), char(' ', 0)}},
		{"a named key", KeyEvent{Down: true, Code: "ArrowUp", Key: "ArrowUp"}, []gameloop.Input{press(gameloop.KeyUp, 0)}},
		{"released", KeyEvent{Code: "KeyP", Key: "p"}, []gameloop.Input{{Kind: gameloop.KeyRelease, Key: gameloop.KeyP}}},
		{"repeated", KeyEvent{Down: true, Code: "KeyX", Key: "x", Repeat: true},
			[]gameloop.Input{{Kind: gameloop.KeyPress, Key: gameloop.KeyX, Repeat: true}, char('x', 0)}},
		{"a shortcut", KeyEvent{Down: true, Code: "KeyC", Key: "c", Mods: gameloop.ModControl}, []gameloop.Input{press(gameloop.KeyC, gameloop.ModControl)}},
		{"another layout's letter", KeyEvent{Down: true, Code: "Numpad5", Key: "é"}, []gameloop.Input{char('é', 0)}},
		{"dead key", KeyEvent{Down: true, Code: "Quote", Key: "Dead"}, []gameloop.Input{press(gameloop.KeyApostrophe, 0)}},
	} {
		if got := AppendKeyInput(nil, tt.ev); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestHeldKeys(t *testing.T) {
	var h heldKeys
	h.note(AppendKeyInput(nil, KeyEvent{Down: true, Code: "ArrowLeft", Key: "ArrowLeft"}))
	h.note(AppendKeyInput(nil, KeyEvent{Down: true, Code: "KeyW", Key: "w"}))
	h.note(AppendKeyInput(nil, KeyEvent{Down: true, Code: "KeyD", Key: "d"}))
	h.note(AppendKeyInput(nil, KeyEvent{Code: "KeyW", Key: "w"}))
	got := h.appendReleases(nil)
	want := []gameloop.Input{{Kind: gameloop.KeyRelease, Key: gameloop.KeyD}, {Kind: gameloop.KeyRelease, Key: gameloop.KeyLeft}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("released %v, want %v", got, want)
	}
	if again := h.appendReleases(nil); len(again) != 0 {
		t.Errorf("released %v a second time", again)
	}
}
