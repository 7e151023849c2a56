package term

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gdamore/tcell/v2"
)

// The window is a gameloop.Window.
var _ gameloop.Window = (*Window)(nil)

func newSim(t *testing.T, opts Options) (*Window, tcell.SimulationScreen) {
	t.Helper()
	sim := tcell.NewSimulationScreen("UTF-8")
	w, err := NewWithScreen(sim, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w, sim
}

// pollN polls until n inputs have arrived, waiting on WaitInput: tcell delivers injected events
// through a goroutine. It fails after a generous timeout, which a passing test never reaches.
func pollN(t *testing.T, w *Window, n int) []gameloop.Input {
	t.Helper()
	var got []gameloop.Input
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %d inputs, want %d: %v", len(got), n, got)
		}
		w.WaitInput(100 * time.Millisecond)
		got = w.PollInput(got)
	}
	return got
}

func TestKeys(t *testing.T) {
	w, sim := newSim(t, Options{})
	sim.InjectKey(tcell.KeyRune, 'i', tcell.ModNone)
	sim.InjectKey(tcell.KeyRune, '+', tcell.ModNone)
	sim.InjectKey(tcell.KeyRune, 'Q', tcell.ModNone)
	sim.InjectKey(tcell.KeyRune, 'é', tcell.ModNone)
	sim.InjectKey(tcell.KeyEsc, 0, tcell.ModNone)
	sim.InjectKey(tcell.KeyUp, 0, tcell.ModNone)
	sim.InjectKey(tcell.KeyF5, 0, tcell.ModNone)
	sim.InjectKey(tcell.KeyCtrlA, 0, tcell.ModCtrl)
	sim.InjectKey(tcell.KeyBacktab, 0, tcell.ModNone)
	want := []gameloop.Input{
		{Kind: gameloop.KeyPress, Key: gameloop.KeyI},
		{Kind: gameloop.Char, Rune: 'i'},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyEqual, Mods: gameloop.ModShift},
		{Kind: gameloop.Char, Rune: '+', Mods: gameloop.ModShift},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyQ, Mods: gameloop.ModShift},
		{Kind: gameloop.Char, Rune: 'Q', Mods: gameloop.ModShift},
		{Kind: gameloop.Char, Rune: 'é'},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyEscape},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyUp},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyF5},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyA, Mods: gameloop.ModControl},
		{Kind: gameloop.KeyPress, Key: gameloop.KeyTab, Mods: gameloop.ModShift},
	}
	if got := pollN(t, w, len(want)); !slices.Equal(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
	if w.ShouldClose() {
		t.Error("ShouldClose before Ctrl-C")
	}
}

func TestRuneKeys(t *testing.T) {
	tests := []struct {
		r     rune
		key   gameloop.Key
		shift bool
	}{
		{'a', gameloop.KeyA, false}, {'Z', gameloop.KeyZ, true}, {'7', gameloop.Key7, false},
		{'&', gameloop.Key7, true}, {')', gameloop.Key0, true}, {' ', gameloop.KeySpace, false},
		{'[', gameloop.KeyLeftBracket, false}, {']', gameloop.KeyRightBracket, false},
		{'-', gameloop.KeyMinus, false}, {'_', gameloop.KeyMinus, true}, {'"', gameloop.KeyApostrophe, true},
		{'\\', gameloop.KeyBackslash, false}, {'~', gameloop.KeyGraveAccent, true},
		{'é', gameloop.KeyUnknown, false},
	}
	for _, tt := range tests {
		if key, shift := runeKey(tt.r); key != tt.key || shift != tt.shift {
			t.Errorf("runeKey(%q) = %v, %v; want %v, %v", tt.r, key, shift, tt.key, tt.shift)
		}
	}
}

func TestCtrlCCloses(t *testing.T) {
	w, sim := newSim(t, Options{})
	sim.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	got := pollN(t, w, 1)
	if want := []gameloop.Input{{Kind: gameloop.Close}}; !slices.Equal(got, want) {
		t.Errorf("Ctrl-C gave %v, want %v", got, want)
	}
	if !w.ShouldClose() {
		t.Error("no ShouldClose after Ctrl-C")
	}
}

