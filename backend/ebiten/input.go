package ebiten

import (
	"github.com/gameloop-go/gameloop"
	ebiten "github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
)

// host is what a Game needs of Ebitengine besides its callbacks, so that tests can stand in for
// it without a window.
type host interface {
	// start makes Ebitengine call Update once per frame and let the game handle the close
	// button.
	start()
	// appendInput appends what changed since the last frame as input, in the order the package
	// documents, a Close last when the window's close button was pressed.
	appendInput(buf []gameloop.Input) []gameloop.Input
	// minimized reports whether the window is minimised.
	minimized() bool
}

// ebitenHost reads Ebitengine's input state, once per frame, into input.
type ebitenHost struct {
	keys    []ebiten.Key
	runes   []rune
	cursorX int
	cursorY int
	cursor  bool // cursorX and cursorY hold a position
	focused bool
	focus   bool // focused holds the focus
	pads    gamepads
}

func (h *ebitenHost) start() {
	ebiten.SetTPS(ebiten.SyncWithFPS)
	ebiten.SetWindowClosingHandled(true)
}

func (h *ebitenHost) minimized() bool { return ebiten.IsWindowMinimized() }

// mouseButtons are Ebitengine's mouse buttons that have a gameloop.MouseButton.
var mouseButtons = [...]struct {
	ebiten ebiten.MouseButton
	button gameloop.MouseButton
}{
	{ebiten.MouseButtonLeft, gameloop.MouseLeft},
	{ebiten.MouseButtonRight, gameloop.MouseRight},
	{ebiten.MouseButtonMiddle, gameloop.MouseMiddle},
	{ebiten.MouseButton3, gameloop.Mouse4},
	{ebiten.MouseButton4, gameloop.Mouse5},
}

func (h *ebitenHost) appendInput(buf []gameloop.Input) []gameloop.Input {
	mods := currentMods()
	h.keys = inpututil.AppendJustReleasedKeys(h.keys[:0])
	for _, k := range h.keys {
		if key := toKey(k); key != gameloop.KeyUnknown {
			buf = append(buf, gameloop.Input{Kind: gameloop.KeyRelease, Key: key, Mods: mods})
		}
	}
	h.keys = inpututil.AppendJustPressedKeys(h.keys[:0])
	for _, k := range h.keys {
		if key := toKey(k); key != gameloop.KeyUnknown {
			buf = append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: key, Mods: mods})
		}
	}
	h.runes = ebiten.AppendInputChars(h.runes[:0])
	for _, r := range h.runes {
		buf = append(buf, gameloop.Input{Kind: gameloop.Char, Rune: r, Mods: mods})
	}
	x, y := ebiten.CursorPosition()
	for _, b := range mouseButtons {
		if inpututil.IsMouseButtonJustReleased(b.ebiten) {
			buf = append(buf, gameloop.Input{Kind: gameloop.MouseRelease, Button: b.button, Mods: mods, X: float64(x), Y: float64(y)})
		}
	}
	for _, b := range mouseButtons {
		if inpututil.IsMouseButtonJustPressed(b.ebiten) {
			buf = append(buf, gameloop.Input{Kind: gameloop.MousePress, Button: b.button, Mods: mods, X: float64(x), Y: float64(y)})
		}
	}
	if !h.cursor || x != h.cursorX || y != h.cursorY {
		h.cursor, h.cursorX, h.cursorY = true, x, y
		buf = append(buf, gameloop.Input{Kind: gameloop.CursorMove, X: float64(x), Y: float64(y)})
	}
	if dx, dy := ebiten.Wheel(); dx != 0 || dy != 0 {
		buf = append(buf, gameloop.Input{Kind: gameloop.Scroll, X: dx, Y: dy})
	}
	if focused := ebiten.IsFocused(); !h.focus || focused != h.focused {
		if h.focus { // the window starts focused or not without telling the game, as GLFW's
			buf = append(buf, gameloop.Input{Kind: gameloop.Focus, Focused: focused})
		}
		h.focus, h.focused = true, focused
	}
	buf = h.pads.appendInput(buf, ebitenPads{})
	if ebiten.IsWindowBeingClosed() {
		buf = append(buf, gameloop.Input{Kind: gameloop.Close})
	}
	return buf
}

