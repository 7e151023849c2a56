// Package term is a gameloop window in a terminal, on tcell: keys and characters, the mouse
// when the terminal reports it, resizes (sizes are in cells), and a small drawing surface of
// cells that Show (the loop's buffer swap) puts on the screen at once. A terminal has no
// gamepads: none is reported.
//
// It needs no cgo and no system package. The terminal is put in raw mode by Open and restored
// by Close, which a program must call on every way out:
//
//	win, err := term.Open(term.Options{Mouse: true})
//	if err != nil { ... }
//	defer win.Close() // also runs while a panic unwinds main
//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
//	defer stop()
//	loop, err := gameloop.New(gameloop.Config{Window: win})
//	...
//	err = loop.Run(ctx, game) // a panic in game comes back as a *gameloop.PanicError
//	win.Close()               // restore the terminal before printing err
//
// In raw mode Ctrl-C reaches the program as a key, not as SIGINT: the window turns it into a
// Close input and reports ShouldClose, so the loop ends as if the window had been closed.
//
// A terminal reports no key releases and no key repeats: each key a user types comes as a
// KeyPress (when it has a gameloop.Key) followed by a Char (when it is a character).
package term

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
	"github.com/gdamore/tcell/v2"
)

// Options configures Open.
type Options struct {
	// Mouse enables mouse input (presses, releases, motion, the wheel), if the terminal has it.
	Mouse bool
	// Focus enables Focus input, if the terminal reports focus changes.
	Focus bool
}

// Window is a terminal as a gameloop.Window, with a drawing surface of cells. Its input and
// drawing methods are for the loop's goroutine; Wake, Close and RequestClose are safe from any.
type Window struct {
	screen tcell.Screen

	events chan tcell.Event // filled by tcell's ChannelEvents goroutine
	quit   chan struct{}    // closed by Close: stops ChannelEvents
	wake   chan struct{}    // a token when Wake is called
	timer  *time.Timer      // WaitInput's timeout, reused

	held          []tcell.Event // taken from events by WaitInput, not yet polled
	width, height int           // the size as of the last Resize polled
	buttons       tcell.ButtonMask
	cursorX       int
	cursorY       int

	closeRequested atomic.Bool
	closeOnce      sync.Once
	closed         atomic.Bool

	// glyphs holds a string for each rune drawn with SetCell, because tcell takes cells as
	// strings and converting a rune to a string allocates: after the first frame, drawing
	// allocates nothing.
	glyphs map[rune]string
}

// Open puts the terminal in raw mode and returns a window on it. Call Close to restore it.
func Open(opts Options) (*Window, error) {
	screen, err := tcell.NewScreen()
	if err != nil {
		return nil, fmt.Errorf("term: opening the terminal: %w", err)
	}
	return NewWithScreen(screen, opts)
}

// NewWithScreen returns a window on a tcell screen that has not been initialised yet, such as
// tcell's simulation screen in tests. It initialises the screen; Close finalises it.
func NewWithScreen(screen tcell.Screen, opts Options) (*Window, error) {
	if err := screen.Init(); err != nil {
		return nil, fmt.Errorf("term: initialising the terminal: %w", err)
	}
	if opts.Mouse {
		screen.EnableMouse()
	}
	if opts.Focus {
		screen.EnableFocus()
	}
	screen.HideCursor()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	w := &Window{
		screen: screen,
		events: make(chan tcell.Event, 64),
		quit:   make(chan struct{}),
		wake:   make(chan struct{}, 1),
		timer:  timer,
		held:   make([]tcell.Event, 0, 8),
		glyphs: make(map[rune]string, 64),
	}
	w.width, w.height = screen.Size()
	go screen.ChannelEvents(w.events, w.quit)
	return w, nil
}

// Close restores the terminal: it leaves raw mode and the alternate screen and shows the
// cursor. It is safe to call more than once and from any goroutine; after it the window
// reports ShouldClose and draws nothing.
func (w *Window) Close() error {
	w.closeOnce.Do(func() {
		w.closed.Store(true)
		close(w.quit)
		w.screen.Fini()
	})
	return nil
}

// RequestClose makes the window report ShouldClose, as Ctrl-C does, so that the loop ends at
// its next pass; the terminal stays as it is until Close.
func (w *Window) RequestClose() {
	w.closeRequested.Store(true)
	w.Wake()
}

// Screen returns the tcell screen, for what this package does not wrap.
func (w *Window) Screen() tcell.Screen { return w.screen }

// PollInput appends the input that has arrived to buf, without blocking.
func (w *Window) PollInput(buf []gameloop.Input) []gameloop.Input {
	for _, ev := range w.held {
		buf = w.translate(ev, buf)
	}
	clear(w.held)
	w.held = w.held[:0]
	for {
		select {
		case ev, ok := <-w.events:
			if !ok {
				return buf
			}
			buf = w.translate(ev, buf)
		default:
			return buf
		}
	}
}