func TestMouse(t *testing.T) {
	w, sim := newSim(t, Options{Mouse: true})
	sim.InjectMouse(3, 4, tcell.Button1, tcell.ModNone)
	sim.InjectMouse(5, 4, tcell.Button1, tcell.ModNone)
	sim.InjectMouse(5, 4, tcell.ButtonNone, tcell.ModNone)
	sim.InjectMouse(5, 4, tcell.WheelUp, tcell.ModNone)
	want := []gameloop.Input{
		{Kind: gameloop.CursorMove, X: 3, Y: 4},
		{Kind: gameloop.MousePress, Button: gameloop.MouseLeft, X: 3, Y: 4},
		{Kind: gameloop.CursorMove, X: 5, Y: 4},
		{Kind: gameloop.MouseRelease, Button: gameloop.MouseLeft, X: 5, Y: 4},
		{Kind: gameloop.Scroll, Y: 1},
	}
	if got := pollN(t, w, len(want)); !slices.Equal(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

func TestResize(t *testing.T) {
	w, sim := newSim(t, Options{})
	if width, height := w.Size(); width != 80 || height != 25 {
		t.Fatalf("Size() = %d, %d; want the simulation's 80, 25", width, height)
	}
	sim.SetSize(100, 30)
	if err := sim.PostEvent(tcell.NewEventResize(100, 30)); err != nil {
		t.Fatal(err)
	}
	got := pollN(t, w, 1)
	if want := []gameloop.Input{{Kind: gameloop.Resize, Width: 100, Height: 30}}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if width, height := w.Size(); width != 100 || height != 30 {
		t.Errorf("Size() = %d, %d after the resize; want 100, 30", width, height)
	}
}

func TestWaitInputWakesOnKey(t *testing.T) {
	w, sim := newSim(t, Options{})
	done := make(chan struct{})
	go func() {
		w.WaitInput(time.Hour)
		close(done)
	}()
	sim.InjectKey(tcell.KeyRune, 'x', tcell.ModNone)
	<-done // a hung test, not a timing assumption, if WaitInput misses the key
	got := w.PollInput(nil)
	if len(got) != 2 || got[1].Rune != 'x' {
		t.Errorf("after WaitInput: %v, want the key x", got)
	}
}

func TestWaitInputWakesOnWake(t *testing.T) {
	w, _ := newSim(t, Options{})
	done := make(chan struct{})
	go func() {
		w.WaitInput(time.Hour)
		close(done)
	}()
	w.Wake()
	<-done
}

func TestWaitInputTimesOut(t *testing.T) {
	w, _ := newSim(t, Options{})
	w.WaitInput(time.Millisecond) // returns: with no input, the timeout is the only way out
	w.WaitInput(0)
}

func TestDrawAndShow(t *testing.T) {
	w, sim := newSim(t, Options{})
	w.Clear()
	w.SetCell(0, 0, '▀', tcell.StyleDefault.Foreground(tcell.ColorRed))
	w.SetCell(-1, 0, 'x', tcell.StyleDefault) // outside: nothing
	w.SetCell(80, 0, 'x', tcell.StyleDefault)
	if n := w.Text(2, 1, "héllo", tcell.StyleDefault); n != 5 {
		t.Errorf("Text took %d cells, want 5", n)
	}
	if n := w.Text(-2, 2, "abcd", tcell.StyleDefault); n != 4 {
		t.Errorf("Text from -2 took %d cells, want 4", n)
	}
	w.Text(77, 3, "clipped", tcell.StyleDefault)
	if err := w.SwapBuffers(); err != nil {
		t.Fatal(err)
	}
	cells, width, _ := sim.GetContents()
	row := func(y int) string {
		var b strings.Builder
		for x := range width {
			b.WriteString(string(cells[y*width+x].Runes))
		}
		return strings.TrimRight(b.String(), " ")
	}
	for y, want := range []string{"▀", "  héllo", "cd", strings.Repeat(" ", 77) + "cli"} {
		if got := row(y); got != want {
			t.Errorf("row %d is %q, want %q", y, got, want)
		}
	}
	if fg, _, _ := cells[0].Style.Decompose(); fg != tcell.ColorRed {
		t.Errorf("cell 0,0 has color %v, want red", fg)
	}
}

func TestCloseTwiceAndAfterClose(t *testing.T) {
	w, _ := newSim(t, Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !w.ShouldClose() {
		t.Error("no ShouldClose after Close")
	}
	if err := w.SwapBuffers(); err == nil {
		t.Error("SwapBuffers after Close: no error")
	}
	w.WaitInput(time.Hour) // returns at once on a closed window
	_ = w.PollInput(nil)
}

func TestRequestClose(t *testing.T) {
	w, _ := newSim(t, Options{})
	w.RequestClose()
	if !w.ShouldClose() {
		t.Error("no ShouldClose after RequestClose")
	}
}

// TestLoopEndsOnCtrlC runs a loop on the window: Ctrl-C ends it as a closed window does.
func TestLoopEndsOnCtrlC(t *testing.T) {
	w, sim := newSim(t, Options{})
	loop, err := gameloop.New(gameloop.Config{Window: w, TickRate: 1000, MaxFPS: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var closes int
	for ev := range loop.Events(t.Context()) {
		switch ev := ev.(type) {
		case *gameloop.Input:
			if ev.Kind == gameloop.Close {
				closes++
			}
		case *gameloop.AfterRender:
			if ev.Frame == 3 {
				sim.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
			}
		}
	}
	if err := loop.Err(); err != nil {
		t.Fatal(err)
	}
	if closes != 1 {
		t.Errorf("%d Close inputs, want 1", closes)
	}
}

func TestDrawingAllocatesNothing(t *testing.T) {
	w, _ := newSim(t, Options{})
	style := tcell.StyleDefault.Foreground(tcell.ColorGreen)
	draw := func() {
		for x := range 40 {
			w.SetCell(x, 5, rune(0x2800+x), style)
		}
		w.Text(0, 6, "status: 60 FPS", style)
	}
	draw() // fills the glyph cache
	if n := testing.AllocsPerRun(50, draw); n != 0 {
		t.Errorf("drawing allocates %v times", n)
	}
}
