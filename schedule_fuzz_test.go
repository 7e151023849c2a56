package gameloop

import (
	"math"
	"testing"
	"time"
)

// FuzzScheduleInvariants drives a schedule with a random program of advances, pauses and time
// scale changes, and checks after every step what must always hold:
//   - conservation: ticks run + ticks dropped = ticks due in the game time that passed, computed
//     independently here; no tick is lost or counted twice;
//   - no Advance grants more than MaxTicksPerFrame;
//   - Alpha is in [0, 1), and once the granted ticks are taken Ext is under one step.
func FuzzScheduleInvariants(f *testing.F) {
	f.Add(uint16(60), uint8(5), []byte{10, 200, 3, 0x81, 50, 0x82, 7, 255, 255, 0xC3, 40})
	f.Add(uint16(144), uint8(1), []byte{1, 2, 3, 4, 5, 250, 251, 252})
	f.Add(uint16(7), uint8(100), []byte{0xC0, 99, 0x81, 0x82, 0x81, 17})
	f.Add(uint16(1000), uint8(3), []byte{0xC7, 255, 255, 255, 0xC1, 9})
	f.Fuzz(func(t *testing.T, rate16 uint16, maxTicks8 uint8, program []byte) {
		rate := int(rate16%2000) + 1
		maxTicks := int(maxTicks8%50) + 1
		s, err := NewSchedule(Config{TickRate: rate, MaxTicksPerFrame: maxTicks})
		if err != nil {
			t.Fatal(err)
		}
		var now, game time.Duration // real time, and game time by this test's own account
		scale, paused := 1.0, false
		segStart, segGame := now, game // game time = segGame + round((now-segStart)*scale)
		gameAt := func(now time.Duration) time.Duration {
			if paused {
				return segGame
			}
			return segGame + scaleDuration(now-segStart, scale)
		}
		rebase := func() { segGame, segStart = gameAt(now), now }
		s.Advance(now)
		for _, op := range program {
			switch {
			case op&0xC0 == 0xC0: // set the time scale to one of eight values
				rebase()
				scale = []float64{0, 0.25, 0.5, 1, 1.5, 2, 3, 10}[op&7]
				if err := s.SetTimeScale(now, scale); err != nil {
					t.Fatal(err)
				}
			case op == 0x81:
				rebase()
				paused = true
				s.Pause(now)
			case op == 0x82:
				if paused {
					segStart, paused = now, false
				}
				s.Resume(now)
			default: // advance real time by a made-up frame time, up to about 1.3 s
				now += time.Duration(op) * time.Duration(op) * 20 * time.Microsecond
				st := s.Advance(now)
				if st.Ticks > maxTicks {
					t.Fatalf("Advance granted %d ticks, MaxTicksPerFrame is %d", st.Ticks, maxTicks)
				}
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
			game = gameAt(now)
			if a := s.Alpha(now); a < 0 || a >= 1 || math.IsNaN(a) {
				t.Fatalf("Alpha %v", a)
			}
			dropped, _ := s.Dropped()
			due := countIn(game, int64(rate))
			// Ticks granted but not yet taken are neither run nor dropped.
			if s.Ticks()+dropped+uint64(s.Pending()) != due && !(paused && s.Ticks()+dropped <= due) {
				t.Fatalf("after op %#x: %d run + %d dropped != %d due in %v of game time", op, s.Ticks(), dropped, due, game)
			}
		}
	})
}
