package gameloop

import (
	"fmt"
	"math"
	"time"
)

// Schedule is the pure core of the loop: handed the time now, it answers how many fixed-step
// ticks are owed, what was dropped, and how far the game is into the next tick. It reads no
// clock, never sleeps and touches no window, so every rule of the loop can be tested on made-up
// times, and a host that owns the frame (a browser's requestAnimationFrame, another engine's
// frame callback) can use it directly:
//
//	st := sched.Advance(now)
//	for range st.Ticks {
//		tick, _ := sched.Next()
//		update(tick)
//	}
//	render(st.Alpha)
//
// # The model
//
// Game time runs at TimeScale times real time, and stands still while paused. Ticks lie on a grid
// in game time: tick n (counting from 1) is due exactly n/TickRate seconds after the grid's
// epoch, computed in integer nanoseconds, so a simulated day at 60 Hz is exactly 5,184,000 ticks
// and every tick of a rate has the same step. Changing the rate starts a new grid at the last
// tick run, so no time is lost or counted twice.
//
// When more ticks are owed than MaxTicksPerFrame, or more game time has passed since the last
// Advance than MaxFrameTime allows, the excess ticks are dropped: the grid moves forward by whole
// ticks, so the fraction of the next tick already elapsed (Alpha) is kept, and dropped ticks are
// never replayed later as a burst. Tick numbers count the ticks that ran: they have no gaps.
//
// A Schedule is not safe for concurrent use. Its times are durations since any fixed origin,
// such as Clock.Now gives; they must not go backwards.
type Schedule struct {
	rate         int64         // ticks per second
	ratePerNs    float64       // rate / 1s, to turn game time into ticks with one multiplication
	stepCeil     time.Duration // one step, rounded up: the least game time a pass accounts for
	step         time.Duration // one step, truncated (Step): every Update carries it
	stepSeconds  float64       // one step in seconds (StepSeconds)
	maxTicks     int
	maxFrameTime time.Duration
	scale        timeScale
	paused       bool

	started bool
	// Game time at real time now is gameBase + scale*(now-realBase), or gameBase while paused.
	realBase, gameBase time.Duration
	lastGame           time.Duration // game time at the previous Advance

	// The pass's bound (MaxFrameTime) in game time: the real time since the previous Advance
	// is counted at the scale each stretch of it passed at, up to MaxFrameTime, so that a
	// change of scale does not bound at the new scale the time that passed at the old one.
	// Real time up to markReal is counted: it gave game time up to limitGame, and leaves budget
	// of MaxFrameTime.
	markReal, limitGame, budget time.Duration

	// The tick grid: tick epochTick+k is due at game time epochGame + offsetOf(k+skipped, rate).
	// Dropping ticks skips slots of the grid rather than starting a new one, so the grid stays
	// exact: a new epoch would be rounded to a whole nanosecond and every later tick could fall
	// a nanosecond late.
	epochGame time.Duration
	epochTick uint64
	skipped   uint64

	ticks    uint64 // ticks run (taken with Next)
	reserved int    // ticks granted by the last Advance and not yet taken
	// dueLast and dueNext cache due(ticks) and due(ticks+1): they are needed every pass and
	// every frame, and computing them takes integer divisions.
	dueLast, dueNext time.Duration

	droppedTicks uint64
	droppedTime  time.Duration

	reorigins int // times reorigin ran, for tests
}

// Step is what one call of Advance decided.
type Step struct {
	// Ticks is the number of ticks to run now, at most MaxTicksPerFrame. Take each with Next.
	Ticks int
	// DroppedTicks and DroppedTime are the ticks this call dropped and the game time they
	// would have simulated.
	DroppedTicks uint64
	DroppedTime  time.Duration
	// Alpha and Ext are as Schedule.Alpha and Schedule.Ext will report them once Ticks ticks
	// have been taken: what a frame drawn after them should use.
	Alpha float64
	Ext   time.Duration
}

// NewSchedule returns a schedule for cfg's TickRate, MaxTicksPerFrame, MaxFrameTime and
// TimeScale; the other fields are not used. Zero fields take their defaults, as in New.
func NewSchedule(cfg Config) (*Schedule, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return newSchedule(cfg), nil
}