// WaitInput blocks until input arrives, timeout passes or Wake is called.
func (w *Window) WaitInput(timeout time.Duration) {
	if len(w.held) > 0 || timeout <= 0 || w.closed.Load() {
		return
	}
	w.timer.Reset(timeout)
	defer w.timer.Stop()
	select {
	case ev, ok := <-w.events:
		if ok {
			w.held = append(w.held, ev)
		}
	case <-w.wake:
	case <-w.timer.C:
	}
}

// Wake makes a blocked WaitInput return. It is safe to call from any goroutine.
func (w *Window) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Size returns the terminal's size in cells, as of the last Resize input polled.
func (w *Window) Size() (width, height int) { return w.width, w.height }

// ShouldClose reports whether Ctrl-C was typed, RequestClose called or the window closed.
func (w *Window) ShouldClose() bool { return w.closeRequested.Load() || w.closed.Load() }

// SwapBuffers shows what was drawn since the last call: tcell writes only the cells that
// changed.
func (w *Window) SwapBuffers() error {
	if w.closed.Load() {
		return errors.New("term: drawing on a closed window")
	}
	w.screen.Show()
	return nil
}

// Clear fills the drawing surface with blanks in the default style.
//
// A game that redraws the whole window each frame had better draw every cell, blanks
// included, than Clear and draw what is not blank: tcell sends a cell to the terminal when it
// differs from what the cell held before in the frame, so after a Clear every cell that is not
// blank is sent again, even where nothing changed.
func (w *Window) Clear() { w.screen.Clear() }

// Fill fills the drawing surface with r in style.
func (w *Window) Fill(r rune, style tcell.Style) { w.screen.Fill(r, style) }

// SetCell draws r in style at column x, row y; outside the window it draws nothing.
func (w *Window) SetCell(x, y int, r rune, style tcell.Style) {
	if x < 0 || y < 0 || x >= w.width || y >= w.height {
		return
	}
	w.screen.Put(x, y, w.glyph(r), style)
}

// glyph returns r as a string, from the cache, which holds every rune the window has drawn.
func (w *Window) glyph(r rune) string {
	if s, ok := w.glyphs[r]; ok {
		return s
	}
	s := string(r)
	w.glyphs[r] = s
	return s
}

// Text draws s in style from column x of row y, clipped to the window, and returns the number
// of cells it took.
func (w *Window) Text(x, y int, s string, style tcell.Style) int {
	start := x
	for s != "" && x < w.width {
		if x < 0 {
			// Skip the part left of the window one character at a time.
			_, size := utf8.DecodeRuneInString(s)
			s = s[size:]
			x++
			continue
		}
		var width int
		s, width = w.screen.Put(x, y, s, style)
		if width == 0 {
			break
		}
		x += width
	}
	return x - start
}

// translate appends the gameloop input for a tcell event to buf.
func (w *Window) translate(ev tcell.Event, buf []gameloop.Input) []gameloop.Input {
	switch ev := ev.(type) {
	case *tcell.EventKey:
		return w.translateKey(ev, buf)
	case *tcell.EventMouse:
		return w.translateMouse(ev, buf)
	case *tcell.EventResize:
		w.width, w.height = ev.Size()
		w.screen.Sync() // the whole screen must be redrawn after a resize
		return append(buf, gameloop.Input{Kind: gameloop.Resize, Width: w.width, Height: w.height})
	case *tcell.EventFocus:
		return append(buf, gameloop.Input{Kind: gameloop.Focus, Focused: ev.Focused})
	}
	return buf
}

func mods(m tcell.ModMask) gameloop.Mods {
	var out gameloop.Mods
	if m&tcell.ModShift != 0 {
		out |= gameloop.ModShift
	}
	if m&tcell.ModCtrl != 0 {
		out |= gameloop.ModControl
	}
	if m&tcell.ModAlt != 0 {
		out |= gameloop.ModAlt
	}
	if m&tcell.ModMeta != 0 {
		out |= gameloop.ModSuper
	}
	return out
}

func (w *Window) translateKey(ev *tcell.EventKey, buf []gameloop.Input) []gameloop.Input {
	m := mods(ev.Modifiers())
	k := ev.Key()
	switch {
	case k == tcell.KeyCtrlC || k == tcell.KeyETX:
		w.closeRequested.Store(true)
		return append(buf, gameloop.Input{Kind: gameloop.Close})
	case k == tcell.KeyRune:
		r := ev.Rune()
		key, shift := runeKey(r)
		if shift {
			m |= gameloop.ModShift
		}
		if key != gameloop.KeyUnknown {
			buf = append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: key, Mods: m})
		}
		return append(buf, gameloop.Input{Kind: gameloop.Char, Rune: r, Mods: m})
	case k >= tcell.KeyCtrlA && k <= tcell.KeyCtrlZ:
		return append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyA + gameloop.Key(k-tcell.KeyCtrlA), Mods: m | gameloop.ModControl})
	case k == tcell.KeyBacktab:
		return append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyTab, Mods: m | gameloop.ModShift})
	case k >= tcell.KeyF1 && k <= tcell.KeyF12:
		return append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyF1 + gameloop.Key(k-tcell.KeyF1), Mods: m})
	}
	if key := specialKey(k); key != gameloop.KeyUnknown {
		return append(buf, gameloop.Input{Kind: gameloop.KeyPress, Key: key, Mods: m})
	}
	return buf
}

