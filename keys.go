package gameloop

import "strconv"

// Key is a key on the keyboard, by its position on a US layout (as GLFW names keys); typed text
// comes as Char input instead. Backends map their own key codes onto these.
type Key uint16

// The keys. Letters and digits are contiguous: KeyA+i is the i-th letter, Key0+i the digit i.
const (
	KeyUnknown Key = iota
	KeySpace
	KeyApostrophe
	KeyComma
	KeyMinus
	KeyPeriod
	KeySlash
	KeySemicolon
	KeyEqual
	KeyLeftBracket
	KeyBackslash
	KeyRightBracket
	KeyGraveAccent
	Key0
	Key1
	Key2
	Key3
	Key4
	Key5
	Key6
	Key7
	Key8
	Key9
	KeyA
	KeyB
	KeyC
	KeyD
	KeyE
	KeyF
	KeyG
	KeyH
	KeyI
	KeyJ
	KeyK
	KeyL
	KeyM
	KeyN
	KeyO
	KeyP
	KeyQ
	KeyR
	KeyS
	KeyT
	KeyU
	KeyV
	KeyW
	KeyX
	KeyY
	KeyZ
	KeyEscape
	KeyEnter
	KeyTab
	KeyBackspace
	KeyInsert
	KeyDelete
	KeyRight
	KeyLeft
	KeyDown
	KeyUp
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeyCapsLock
	KeyPause
	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12
	KeyLeftShift
	KeyLeftControl
	KeyLeftAlt
	KeyLeftSuper
	KeyRightShift
	KeyRightControl
	KeyRightAlt
	KeyRightSuper
	KeyMenu

	// KeyLast is the highest key code; a [KeyLast + 1]bool holds the state of every key.
	KeyLast = KeyMenu
)

var keyNames = [...]string{
	KeyUnknown: "Unknown", KeySpace: "Space", KeyApostrophe: "'", KeyComma: ",", KeyMinus: "-",
	KeyPeriod: ".", KeySlash: "/", KeySemicolon: ";", KeyEqual: "=", KeyLeftBracket: "[",
	KeyBackslash: "\\", KeyRightBracket: "]", KeyGraveAccent: "`",
	KeyEscape: "Escape", KeyEnter: "Enter", KeyTab: "Tab", KeyBackspace: "Backspace",
	KeyInsert: "Insert", KeyDelete: "Delete", KeyRight: "Right", KeyLeft: "Left", KeyDown: "Down",
	KeyUp: "Up", KeyPageUp: "PageUp", KeyPageDown: "PageDown", KeyHome: "Home", KeyEnd: "End",
	KeyCapsLock: "CapsLock", KeyPause: "Pause",
	KeyLeftShift: "LeftShift", KeyLeftControl: "LeftControl", KeyLeftAlt: "LeftAlt",
	KeyLeftSuper: "LeftSuper", KeyRightShift: "RightShift", KeyRightControl: "RightControl",
	KeyRightAlt: "RightAlt", KeyRightSuper: "RightSuper", KeyMenu: "Menu",
}

func (k Key) String() string {
	switch {
	case k >= KeyA && k <= KeyZ:
		return string(rune('A' + k - KeyA))
	case k >= Key0 && k <= Key9:
		return string(rune('0' + k - Key0))
	case k >= KeyF1 && k <= KeyF12:
		return "F" + strconv.Itoa(int(k-KeyF1)+1)
	case int(k) < len(keyNames) && keyNames[k] != "":
		return keyNames[k]
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}
