package gameloop

import (
	"math"
	"math/big"
	"testing"
	"time"
)

// fuzzScales are the time scales the fuzz program can set: exact binary fractions, integers,
// fractions no float64 holds exactly (0.1, 1/3), and the extremes.
var fuzzScales = [16]float64{0, 0.25, 0.5, 1, 1.5, 2, 3, 10, 0.1, 1.0 / 3, 7e-7, 1e-300, 123.456, 1000, 1e5, maxTimeScale}

// fuzzMaxFrameTimes are the MaxFrameTime settings the fuzz program runs under: the default, less
// than a step at most rates, a frame, and the largest.
var fuzzMaxFrameTimes = [6]time.Duration{0, time.Millisecond, 16 * time.Millisecond, 100 * time.Millisecond, time.Second, math.MaxInt64}

// FuzzScheduleInvariants drives a schedule with a random program of advances (short frames
// and jumps of 18 minutes), real time passing between them, pauses and time scale changes, and
// checks after every step what must always hold:
//   - conservation: ticks run + ticks dropped = ticks due in the game time that passed, computed
//     here independently and exactly (big integers: floor(real time x scale), scale taken
//     exactly from its float64); no tick is lost or counted twice;
//   - progress: whenever a tick can come (not paused, scale above 0), Advance at the time
//     NextTickAt returns grants at least one tick, so a loop waiting for that deadline never
//     waits for nothing;
//   - no Advance grants more than MaxTicksPerFrame;
//   - every dropped tick was owed to the bounds: an Advance that drops ticks either granted
//     MaxTicksPerFrame, or the first tick it dropped was due past its MaxFrameTime bound (the
//     game time at the last Advance, or at the pause after a Resume, plus the game time of the
//     first MaxFrameTime of running real time since, each stretch at its own scale; at least one
//     step), computed here with big integers;
//   - Alpha is in [0, 1), and once the granted ticks are taken Ext is under one step.
func FuzzScheduleInvariants(f *testing.F) {
	f.Add(uint16(60), uint8(5), []byte{10, 200, 3, 0x81, 50, 0x82, 7, 255, 255, 0xC3, 40})
	f.Add(uint16(144), uint8(1), []byte{1, 2, 3, 4, 5, 250, 251, 252})
	f.Add(uint16(7), uint8(100), []byte{0xC0, 99, 0x81, 0x82, 0x81, 17})
	f.Add(uint16(1000), uint8(3), []byte{0xC7, 255, 255, 255, 0xC1, 9})
	f.Add(uint16(1999), uint8(5), []byte{0xC8, 0x83, 0x83, 7, 0xC9, 0x83, 9, 0xCF, 0x83, 0x83, 0x83, 0x83, 3})
	f.Add(uint16(60), uint8(5), []byte{0xCF, 0x83, 0x83, 0x83, 0x83, 0x83, 0x83, 0x83, 0x83, 1, 0xCC, 0x83, 2})
	// 56 ms pass at scale 1 (3 ticks owed at 60 Hz), then the scale drops to 0.1 and to 0: the
	// ticks are owed still, under the default MaxFrameTime and under none.
	f.Add(uint16(60), uint8(5), []byte{0x8B, 0xC8, 1, 0x8B, 0xC0, 1})
	f.Add(uint16(60), uint8(254), []byte{0x8B, 0xC0, 1, 0x8B, 0xC8, 0x8F, 1})
	f.Fuzz(runScheduleProgram)
}

