package gameloop

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Stats is a snapshot of what a loop has done, for a status line, a log or a benchmark.
type Stats struct {
	// Ticks and Frames count the updates run and the frames drawn.
	Ticks, Frames uint64
	// SkippedFrames counts frames not drawn because the window had zero size.
	SkippedFrames uint64
	// DroppedTicks counts ticks owed but never run, because MaxTicksPerFrame or MaxFrameTime
	// was exceeded; DroppedTime is the game time they would have simulated.
	DroppedTicks uint64
	DroppedTime  time.Duration
	// RunningSlowly is true while ticks are being dropped: some were in the last second.
	RunningSlowly bool
	// FPS and TPS are frames drawn and ticks run per second of real time, over the most
	// recent complete window of about one second; in the first second, over the time so far
	// once five frames have been drawn (0 before).
	FPS, TPS float64
	// FrameTimeP50, FrameTimeP99 and FrameTimeMax describe the real time between the starts of
	// consecutive drawn frames, over the most recent Config.FrameTimeSamples frames.
	FrameTimeP50, FrameTimeP99, FrameTimeMax time.Duration
	// Paused, TimeScale, TickRate and MaxFPS are the loop's settings now.
	Paused    bool
	TimeScale float64
	TickRate  int
	MaxFPS    int
	// RealTime is the time since the loop started, by its clock.
	RealTime time.Duration
}

// rateWindow is the length of the window FPS and TPS are measured over.
const rateWindow = time.Second

// minCountForRate is how many frames (ticks) Stats waits for, in the first rate window, before
// it reports FPS (TPS) over the time so far.
const minCountForRate = 5

// statsState is what the loop records for Stats. The loop's goroutine is its only writer: what
// it records every tick and frame (the counters, the ring of frame intervals) is in atomics, and
// the rest is guarded by mu, taken only when something rare happens (a drop, a skipped frame,
// the end of a rate window), so that Stats can be called from any goroutine at little cost to
// the loop.
type statsState struct {
	// What every pass touches comes first (statsHotBytes).
	ticks, frames atomic.Uint64
	now           atomic.Int64

	// frameTimes is a ring of recent frame intervals: the loop writes slot frameTop (which only
	// it reads) and then publishes how many slots hold one. A snapshot taken meanwhile may read
	// an interval one frame newer than the rest: no matter for percentiles of a hundred.
	frameTimes []atomic.Int64
	frameTop   int
	frameTimeN atomic.Int64
	started    bool
	winStart   time.Duration

	mu                    sync.Mutex
	skipped, droppedTicks uint64
	droppedTime, lastDrop time.Duration
	anyDrop               bool
	start                 time.Duration
	winTicks0, winFrames0 uint64 // the counters when the rate window began
	fps, tps              float64
	windowDone            bool            // a whole rate window has been measured
	scratch               []time.Duration // room to sort the frame intervals, under mu
}

// statsHotBytes is how much of the start of a statsState a pass touches.
const statsHotBytes = unsafe.Offsetof(statsState{}.mu)

func (s *statsState) init(samples int) {
	s.frameTimes = make([]atomic.Int64, samples)
	s.scratch = make([]time.Duration, samples)
}

// pass records the time of a pass, and closes the rate window when it has run its length.
// Only the loop's goroutine writes started and winStart, so it may read them unlocked.
func (s *statsState) pass(now time.Duration) {
	s.now.Store(int64(now))
	if !s.started {
		s.mu.Lock()
		s.started, s.start, s.winStart = true, now, now
		s.mu.Unlock()
	}
	if d := now - s.winStart; d >= rateWindow {
		ticks, frames := s.ticks.Load(), s.frames.Load()
		s.mu.Lock()
		s.fps = float64(frames-s.winFrames0) * float64(time.Second) / float64(d)
		s.tps = float64(ticks-s.winTicks0) * float64(time.Second) / float64(d)
		s.winStart, s.winFrames0, s.winTicks0 = now, frames, ticks
		s.windowDone = true
		s.mu.Unlock()
	}
}

func (s *statsState) tick() { s.ticks.Add(1) }

// frame records a drawn frame, and the time since the previous one unless it is the first.
func (s *statsState) frame(interval time.Duration, first bool) {
	s.frames.Add(1)
	if first {
		return
	}
	s.frameTimes[s.frameTop].Store(int64(interval))
	if s.frameTop++; s.frameTop == len(s.frameTimes) {
		s.frameTop = 0
	}
	if n := s.frameTimeN.Load(); n < int64(len(s.frameTimes)) {
		s.frameTimeN.Store(n + 1)
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
	s.droppedTime = addSat(s.droppedTime, gameTime)
	s.lastDrop, s.anyDrop = now, true
	s.mu.Unlock()
}

// snapshot fills in the counters and percentiles of st; it sorts into scratch, so it allocates
// nothing.
func (s *statsState) snapshot(st *Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Duration(s.now.Load())
	st.Ticks, st.Frames, st.SkippedFrames = s.ticks.Load(), s.frames.Load(), s.skipped
	st.DroppedTicks, st.DroppedTime = s.droppedTicks, s.droppedTime
	st.RunningSlowly = s.anyDrop && now-s.lastDrop < rateWindow
	st.FPS, st.TPS = s.fps, s.tps
	if !s.windowDone {
		// Before the first whole window, the rates so far, once a few frames (ticks) give
		// one: the first frame comes at the start, so n frames span n-1 intervals; the first
		// tick comes a step after it. (A loop without frames has a TPS all the same.)
		if d := now - s.start; d > 0 {
			if st.Frames >= minCountForRate {
				st.FPS = float64(st.Frames-1) * float64(time.Second) / float64(d)
			}
			if st.Ticks >= minCountForRate {
				st.TPS = float64(st.Ticks) * float64(time.Second) / float64(d)
			}
		}
	}
	st.RealTime = now - s.start
	if n := int(s.frameTimeN.Load()); n > 0 {
		sorted := s.scratch[:n]
		for i := range sorted {
			sorted[i] = time.Duration(s.frameTimes[i].Load())
		}
		slices.Sort(sorted)
		st.FrameTimeP50 = sorted[(n-1)*50/100]
		st.FrameTimeP99 = sorted[(n-1)*99/100]
		st.FrameTimeMax = sorted[n-1]
	}
}
