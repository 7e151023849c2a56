package term

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// fakeTty is a terminal in memory for tcell's real terminfo screen: what the screen writes is
// kept, input is fed through a pipe, and Start and Stop (raw mode on and off) are counted.
type fakeTty struct {
	mu            sync.Mutex
	out           bytes.Buffer
	started       int
	stopped       int
	width, height int
	in            *io.PipeReader
	inW           *io.PipeWriter
}

func newFakeTty(width, height int) *fakeTty {
	r, w := io.Pipe()
	return &fakeTty{width: width, height: height, in: r, inW: w}
}

func (f *fakeTty) Start() error { f.mu.Lock(); f.started++; f.mu.Unlock(); return nil }
func (f *fakeTty) Stop() error  { f.mu.Lock(); f.stopped++; f.mu.Unlock(); return nil }
func (f *fakeTty) Drain() error { return f.inW.Close() }

func (f *fakeTty) NotifyResize(func()) {}

func (f *fakeTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: f.width, Height: f.height}, nil
}

func (f *fakeTty) Read(b []byte) (int, error) { return f.in.Read(b) }

func (f *fakeTty) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.Write(b)
}

func (f *fakeTty) Close() error { return f.in.Close() }

func (f *fakeTty) counts() (started, stopped int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started, f.stopped
}

func newTtyWindow(t testing.TB, tty *fakeTty) *Window {
	t.Helper()
	t.Setenv("TERM", "xterm-256color")
	screen, err := tcell.NewTerminfoScreenFromTty(tty)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWithScreen(screen, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCloseRestoresTheTerminal runs the window on tcell's real terminal screen: Close takes
// the terminal out of raw mode and leaves the alternate screen.
func TestCloseRestoresTheTerminal(t *testing.T) {
	tty := newFakeTty(80, 24)
	w := newTtyWindow(t, tty)
	if started, stopped := tty.counts(); started != 1 || stopped != 0 {
		t.Fatalf("after opening: raw mode started %d times, stopped %d; want 1, 0", started, stopped)
	}
	w.Text(0, 0, "hello", tcell.StyleDefault)
	if err := w.SwapBuffers(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, stopped := tty.counts(); stopped != 1 {
		t.Errorf("after Close: raw mode stopped %d times, want 1", stopped)
	}
	tty.mu.Lock()
	out := tty.out.String()
	tty.mu.Unlock()
	if !bytes.Contains([]byte(out), []byte("hello")) {
		t.Errorf("the frame was not written: %q", out)
	}
	const exitAltScreen = "\x1b[?1049l"
	if !bytes.HasSuffix([]byte(out), []byte(exitAltScreen)) && !bytes.Contains([]byte(out), []byte(exitAltScreen)) {
		t.Errorf("Close did not leave the alternate screen: %q", out)
	}
}

// BenchmarkFrame draws and shows frames on tcell's real terminal screen, in which a few cells
// change each frame, as in a game.
func BenchmarkFrame(b *testing.B) {
	if os.Getenv("TERM") == "" {
		b.Setenv("TERM", "xterm-256color")
	}
	w := newTtyWindow(b, newFakeTty(80, 24))
	defer w.Close()
	style := tcell.StyleDefault.Foreground(tcell.ColorRed)
	frame := 0
	b.ReportAllocs()
	for b.Loop() {
		for i := range 8 {
			w.SetCell((frame+i*7)%80, i*3, ' ', tcell.StyleDefault)
		}
		frame++
		for i := range 8 {
			w.SetCell((frame+i*7)%80, i*3, '⠶', style)
		}
		w.Text(0, 23, "status", tcell.StyleDefault.Reverse(true))
		_ = w.SwapBuffers()
	}
}