func newSchedule(cfg Config) *Schedule {
	s := &Schedule{
		rate:         int64(cfg.TickRate),
		maxTicks:     cfg.MaxTicksPerFrame,
		maxFrameTime: cfg.MaxFrameTime,
		scale:        exactScale(cfg.TimeScale),
		budget:       cfg.MaxFrameTime,
	}
	s.setRate(int64(cfg.TickRate))
	s.regrid()
	return s
}

func (s *Schedule) setRate(rate int64) {
	s.rate = rate
	s.ratePerNs = float64(rate) / float64(time.Second)
	s.stepCeil = offsetOf(1, rate)
	s.step = time.Second / time.Duration(rate)
	s.stepSeconds = 1 / float64(rate)
}

// regrid refreshes the cached due times after the tick count or the grid changed.
func (s *Schedule) regrid() {
	s.dueLast, s.dueNext = s.due(s.ticks), s.due(s.ticks+1)
}

// start fixes the origin of game time at the first time the schedule is handed.
func (s *Schedule) start(now time.Duration) {
	if s.started {
		return
	}
	s.started = true
	s.realBase, s.markReal = now, now
}

// elapsed returns the real time from from to to, 0 if to is earlier, saturating at never where
// the difference is beyond int64 (a start near the most negative time).
func elapsed(from, to time.Duration) time.Duration {
	if to <= from {
		return 0
	}
	if d := to - from; d > 0 {
		return d
	}
	return never
}

// count counts the real time since markReal, at the current scale, toward the pass's bound.
// Game time runs only from realBase: before it (a start in the future) nothing is counted.
func (s *Schedule) count(now time.Duration) {
	from := max(s.markReal, s.realBase)
	if now <= from {
		return
	}
	if !s.paused {
		used := min(elapsed(from, now), s.budget)
		s.limitGame = addSat(s.limitGame, s.scale.scale(used))
		s.budget -= used
	}
	s.markReal = now
}

// gameTime returns game time at real time now.
func (s *Schedule) gameTime(now time.Duration) time.Duration {
	if s.paused || !s.started {
		return s.gameBase
	}
	return addSat(s.gameBase, s.scale.scale(elapsed(s.realBase, now)))
}

// reoriginAt is the game time past which the schedule moves the origin of its game time
// forward, so that game time never nears the end of int64 nanoseconds (292 years): at the
// largest time scale, 10^6, that end would come after two and a half hours of real time.
const reoriginAt = time.Duration(1) << 61

// reorigin moves the origin of game time forward by whole seconds of the tick grid, to the
// last whole second of grid slots before the last tick that ran. Every game time the schedule
// holds moves by the same amount and the grid stays exact (whole seconds of slots take whole
// nanoseconds), so nothing that is owed, dropped or reported changes.
func (s *Schedule) reorigin(now time.Duration) {
	s.rebase(now)
	slot := s.ticks - s.epochTick + s.skipped // the grid slot of the last tick that ran
	whole := slot / uint64(s.rate)
	shift := whole * uint64(s.rate)
	if s.skipped >= shift {
		s.skipped -= shift
	} else {
		s.epochTick += shift - s.skipped
		s.skipped = 0
	}
	by := s.epochGame + time.Duration(whole)*time.Second
	s.epochGame = 0
	s.gameBase -= by
	if s.gameBase >= reoriginAt {
		// One pass spans more game time than the new origin leaves room for (at scale 10^6,
		// a stall of over 38 minutes): all but the last 73 years of it is let go uncounted.
		// It is far beyond MaxFrameTime, so its ticks would have been dropped anyway.
		s.gameBase = reoriginAt - 1
	}
	s.lastGame = subSat(s.lastGame, by)
	s.limitGame = subSat(s.limitGame, by)
	s.regrid()
	s.reorigins++
}

// rebase moves the origin of the real-to-game mapping to now, before the mapping changes. Game
// time does not run before realBase: a start in the future (Pool's StartAt) is kept.
func (s *Schedule) rebase(now time.Duration) {
	s.start(now)
	s.count(now)
	s.gameBase = s.gameTime(now)
	s.realBase = max(s.realBase, now)
}

// due returns the game time at which tick n is due on the current grid.
func (s *Schedule) due(n uint64) time.Duration {
	return s.epochGame + offsetOf(n-s.epochTick+s.skipped, s.rate)
}

