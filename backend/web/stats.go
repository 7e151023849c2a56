package web

import (
	"slices"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
)

// rateWindow is the length of the window FPS and TPS are measured over; until the first one
// ends, they are measured over the time so far, once minFramesForRate frames have been drawn,
// as gameloop.Loop measures them.
const (
	rateWindow       = time.Second
	minFramesForRate = 5
)

// statsState is what the driver records for Stats and TickLateness, guarded by its own mutex:
// the driver's goroutine writes it, any goroutine may read it. A frame takes the lock a few
// times, uncontended in a page.
type statsState struct {
	mu                    sync.Mutex
	ticks, frames         uint64
	skipped, droppedTicks uint64
	droppedTime           time.Duration
	lastDrop              time.Duration
	anyDrop, started      bool
	start, now            time.Duration
	winStart              time.Duration
	winTicks0, winFrames0 uint64
	fps, tps              float64
	fullWindow            bool // a whole rate window has ended

	frameTimes ring
	lateTimes  ring
	scratch    []time.Duration // room to sort a ring in
}

// ring holds the most recent durations.
type ring struct {
	d   []time.Duration
	top int
	n   int
}

func (r *ring) add(d time.Duration) {
	r.d[r.top] = d
	if r.top++; r.top == len(r.d) {
		r.top = 0
	}
	r.n = min(r.n+1, len(r.d))
}

// percentiles returns the 50th and 99th percentiles and the largest of the durations, sorting
// a copy in scratch.
func (r *ring) percentiles(scratch []time.Duration) (p50, p99, most time.Duration) {
	if r.n == 0 {
		return 0, 0, 0
	}
	s := scratch[:r.n]
	copy(s, r.d[:r.n])
	slices.Sort(s)
	return s[(r.n-1)*50/100], s[(r.n-1)*99/100], s[r.n-1]
}

func (s *statsState) init(samples int) {
	s.frameTimes.d = make([]time.Duration, samples)
	s.lateTimes.d = make([]time.Duration, samples)
	s.scratch = make([]time.Duration, samples)
}

// pass records the time of a frame, and closes the rate window when it has run its length.
func (s *statsState) pass(now time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
	if !s.started {
		s.started, s.start, s.winStart = true, now, now
	}
	if d := now - s.winStart; d >= rateWindow {
		s.fps = float64(s.frames-s.winFrames0) * float64(time.Second) / float64(d)
		s.tps = float64(s.ticks-s.winTicks0) * float64(time.Second) / float64(d)
		s.winStart, s.winFrames0, s.winTicks0 = now, s.frames, s.ticks
		s.fullWindow = true
	}
}

// shift leaves the time away, from hiddenAt to shownAt, out of the window the rates are
// measured over: the part of it after the window's start.
func (s *statsState) shift(hiddenAt, shownAt time.Duration) {
	s.mu.Lock()
	s.winStart += max(shownAt-max(s.winStart, hiddenAt), 0)
	s.mu.Unlock()
}

func (s *statsState) tick() {
	s.mu.Lock()
	s.ticks++
	s.mu.Unlock()
}

func (s *statsState) late(d time.Duration) {
	s.mu.Lock()
	s.lateTimes.add(max(d, 0))
	s.mu.Unlock()
}

// frame records a drawn frame, and the time since the previous one unless it is the first.
func (s *statsState) frame(interval time.Duration, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames++
	if !first {
		s.frameTimes.add(interval)
	}
}

func (s *statsState) skip() {
	s.mu.Lock()
	s.skipped++
	s.mu.Unlock()
}

func (s *statsState) drop(ticks uint64, gameTime, now time.Duration) {
	s.mu.Lock()
	s.droppedTicks += ticks
	s.droppedTime += gameTime
	s.lastDrop, s.anyDrop = now, true
	s.mu.Unlock()
}

// snapshot fills in the counters and percentiles of st; it allocates nothing.
func (s *statsState) snapshot(st *gameloop.Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Ticks, st.Frames, st.SkippedFrames = s.ticks, s.frames, s.skipped
	st.DroppedTicks, st.DroppedTime = s.droppedTicks, s.droppedTime
	st.RunningSlowly = s.anyDrop && s.now-s.lastDrop < rateWindow
	st.FPS, st.TPS = s.fps, s.tps
	if !s.fullWindow {
		// A status line should not read 0 for the whole first second: the rates so far, once
		// a few frames give one. The first frame comes at the start, so n frames span n-1
		// intervals.
		if d := s.now - s.start; d > 0 && s.frames >= minFramesForRate {
			st.FPS = float64(s.frames-1) * float64(time.Second) / float64(d)
			st.TPS = float64(s.ticks) * float64(time.Second) / float64(d)
		}
	}
	st.RealTime = s.now - s.start
	st.FrameTimeP50, st.FrameTimeP99, st.FrameTimeMax = s.frameTimes.percentiles(s.scratch)
}

func (s *statsState) lateness() Lateness {
	s.mu.Lock()
	defer s.mu.Unlock()
	var l Lateness
	l.P50, l.P99, l.Max = s.lateTimes.percentiles(s.scratch)
	l.Ticks = s.lateTimes.n
	return l
}
