package web

import (
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
)

// KeyOf returns the key of a KeyboardEvent's code, which names the key by its place on a US
// layout ("KeyA", "Digit1", "ArrowLeft", "BracketLeft"), as gameloop.Key does; KeyUnknown for a
// code it does not know.
func KeyOf(code string) gameloop.Key {
	switch {
	case len(code) == 4 && code[:3] == "Key" && code[3] >= 'A' && code[3] <= 'Z':
		return gameloop.KeyA + gameloop.Key(code[3]-'A')
	case len(code) == 6 && code[:5] == "Digit" && code[5] >= '0' && code[5] <= '9':
		return gameloop.Key0 + gameloop.Key(code[5]-'0')
	case len(code) == 2 && code[0] == 'F' && code[1] >= '1' && code[1] <= '9':
		return gameloop.KeyF1 + gameloop.Key(code[1]-'1')
	case code == "F10" || code == "F11" || code == "F12":
		return gameloop.KeyF10 + gameloop.Key(code[2]-'0')
	}
	return codeKey(code)
}

// codeKey returns the key of a code that is not a letter, a digit or a function key.
func codeKey(code string) gameloop.Key {
	switch code {
	case "Space":
		return gameloop.KeySpace
	case "Quote":
		return gameloop.KeyApostrophe
	case "Comma":
		return gameloop.KeyComma
	case "Minus":
		return gameloop.KeyMinus
	case "Period":
		return gameloop.KeyPeriod
	case "Slash":
		return gameloop.KeySlash
	case "Semicolon":
		return gameloop.KeySemicolon
	case "Equal":
		return gameloop.KeyEqual
	case "BracketLeft":
		return gameloop.KeyLeftBracket
	case "Backslash":
		return gameloop.KeyBackslash
	case "BracketRight":
		return gameloop.KeyRightBracket
	case "Backquote":
		return gameloop.KeyGraveAccent
	case "Escape":
		return gameloop.KeyEscape
	case "Enter", "NumpadEnter":
		return gameloop.KeyEnter
	case "Tab":
		return gameloop.KeyTab
	case "Backspace":
		return gameloop.KeyBackspace
	case "Insert":
		return gameloop.KeyInsert
	case "Delete":
		return gameloop.KeyDelete
	case "ArrowRight":
		return gameloop.KeyRight
	case "ArrowLeft":
		return gameloop.KeyLeft
	case "ArrowDown":
		return gameloop.KeyDown
	case "ArrowUp":
		return gameloop.KeyUp
	case "PageUp":
		return gameloop.KeyPageUp
	case "PageDown":
		return gameloop.KeyPageDown
	case "Home":
		return gameloop.KeyHome
	case "End":
		return gameloop.KeyEnd
	case "CapsLock":
		return gameloop.KeyCapsLock
	case "Pause":
		return gameloop.KeyPause
	case "ShiftLeft":
		return gameloop.KeyLeftShift
	case "ControlLeft":
		return gameloop.KeyLeftControl
	case "AltLeft":
		return gameloop.KeyLeftAlt
	case "MetaLeft":
		return gameloop.KeyLeftSuper
	case "ShiftRight":
		return gameloop.KeyRightShift
	case "ControlRight":
		return gameloop.KeyRightControl
	case "AltRight":
		return gameloop.KeyRightAlt
	case "MetaRight":
		return gameloop.KeyRightSuper
	case "ContextMenu":
		return gameloop.KeyMenu
	}
	return gameloop.KeyUnknown
}

// KeyEvent is what the driver needs of a KeyboardEvent.
type KeyEvent struct {
	Down   bool   // keydown, else keyup
	Code   string // the key's place: "KeyP"
	Key    string // what it types, after the layout: "p", "+", or a name such as "Shift"
	Repeat bool
	Mods   gameloop.Mods
}

// AppendKeyInput appends the input a key event makes to buf, as the other backends make it: a
// KeyPress or KeyRelease when the key has a gameloop.Key, and for a key pressed that types a
// character (without Control, Alt or Super, which make shortcuts), a Char after it.
func AppendKeyInput(buf []gameloop.Input, ev KeyEvent) []gameloop.Input {
	if k := KeyOf(ev.Code); k != gameloop.KeyUnknown {
		kind := gameloop.KeyRelease
		if ev.Down {
			kind = gameloop.KeyPress
		}
		buf = append(buf, gameloop.Input{Kind: kind, Key: k, Repeat: ev.Down && ev.Repeat, Mods: ev.Mods})
	}
	if !ev.Down || ev.Mods&(gameloop.ModControl|gameloop.ModAlt|gameloop.ModSuper) != 0 {
		return buf
	}
	// A character's key is the character itself; a named key ("Enter", "Shift") is longer.
	if r, n := utf8.DecodeRuneInString(ev.Key); n > 0 && n == len(ev.Key) && r != utf8.RuneError && r >= ' ' {
		buf = append(buf, gameloop.Input{Kind: gameloop.Char, Rune: r, Mods: ev.Mods})
	}
	return buf
}

// heldKeys is the set of keys down. A page that loses focus (the player switched windows with
// a key held) never sees those keys released: Canvas.Run releases them itself then, so that a
// game does not go on seeing them held.
type heldKeys [gameloop.KeyLast + 1]bool

// note records the keys that input presses and releases.
func (h *heldKeys) note(input []gameloop.Input) {
	for _, in := range input {
		if in.Key > gameloop.KeyUnknown && in.Key <= gameloop.KeyLast {
			switch in.Kind {
			case gameloop.KeyPress:
				h[in.Key] = true
			case gameloop.KeyRelease:
				h[in.Key] = false
			}
		}
	}
}

// appendReleases appends a KeyRelease for each key held to buf, and forgets them.
func (h *heldKeys) appendReleases(buf []gameloop.Input) []gameloop.Input {
	for k, down := range h {
		if down {
			buf = append(buf, gameloop.Input{Kind: gameloop.KeyRelease, Key: gameloop.Key(k)})
			h[k] = false
		}
	}
	return buf
}