// owedAt returns how many ticks are due at game time g and have not run.
func (s *Schedule) owedAt(g time.Duration) uint64 {
	if g < s.dueNext {
		return 0
	}
	slots := countIn(g-s.epochGame, s.rate) // grid slots due, counting skipped ones
	if slots <= s.ticks-s.epochTick+s.skipped {
		return 0
	}
	return slots - (s.ticks - s.epochTick + s.skipped)
}

// Advance tells the schedule that it is now now and returns what is owed. Ticks granted by an
// earlier Advance and not taken are counted again, not twice. While paused no new tick comes
// due; ticks owed when the pause began are still granted.
func (s *Schedule) Advance(now time.Duration) Step {
	var st Step
	st.DroppedTicks, st.DroppedTime = s.advance(now)
	st.Ticks = s.reserved
	switch g := s.lastGame; st.Ticks {
	case 0:
		st.Ext = g - s.dueLast
	case 1:
		st.Ext = g - s.dueNext
	default:
		st.Ext = g - s.due(s.ticks+uint64(st.Ticks))
	}
	st.Alpha = s.alphaOf(st.Ext)
	return st
}

// advance is Advance without its Step: it grants the ticks owed at now (reserved) and returns
// what it dropped. A Loop's and a pool's passes call it. Go's compiler keeps a struct of more
// than four fields, as Step is, in memory rather than in registers, and copies it through the
// stack, where loads wider than the stores that wrote it wait for them; with the Alpha that a
// pass does not use, that is a good part of the schedule's work per tick, which
// BenchmarkScheduleTick measures both ways (see docs/server.md).
func (s *Schedule) advance(now time.Duration) (droppedTicks uint64, droppedTime time.Duration) {
	s.start(now)
	if !s.paused && elapsed(s.realBase, now) == never {
		// More real time has passed since the origin than int64 nanoseconds hold (a start
		// near the most negative time): game time would stand still at the saturated sum. The
		// origin moves to now, the time before it counted as the most that fits, far beyond
		// MaxFrameTime: its ticks are dropped.
		s.rebase(now)
	}
	g := s.gameTime(now)
	if g >= reoriginAt {
		s.reorigin(now)
		g = s.gameTime(now)
	}
	s.reserved = 0
	owed := s.owedAt(g)

	// Owed ticks beyond what MaxFrameTime (the game time of the first MaxFrameTime of real time
	// since the last Advance, each stretch at its scale, and never less than one step, or a low
	// tick rate would drop every tick) and MaxTicksPerFrame allow are dropped.
	s.count(now)
	allowed := owed
	if limit := max(s.limitGame, addSat(s.lastGame, s.stepCeil)); g > limit {
		allowed = s.owedAt(limit)
	}
	allowed = min(allowed, uint64(s.maxTicks))
	s.lastGame, s.limitGame, s.budget = g, g, s.maxFrameTime

	if allowed < owed {
		// Skip the slots of the dropped ticks: tick ticks+allowed+1 is due when tick
		// ticks+owed+1 was. Whole ticks are dropped and the phase within the next is kept.
		from, to := s.due(s.ticks+allowed), s.due(s.ticks+owed)
		s.skipped += owed - allowed
		droppedTicks, droppedTime = owed-allowed, to-from
		s.droppedTicks += droppedTicks
		s.droppedTime = addSat(s.droppedTime, droppedTime)
		s.regrid()
	}
	s.reserved = int(allowed)
	return droppedTicks, droppedTime
}

// Next takes one of the ticks granted by the last Advance and returns its number, counting from
// 1. It returns false when none is left (or the schedule was paused or changed since).
func (s *Schedule) Next() (tick uint64, ok bool) {
	if s.reserved <= 0 {
		return 0, false
	}
	s.reserved--
	s.ticks++
	s.dueLast, s.dueNext = s.dueNext, s.due(s.ticks+1)
	return s.ticks, true
}

// force runs a tick that is not due, for lazy mode: the grid starts again after it.
func (s *Schedule) force() uint64 {
	s.ticks++
	s.epochGame, s.epochTick, s.skipped = s.dueLast, s.ticks, 0
	s.regrid()
	return s.ticks
}

// Pending returns how many ticks granted by the last Advance have not been taken.
func (s *Schedule) Pending() int { return s.reserved }

