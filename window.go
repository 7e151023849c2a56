package gameloop

import (
	"sync"
	"time"
)

// Window is what the loop needs of a window: input, its size, whether it should close, and a
// buffer swap. Backends (a GLFW window, a terminal) implement it; HeadlessWindow is one for
// servers and tests. The loop calls every method but Wake from the goroutine that runs it.
type Window interface {
	// PollInput appends the input that has arrived since the last call to buf and returns the
	// extended slice, without blocking.
	PollInput(buf []Input) []Input
	// WaitInput blocks until input is pending, timeout has passed, or Wake is called.
	WaitInput(timeout time.Duration)
	// Wake makes a blocked WaitInput return. It is safe to call from any goroutine.
	Wake()
	// Size returns the drawable size; zero while minimised, which makes the loop skip frames.
	Size() (width, height int)
	// ShouldClose reports whether the window has been asked to close; the loop then ends.
	ShouldClose() bool
	// SwapBuffers shows the frame just drawn.
	SwapBuffers() error
}

// HeadlessWindow is a window with no screen: input is pushed into it by the program (a test, a
// network server), it has a size that can be set, and it counts its buffer swaps. It is safe for
// concurrent use.
type HeadlessWindow struct {
	mu            sync.Mutex
	pending       []Input
	width, height int
	closed        bool
	swaps         uint64
	signal        chan struct{} // a token when input is pushed or Wake is called
}

// NewHeadlessWindow returns a headless window of the given size.
func NewHeadlessWindow(width, height int) *HeadlessWindow {
	return &HeadlessWindow{width: width, height: height, signal: make(chan struct{}, 1)}
}

func (w *HeadlessWindow) notify() {
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// Push queues input for the loop's next poll. A Resize input also sets the size, and a Close
// input makes the window report ShouldClose once it has been polled.
func (w *HeadlessWindow) Push(in ...Input) {
	w.mu.Lock()
	w.pending = append(w.pending, in...)
	w.mu.Unlock()
	w.notify()
}

// PollInput appends the pushed input to buf.
func (w *HeadlessWindow) PollInput(buf []Input) []Input {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, in := range w.pending {
		switch in.Kind {
		case Resize:
			w.width, w.height = in.Width, in.Height
		case Close:
			w.closed = true
		}
		buf = append(buf, in)
	}
	w.pending = w.pending[:0]
	return buf
}

// WaitInput blocks until input is pushed, timeout passes or Wake is called.
func (w *HeadlessWindow) WaitInput(timeout time.Duration) {
	w.mu.Lock()
	n := len(w.pending)
	w.mu.Unlock()
	if n > 0 || timeout <= 0 {
		return
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.signal:
	case <-t.C:
	}
}

// Wake makes a blocked WaitInput return.
func (w *HeadlessWindow) Wake() { w.notify() }

// Size returns the window's size.
func (w *HeadlessWindow) Size() (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.width, w.height
}

// SetSize changes the size without an input event; 0 by 0 acts as a minimised window.
func (w *HeadlessWindow) SetSize(width, height int) {
	w.mu.Lock()
	w.width, w.height = width, height
	w.mu.Unlock()
}

// Close makes the window report ShouldClose.
func (w *HeadlessWindow) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.notify()
}

// ShouldClose reports whether Close was called or a Close input polled.
func (w *HeadlessWindow) ShouldClose() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// SwapBuffers counts a shown frame.
func (w *HeadlessWindow) SwapBuffers() error {
	w.mu.Lock()
	w.swaps++
	w.mu.Unlock()
	return nil
}

// Swaps returns the number of frames shown.
func (w *HeadlessWindow) Swaps() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.swaps
}
