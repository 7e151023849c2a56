package gameloop

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDeadlineHeap pushes, removes and pops random deadlines and checks each step against a
// sorted list.
func TestDeadlineHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h deadlineHeap
	var want []time.Duration
	entries := map[*waitEntry]bool{}
	for step := range 5000 {
		switch op := rng.IntN(10); {
		case op < 5:
			e := &waitEntry{deadline: time.Duration(rng.IntN(1000))}
			h.push(e)
			entries[e] = true
			want = append(want, e.deadline)
		case op < 7 && len(entries) > 0:
			for e := range entries {
				if !h.remove(e) {
					t.Fatalf("step %d: remove did not find an entry in the heap", step)
				}
				delete(entries, e)
				want = slices.Delete(want, slices.Index(want, e.deadline), slices.Index(want, e.deadline)+1)
				break
			}
		default:
			now := time.Duration(rng.IntN(1000))
			batch := h.popDue(now, nil)
			slices.Sort(want)
			n, _ := slices.BinarySearch(want, now+1)
			if len(batch) != n {
				t.Fatalf("step %d: popDue(%v) took %d entries, want %d", step, now, len(batch), n)
			}
			for i, e := range batch {
				if e.deadline != want[i] {
					t.Fatalf("step %d: popDue took %v as entry %d, want %v", step, e.deadline, i, want[i])
				}
				delete(entries, e)
			}
			want = want[n:]
		}
		if len(h) != len(want) {
			t.Fatalf("step %d: heap holds %d, want %d", step, len(h), len(want))
		}
		for i := 1; i < len(h); i++ {
			if h[(i-1)/heapArity].deadline > h[i].deadline {
				t.Fatalf("step %d: slot %d is earlier than its parent", step, i)
			}
		}
	}
	if h.remove(&waitEntry{}) {
		t.Error("remove found an entry that was never pushed")
	}
}

// TestDeadlineHeapTarget checks that a wake-up gathers the latest deadline within the
// resolution of the earliest, and never one past it.
func TestDeadlineHeapTarget(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name      string
		deadlines []time.Duration
		res       time.Duration
		precise   bool
		want      time.Duration
	}{
		{"empty", nil, 500 * us, true, never},
		{"one", []time.Duration{7 * us}, 500 * us, true, 7 * us},
		{"gathers", []time.Duration{100 * us, 300 * us, 600 * us, 601 * us, 2000 * us}, 500 * us, true, 600 * us},
		{"all on one grid", []time.Duration{900 * us, 900 * us, 900 * us}, 500 * us, true, 900 * us},
		{"nothing within", []time.Duration{100 * us, 700 * us}, 500 * us, true, 100 * us},
		// A Go timer is up to a millisecond late by itself: at a resolution of 1 ms it aims at
		// the earliest deadline, at 3 ms at the latest within 2 ms.
		{"timer 1ms", []time.Duration{100 * us, 300 * us}, time.Millisecond, false, 100 * us},
		{"timer 3ms", []time.Duration{100 * us, 2100 * us, 2101 * us}, 3 * time.Millisecond, false, 2100 * us},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h deadlineHeap
			for _, d := range slices.Backward(tt.deadlines) {
				h.push(&waitEntry{deadline: d})
			}
			if got := h.target(tt.res, tt.precise); got != tt.want {
				t.Errorf("target = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSharedClockWaitUntil has many goroutines wait for random deadlines, some of them woken
// early: none returns before its deadline unless woken, and every wait ends.
func TestSharedClockWaitUntil(t *testing.T) {
	for _, res := range []time.Duration{200 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
		t.Run(res.String(), func(t *testing.T) {
			c := NewSharedClock(&SharedClockOptions{Resolution: res})
			defer c.Close()
			var wg sync.WaitGroup
			for i := range 200 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(i), 1))
					wake := make(chan struct{}, 1)
					for j := range 5 {
						deadline := c.Now() + time.Duration(rng.IntN(5000))*time.Microsecond
						woken := j == 2 && i%4 == 0
						if woken {
							wake <- struct{}{}
						}
						c.WaitUntil(deadline, wake)
						if now := c.Now(); !woken && now < deadline {
							t.Errorf("WaitUntil(%v) returned at %v, before its deadline", deadline, now)
						}
						// A wait whose deadline had passed returns without taking the wake-up.
						select {
						case <-wake:
						default:
						}
					}
				})
			}
			wg.Wait()
		})
	}
}

// TestSharedClockLoops runs loops on one shared clock, pauses one and ends them all at
// different times: every tick is run on time or later, never before it is due, and nothing
// is left running.
func TestSharedClockLoops(t *testing.T) {
	before := runtime.NumGoroutine()
	c := NewSharedClock(nil)
	const loops, rate = 20, 200
	var wg sync.WaitGroup
	for i := range loops {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(50+10*i)*time.Millisecond)
			defer cancel()
			clock := &firstNow{SharedClock: c}
			loop, err := New(Config{TickRate: rate, Clock: clock})
			if err != nil {
				t.Error(err)
				return
			}
			if i == 0 {
				loop.Pause()
			}
			var early int
			for ev := range loop.Events(ctx) {
				if u, ok := ev.(*Update); ok {
					if due := clock.first + offsetOf(u.Tick, rate); c.Now() < due {
						early++
					}
				}
			}
			if early > 0 {
				t.Errorf("loop %d: %d ticks began before they were due", i, early)
			}
			st := loop.Stats()
			if i == 0 && st.Ticks != 0 {
				t.Errorf("paused loop ran %d ticks", st.Ticks)
			}
			if i > 0 && st.Ticks == 0 {
				t.Errorf("loop %d ran no tick", i)
			}
		})
	}
	wg.Wait()
	c.Close()
	waitGoroutines(t, before)
}

// firstNow is a shared clock that remembers the first time its loop read it: the origin of the
// loop's tick grid.
type firstNow struct {
	*SharedClock
	first time.Duration
	seen  bool
}

func (c *firstNow) Now() time.Duration {
	now := c.SharedClock.Now()
	if !c.seen {
		c.first, c.seen = now, true
	}
	return now
}

// TestSharedClockClosed: a loop whose clock is closed under it goes on, on timers of its own.
func TestSharedClockClosed(t *testing.T) {
	c := NewSharedClock(nil)
	loop, err := New(Config{TickRate: 1000, Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	ticks := 0
	err = loop.Run(context.Background(), GameFunc(func(u *Update) error {
		ticks++
		if ticks == 5 {
			c.Close()
		}
		if ticks == 20 {
			return ErrStop
		}
		return nil
	}))
	if err != nil || ticks != 20 {
		t.Errorf("Run = %v after %d ticks, want nil after 20", err, ticks)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// waitGoroutines fails the test if, within a few seconds, the number of goroutines does not
// come back to n, or a goroutine of a shared clock, a pool or a loop is still running. (On
// js/wasm the runtime keeps goroutines of its own that come and go: only the second is checked.)
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	var dump string
	for range 300 {
		dump = string(buf[:runtime.Stack(buf, true)])
		ours := strings.Contains(dump, "gameloop.(*SharedClock)") || strings.Contains(dump, "gameloop.(*Pool)") ||
			strings.Contains(dump, "gameloop.(*Match)") || strings.Contains(dump, "gameloop.(*Loop)")
		if !ours && (runtime.GOOS == "js" || runtime.NumGoroutine() <= n) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), n, dump)
}