// specialKey returns the key for one of tcell's keys that are not characters, or KeyUnknown.
func specialKey(k tcell.Key) gameloop.Key {
	switch k {
	case tcell.KeyEnter:
		return gameloop.KeyEnter
	case tcell.KeyTab:
		return gameloop.KeyTab
	case tcell.KeyBackspace, tcell.KeyDEL:
		return gameloop.KeyBackspace
	case tcell.KeyEsc:
		return gameloop.KeyEscape
	case tcell.KeyInsert:
		return gameloop.KeyInsert
	case tcell.KeyDelete:
		return gameloop.KeyDelete
	case tcell.KeyRight:
		return gameloop.KeyRight
	case tcell.KeyLeft:
		return gameloop.KeyLeft
	case tcell.KeyDown:
		return gameloop.KeyDown
	case tcell.KeyUp:
		return gameloop.KeyUp
	case tcell.KeyPgUp:
		return gameloop.KeyPageUp
	case tcell.KeyPgDn:
		return gameloop.KeyPageDown
	case tcell.KeyHome:
		return gameloop.KeyHome
	case tcell.KeyEnd:
		return gameloop.KeyEnd
	case tcell.KeyCapsLock:
		return gameloop.KeyCapsLock
	case tcell.KeyPause:
		return gameloop.KeyPause
	case tcell.KeyMenu:
		return gameloop.KeyMenu
	}
	return gameloop.KeyUnknown
}

// runeKey returns the key of a US keyboard that types r, and whether Shift is needed for it;
// KeyUnknown for a character that no key of the layout types.
func runeKey(r rune) (key gameloop.Key, shift bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return gameloop.KeyA + gameloop.Key(r-'a'), false
	case r >= 'A' && r <= 'Z':
		return gameloop.KeyA + gameloop.Key(r-'A'), true
	case r >= '0' && r <= '9':
		return gameloop.Key0 + gameloop.Key(r-'0'), false
	case r < 0x80:
		// The digits' row with Shift, in the order of the digits 0 to 9.
		if i := strings.IndexByte(")!@#$%^&*(", byte(r)); i >= 0 {
			return gameloop.Key0 + gameloop.Key(i), true
		}
	}
	switch r {
	case ' ':
		return gameloop.KeySpace, false
	case '\'', '"':
		return gameloop.KeyApostrophe, r == '"'
	case ',', '<':
		return gameloop.KeyComma, r == '<'
	case '-', '_':
		return gameloop.KeyMinus, r == '_'
	case '.', '>':
		return gameloop.KeyPeriod, r == '>'
	case '/', '?':
		return gameloop.KeySlash, r == '?'
	case ';', ':':
		return gameloop.KeySemicolon, r == ':'
	case '=', '+':
		return gameloop.KeyEqual, r == '+'
	case '[', '{':
		return gameloop.KeyLeftBracket, r == '{'
	case '\\', '|':
		return gameloop.KeyBackslash, r == '|'
	case ']', '}':
		return gameloop.KeyRightBracket, r == '}'
	case '`', '~':
		return gameloop.KeyGraveAccent, r == '~'
	}
	return gameloop.KeyUnknown, false
}

func (w *Window) translateMouse(ev *tcell.EventMouse, buf []gameloop.Input) []gameloop.Input {
	x, y := ev.Position()
	m := mods(ev.Modifiers())
	fx, fy := float64(x), float64(y)
	if x != w.cursorX || y != w.cursorY {
		w.cursorX, w.cursorY = x, y
		buf = append(buf, gameloop.Input{Kind: gameloop.CursorMove, X: fx, Y: fy})
	}
	held := ev.Buttons()
	buttons := [...]struct {
		mask   tcell.ButtonMask
		button gameloop.MouseButton
	}{
		{tcell.Button1, gameloop.MouseLeft},
		{tcell.Button2, gameloop.MouseRight},
		{tcell.Button3, gameloop.MouseMiddle},
		{tcell.Button4, gameloop.Mouse4},
		{tcell.Button5, gameloop.Mouse5},
	}
	for _, b := range buttons {
		was, is := w.buttons&b.mask != 0, held&b.mask != 0
		switch {
		case is && !was:
			buf = append(buf, gameloop.Input{Kind: gameloop.MousePress, Button: b.button, Mods: m, X: fx, Y: fy})
		case was && !is:
			buf = append(buf, gameloop.Input{Kind: gameloop.MouseRelease, Button: b.button, Mods: m, X: fx, Y: fy})
		}
	}
	w.buttons = held &^ (tcell.WheelUp | tcell.WheelDown | tcell.WheelLeft | tcell.WheelRight)
	var sx, sy float64
	if held&tcell.WheelUp != 0 {
		sy++
	}
	if held&tcell.WheelDown != 0 {
		sy--
	}
	if held&tcell.WheelLeft != 0 {
		sx--
	}
	if held&tcell.WheelRight != 0 {
		sx++
	}
	if sx != 0 || sy != 0 {
		buf = append(buf, gameloop.Input{Kind: gameloop.Scroll, X: sx, Y: sy})
	}
	return buf
}