// currentMods returns the modifier keys held now.
func currentMods() gameloop.Mods {
	var m gameloop.Mods
	if ebiten.IsKeyPressed(ebiten.KeyShift) {
		m |= gameloop.ModShift
	}
	if ebiten.IsKeyPressed(ebiten.KeyControl) {
		m |= gameloop.ModControl
	}
	if ebiten.IsKeyPressed(ebiten.KeyAlt) {
		m |= gameloop.ModAlt
	}
	if ebiten.IsKeyPressed(ebiten.KeyMeta) {
		m |= gameloop.ModSuper
	}
	return m
}

// keyPairs lists every Ebitengine key that has a gameloop.Key but for letters, digits and
// function keys, which toKey maps by range. It is read-only.
var keyPairs = [...]struct {
	ebiten ebiten.Key
	key    gameloop.Key
}{
	{ebiten.KeySpace, gameloop.KeySpace},
	{ebiten.KeyQuote, gameloop.KeyApostrophe},
	{ebiten.KeyComma, gameloop.KeyComma},
	{ebiten.KeyMinus, gameloop.KeyMinus},
	{ebiten.KeyPeriod, gameloop.KeyPeriod},
	{ebiten.KeySlash, gameloop.KeySlash},
	{ebiten.KeySemicolon, gameloop.KeySemicolon},
	{ebiten.KeyEqual, gameloop.KeyEqual},
	{ebiten.KeyBracketLeft, gameloop.KeyLeftBracket},
	{ebiten.KeyBackslash, gameloop.KeyBackslash},
	{ebiten.KeyBracketRight, gameloop.KeyRightBracket},
	{ebiten.KeyBackquote, gameloop.KeyGraveAccent},
	{ebiten.KeyEscape, gameloop.KeyEscape},
	{ebiten.KeyEnter, gameloop.KeyEnter},
	{ebiten.KeyNumpadEnter, gameloop.KeyEnter},
	{ebiten.KeyTab, gameloop.KeyTab},
	{ebiten.KeyBackspace, gameloop.KeyBackspace},
	{ebiten.KeyInsert, gameloop.KeyInsert},
	{ebiten.KeyDelete, gameloop.KeyDelete},
	{ebiten.KeyArrowRight, gameloop.KeyRight},
	{ebiten.KeyArrowLeft, gameloop.KeyLeft},
	{ebiten.KeyArrowDown, gameloop.KeyDown},
	{ebiten.KeyArrowUp, gameloop.KeyUp},
	{ebiten.KeyPageUp, gameloop.KeyPageUp},
	{ebiten.KeyPageDown, gameloop.KeyPageDown},
	{ebiten.KeyHome, gameloop.KeyHome},
	{ebiten.KeyEnd, gameloop.KeyEnd},
	{ebiten.KeyCapsLock, gameloop.KeyCapsLock},
	{ebiten.KeyPause, gameloop.KeyPause},
	{ebiten.KeyShiftLeft, gameloop.KeyLeftShift},
	{ebiten.KeyControlLeft, gameloop.KeyLeftControl},
	{ebiten.KeyAltLeft, gameloop.KeyLeftAlt},
	{ebiten.KeyMetaLeft, gameloop.KeyLeftSuper},
	{ebiten.KeyShiftRight, gameloop.KeyRightShift},
	{ebiten.KeyControlRight, gameloop.KeyRightControl},
	{ebiten.KeyAltRight, gameloop.KeyRightAlt},
	{ebiten.KeyMetaRight, gameloop.KeyRightSuper},
	{ebiten.KeyContextMenu, gameloop.KeyMenu},
}

// toKey maps an Ebitengine key to the library's; keys it has no name for become KeyUnknown.
func toKey(k ebiten.Key) gameloop.Key {
	switch {
	case k >= ebiten.KeyA && k <= ebiten.KeyZ:
		return gameloop.KeyA + gameloop.Key(k-ebiten.KeyA)
	case k >= ebiten.KeyDigit0 && k <= ebiten.KeyDigit9:
		return gameloop.Key0 + gameloop.Key(k-ebiten.KeyDigit0)
	case k >= ebiten.KeyF1 && k <= ebiten.KeyF12:
		return gameloop.KeyF1 + gameloop.Key(k-ebiten.KeyF1)
	}
	for _, p := range keyPairs {
		if p.ebiten == k {
			return p.key
		}
	}
	return gameloop.KeyUnknown
}