// Ext returns the game time elapsed since the last tick that ran (Piston's ext_dt): the
// amount by which to extrapolate motion when drawing at now.
func (s *Schedule) Ext(now time.Duration) time.Duration {
	return s.gameTime(now) - s.dueLast
}

// Alpha returns the fraction of the next tick's step already elapsed at now, in [0, 1): the
// weight to blend the previous and current state by when drawing at now.
func (s *Schedule) Alpha(now time.Duration) float64 {
	return s.alphaOf(s.Ext(now))
}

func (s *Schedule) alphaOf(ext time.Duration) float64 {
	a := float64(ext) * s.ratePerNs
	switch {
	case a < 0:
		return 0
	case a >= 1:
		// Ticks are owed and not yet run (paused with time owed, or between Advance and Next).
		return math.Nextafter(1, 0)
	}
	return a
}

// NextTickAt returns the real time at which the next tick is due: now or earlier if ticks are
// owed; a time that never comes (math.MaxInt64) while paused or at time scale 0.
func (s *Schedule) NextTickAt() time.Duration {
	if s.paused || s.scale.mant == 0 {
		return never
	}
	next := s.dueNext
	if s.reserved > 0 {
		next = s.due(s.ticks + uint64(s.reserved) + 1)
	}
	d := next - s.gameBase
	return addSat(s.realBase, s.scale.unscale(d))
}

// Ticks returns the number of ticks run.
func (s *Schedule) Ticks() uint64 { return s.ticks }

// Dropped returns the ticks dropped so far and the game time they would have simulated.
func (s *Schedule) Dropped() (ticks uint64, gameTime time.Duration) {
	return s.droppedTicks, s.droppedTime
}

// TickRate returns the ticks per second.
func (s *Schedule) TickRate() int { return int(s.rate) }

// Step returns the duration of one tick: 1s/TickRate, truncated to whole nanoseconds. The grid
// itself is exact; see StepSeconds.
func (s *Schedule) Step() time.Duration { return s.step }

// StepSeconds returns the duration of one tick in seconds, 1/TickRate.
func (s *Schedule) StepSeconds() float64 { return s.stepSeconds }

// Paused reports whether the schedule is paused.
func (s *Schedule) Paused() bool { return s.paused }

// TimeScale returns the current time scale.
func (s *Schedule) TimeScale() float64 { return s.scale.f }

// Pause stops game time at now: no ticks come due until Resume. Ticks already owed stay owed.
func (s *Schedule) Pause(now time.Duration) {
	if s.paused {
		return
	}
	s.rebase(now)
	s.paused = true
	s.reserved = 0
}

// Resume lets game time run again from now, from where it stopped.
func (s *Schedule) Resume(now time.Duration) {
	if !s.paused {
		return
	}
	s.start(now)
	s.paused = false
	s.realBase = max(s.realBase, now)
	s.markReal = s.realBase
	// The ticks owed when the pause began stay owed: the bound of the next pass counts from
	// the game time at the pause.
	s.lastGame, s.limitGame, s.budget = s.gameBase, s.gameBase, s.maxFrameTime
}

// SetTimeScale makes game time run at scale times real time from now on: 0.5 gives half as many
// ticks per real second, each with the same step. Scale 0 stops game time like Pause.
func (s *Schedule) SetTimeScale(now time.Duration, scale float64) error {
	if err := checkScale("TimeScale", scale); err != nil {
		return inSetter("SetTimeScale", err)
	}
	s.rebase(now)
	s.scale = exactScale(scale)
	s.reserved = 0
	return nil
}

// SetTickRate changes the tick rate. The new grid starts at the last tick that ran: the game
// time since then counts toward the first tick at the new rate, so none is lost or repeated.
// Ticks granted and not taken are withdrawn; Advance again.
func (s *Schedule) SetTickRate(rate int) error {
	if rate <= 0 || rate > MaxRate {
		return inSetter("SetTickRate", badField("TickRate", rate, fmt.Sprintf("must be between 1 and %d", MaxRate)))
	}
	s.epochGame, s.epochTick, s.skipped = s.dueLast, s.ticks, 0
	s.setRate(int64(rate))
	s.reserved = 0
	s.regrid()
	return nil
}
