package gameloop

import (
	"slices"
	"time"
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
	// recent complete window of about one second.
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

// statsState is what the loop records for Stats. It is guarded by Loop.statsMu.
type statsState struct {
	ticks, frames, skipped uint64
	droppedTicks           uint64
	droppedTime            time.Duration
	lastDrop               time.Duration
	anyDrop                bool
	started                bool
	start, now             time.Duration

	winStart             time.Duration
	winFrames, winTicks  uint64
	fps, tps             float64
	frameTimes, scratch  []time.Duration // a ring of recent frame intervals, and room to sort it
	frameTimeN, frameTop int
}

func (s *statsState) init(samples int) {
	s.frameTimes = make([]time.Duration, samples)
	s.scratch = make([]time.Duration, samples)
}

// roll closes the rate window when it has run its length.
func (s *statsState) roll(now time.Duration) {
	s.now = now
	if d := now - s.winStart; d >= rateWindow {
		s.fps = float64(s.winFrames) * float64(time.Second) / float64(d)
		s.tps = float64(s.winTicks) * float64(time.Second) / float64(d)
		s.winStart, s.winFrames, s.winTicks = now, 0, 0
	}
}

func (s *statsState) frameTime(d time.Duration) {
	s.frameTimes[s.frameTop] = d
	s.frameTop = (s.frameTop + 1) % len(s.frameTimes)
	s.frameTimeN = min(s.frameTimeN+1, len(s.frameTimes))
}

// snapshot fills in the counters and percentiles of st; it sorts into scratch, so it allocates
// nothing.
func (s *statsState) snapshot(st *Stats) {
	st.Ticks, st.Frames, st.SkippedFrames = s.ticks, s.frames, s.skipped
	st.DroppedTicks, st.DroppedTime = s.droppedTicks, s.droppedTime
	st.RunningSlowly = s.anyDrop && s.now-s.lastDrop < rateWindow
	st.FPS, st.TPS = s.fps, s.tps
	st.RealTime = s.now - s.start
	if n := s.frameTimeN; n > 0 {
		sorted := s.scratch[:n]
		copy(sorted, s.frameTimes[:n])
		slices.Sort(sorted)
		st.FrameTimeP50 = sorted[(n-1)*50/100]
		st.FrameTimeP99 = sorted[(n-1)*99/100]
		st.FrameTimeMax = sorted[n-1]
	}
}
