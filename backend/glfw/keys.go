package glfw

import (
	"github.com/gameloop-go/gameloop"
	glfw33 "github.com/go-gl/glfw/v3.3/glfw"
)

// keyPairs lists every GLFW key that has a gameloop.Key. Letters, digits and function keys are
// mapped by range in toKey and fromKey; this table holds the rest. It is read-only.
var keyPairs = [...]struct {
	glfw glfw33.Key
	key  gameloop.Key
}{
	{glfw33.KeySpace, gameloop.KeySpace},
	{glfw33.KeyApostrophe, gameloop.KeyApostrophe},
	{glfw33.KeyComma, gameloop.KeyComma},
	{glfw33.KeyMinus, gameloop.KeyMinus},
	{glfw33.KeyPeriod, gameloop.KeyPeriod},
	{glfw33.KeySlash, gameloop.KeySlash},
	{glfw33.KeySemicolon, gameloop.KeySemicolon},
	{glfw33.KeyEqual, gameloop.KeyEqual},
	{glfw33.KeyLeftBracket, gameloop.KeyLeftBracket},
	{glfw33.KeyBackslash, gameloop.KeyBackslash},
	{glfw33.KeyRightBracket, gameloop.KeyRightBracket},
	{glfw33.KeyGraveAccent, gameloop.KeyGraveAccent},
	{glfw33.KeyEscape, gameloop.KeyEscape},
	{glfw33.KeyEnter, gameloop.KeyEnter},
	{glfw33.KeyKPEnter, gameloop.KeyEnter},
	{glfw33.KeyTab, gameloop.KeyTab},
	{glfw33.KeyBackspace, gameloop.KeyBackspace},
	{glfw33.KeyInsert, gameloop.KeyInsert},
	{glfw33.KeyDelete, gameloop.KeyDelete},
	{glfw33.KeyRight, gameloop.KeyRight},
	{glfw33.KeyLeft, gameloop.KeyLeft},
	{glfw33.KeyDown, gameloop.KeyDown},
	{glfw33.KeyUp, gameloop.KeyUp},
	{glfw33.KeyPageUp, gameloop.KeyPageUp},
	{glfw33.KeyPageDown, gameloop.KeyPageDown},
	{glfw33.KeyHome, gameloop.KeyHome},
	{glfw33.KeyEnd, gameloop.KeyEnd},
	{glfw33.KeyCapsLock, gameloop.KeyCapsLock},
	{glfw33.KeyPause, gameloop.KeyPause},
	{glfw33.KeyLeftShift, gameloop.KeyLeftShift},
	{glfw33.KeyLeftControl, gameloop.KeyLeftControl},
	{glfw33.KeyLeftAlt, gameloop.KeyLeftAlt},
	{glfw33.KeyLeftSuper, gameloop.KeyLeftSuper},
	{glfw33.KeyRightShift, gameloop.KeyRightShift},
	{glfw33.KeyRightControl, gameloop.KeyRightControl},
	{glfw33.KeyRightAlt, gameloop.KeyRightAlt},
	{glfw33.KeyRightSuper, gameloop.KeyRightSuper},
	{glfw33.KeyMenu, gameloop.KeyMenu},
}

// toKey maps a GLFW key to the library's; keys it has no name for become KeyUnknown.
func toKey(k glfw33.Key) gameloop.Key {
	switch {
	case k >= glfw33.KeyA && k <= glfw33.KeyZ:
		return gameloop.KeyA + gameloop.Key(k-glfw33.KeyA)
	case k >= glfw33.Key0 && k <= glfw33.Key9:
		return gameloop.Key0 + gameloop.Key(k-glfw33.Key0)
	case k >= glfw33.KeyF1 && k <= glfw33.KeyF12:
		return gameloop.KeyF1 + gameloop.Key(k-glfw33.KeyF1)
	}
	for _, p := range keyPairs {
		if p.glfw == k {
			return p.key
		}
	}
	return gameloop.KeyUnknown
}

// fromKey maps the library's key to GLFW's (the main one where two GLFW keys share it);
// ok is false for KeyUnknown and out-of-range values.
func fromKey(k gameloop.Key) (g glfw33.Key, ok bool) {
	switch {
	case k >= gameloop.KeyA && k <= gameloop.KeyZ:
		return glfw33.KeyA + glfw33.Key(k-gameloop.KeyA), true
	case k >= gameloop.Key0 && k <= gameloop.Key9:
		return glfw33.Key0 + glfw33.Key(k-gameloop.Key0), true
	case k >= gameloop.KeyF1 && k <= gameloop.KeyF12:
		return glfw33.KeyF1 + glfw33.Key(k-gameloop.KeyF1), true
	}
	for _, p := range keyPairs {
		if p.key == k {
			return p.glfw, true
		}
	}
	return glfw33.KeyUnknown, false
}

// toMods maps GLFW's modifier bits to the library's.
func toMods(m glfw33.ModifierKey) gameloop.Mods {
	var mods gameloop.Mods
	if m&glfw33.ModShift != 0 {
		mods |= gameloop.ModShift
	}
	if m&glfw33.ModControl != 0 {
		mods |= gameloop.ModControl
	}
	if m&glfw33.ModAlt != 0 {
		mods |= gameloop.ModAlt
	}
	if m&glfw33.ModSuper != 0 {
		mods |= gameloop.ModSuper
	}
	return mods
}

// toButton maps GLFW's mouse buttons 1 to 5 to the library's; others give 0 and are dropped.
func toButton(b glfw33.MouseButton) gameloop.MouseButton {
	switch b {
	case glfw33.MouseButtonLeft:
		return gameloop.MouseLeft
	case glfw33.MouseButtonRight:
		return gameloop.MouseRight
	case glfw33.MouseButtonMiddle:
		return gameloop.MouseMiddle
	case glfw33.MouseButton4:
		return gameloop.Mouse4
	case glfw33.MouseButton5:
		return gameloop.Mouse5
	}
	return 0
}