// runScheduleProgram is FuzzScheduleInvariants' body: see there.
func runScheduleProgram(t *testing.T, rate16 uint16, maxTicks8 uint8, program []byte) {
	rate := int(rate16%2000) + 1
	maxTicks := int(maxTicks8%50) + 1
	maxFrameTime := fuzzMaxFrameTimes[int(maxTicks8)/50]
	s, err := NewSchedule(Config{TickRate: rate, MaxTicksPerFrame: maxTicks, MaxFrameTime: maxFrameTime})
	if err != nil {
		t.Fatal(err)
	}
	if maxFrameTime == 0 {
		maxFrameTime = DefaultMaxFrameTime
	}
	var now time.Duration // real time
	scale, paused := 1.0, false
	// Game time by this test's own account: segGame + floor((now-segStart)*scale).
	segStart, segGame := now, new(big.Int)
	gameAt := func(now time.Duration) *big.Int {
		if paused {
			return new(big.Int).Set(segGame)
		}
		r := new(big.Rat).SetFloat64(scale)
		r.Mul(r, new(big.Rat).SetInt64(int64(now-segStart)))
		q := new(big.Int).Quo(r.Num(), r.Denom()) // both positive: the floor
		return q.Add(q, segGame)
	}
	rebase := func() { segGame, segStart = gameAt(now), now }
	// The MaxFrameTime bound of the next Advance, by this test's own account: game time up to
	// limitGame is allowed for the running real time up to markReal, and budget of MaxFrameTime
	// is left; lastGame is the game time at the last Advance (or at the pause, after a Resume).
	lastGame, limitGame := new(big.Int), new(big.Int)
	budget, markReal := maxFrameTime, now
	countStretch := func() {
		if !paused && now > markReal {
			used := min(now-markReal, budget)
			r := new(big.Rat).SetFloat64(scale)
			r.Mul(r, new(big.Rat).SetInt64(int64(used)))
			limitGame.Add(limitGame, new(big.Int).Quo(r.Num(), r.Denom()))
			budget -= used
		}
		markReal = now
	}
	// stepCeil is one step rounded up, the least bound; dueOf is the game time at which grid
	// slot k is due: ceil(k * 1s / rate).
	stepCeil := big.NewInt(int64(offsetOf(1, int64(rate))))
	dueOf := func(k *big.Int) *big.Int {
		d := new(big.Int).Mul(k, big.NewInt(int64(time.Second)))
		d.Add(d, big.NewInt(int64(rate-1)))
		return d.Quo(d, big.NewInt(int64(rate)))
	}
	s.Advance(now)
	unseen := false // real time has passed since the last Advance: ticks may be owed unseen
	for _, op := range program {
		switch {
		case op&0xF0 == 0xC0: // set the time scale
			countStretch()
			rebase()
			scale = fuzzScales[op&15]
			if err := s.SetTimeScale(now, scale); err != nil {
				t.Fatal(err)
			}
		case op == 0x81:
			countStretch()
			rebase()
			paused = true
			s.Pause(now)
		case op >= 0x84 && op <= 0x8F:
			// Real time passes without an Advance (7 to 84 ms), as before a control change
			// between frames.
			now += time.Duration(op-0x83) * 7 * time.Millisecond
			unseen = true
		case op == 0x82:
			if paused {
				segStart, paused = now, false
				lastGame.Set(segGame)
				limitGame.Set(segGame)
				budget, markReal = maxFrameTime, now
			}
			s.Resume(now)
		default:
			if op == 0x83 { // a long stall: 2^40 ns, about 18 minutes
				now += 1 << 40
			} else { // a made-up frame time, up to about 1.3 s
				now += time.Duration(op) * time.Duration(op) * 20 * time.Microsecond
			}
			countStretch()
			unseen = false
			droppedBefore, _ := s.Dropped()
			consumed := new(big.Int).SetUint64(s.Ticks())
			consumed.Add(consumed, new(big.Int).SetUint64(droppedBefore))
			st := s.Advance(now)
			if st.Ticks > maxTicks {
				t.Fatalf("Advance granted %d ticks, MaxTicksPerFrame is %d", st.Ticks, maxTicks)
			}
			if st.DroppedTicks > 0 && st.Ticks < maxTicks {
				// Not MaxTicksPerFrame: the first tick dropped must be due past the bound
				// (less a nanosecond for each time the origin moved, as above).
				bound := new(big.Int).Add(lastGame, stepCeil)
				if bound.Cmp(limitGame) < 0 {
					bound.Set(limitGame)
				}
				first := dueOf(consumed.Add(consumed, big.NewInt(int64(st.Ticks+1))))
				first.Add(first, big.NewInt(int64(s.reorigins)))
				if first.Cmp(bound) <= 0 {
					t.Fatalf("after op %#x at scale %v: Advance granted %d ticks and dropped %d, the first due at game time %v, within its MaxFrameTime bound %v",
						op, scale, st.Ticks, st.DroppedTicks, first, bound)
				}
			}
			lastGame = gameAt(now)
			limitGame.Set(lastGame)
			budget = maxFrameTime
			for range st.Ticks {
				if _, ok := s.Next(); !ok {
					t.Fatal("Next refused a granted tick")
				}
			}
			if _, ok := s.Next(); ok {
				t.Fatal("Next gave a tick that was not granted")
			}
			if ext := s.Ext(now); !paused && (ext < 0 || ext >= s.stepCeil) {
				t.Fatalf("Ext %v after taking every tick owed, step %v", ext, s.stepCeil)
			}
		}
		if a := s.Alpha(now); a < 0 || a >= 1 || math.IsNaN(a) {
			t.Fatalf("Alpha %v", a)
		}
		if next := s.NextTickAt(); next != never {
			if paused || scale == 0 {
				t.Fatalf("NextTickAt %v while no tick can come", next)
			}
			probe := *s
			if st := probe.Advance(max(next, now)); st.Ticks == 0 {
				t.Fatalf("after op %#x at scale %v: Advance(NextTickAt() = %v) granted no tick", op, scale, next)
			}
		}
		dropped, _ := s.Dropped()
		due := new(big.Int).Mul(gameAt(now), big.NewInt(int64(rate)))
		due.Quo(due, big.NewInt(int64(time.Second)))
		// Ticks granted but not yet taken are neither run nor dropped. Moving the origin of
		// game time (once in 73 years of it) may lose less than a nanosecond each time. Ticks
		// that came due since the last Advance are owed, not yet run or dropped.
		got := new(big.Int).SetUint64(s.Ticks())
		got.Add(got, new(big.Int).SetUint64(dropped))
		if !paused {
			got.Add(got, big.NewInt(int64(s.Pending())))
		}
		diff := new(big.Int).Sub(due, got)
		if diff.Sign() < 0 || diff.Cmp(big.NewInt(int64(s.reorigins))) > 0 && !((paused || unseen) && diff.Sign() >= 0) {
			t.Fatalf("after op %#x: %d run + %d dropped + %d pending != %v due (%d reorigins)", op, s.Ticks(), dropped, s.Pending(), due, s.reorigins)
		}
	}
}
