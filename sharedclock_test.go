package gameloop

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
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
			got := make([]time.Duration, len(batch))
			for i, e := range batch {
				got[i] = e.deadline
				delete(entries, e)
			}
			slices.Sort(got)
			if !slices.Equal(got, want[:n]) {
				t.Fatalf("step %d: popDue(%v) took %v, want %v", step, now, got, want[:n])
			}
			want = want[n:]
		}
		if h.len() != len(want) {
			t.Fatalf("step %d: heap holds %d, want %d", step, h.len(), len(want))
		}
		if p := heapViolation(&h); p >= 0 {
			t.Fatalf("step %d: slot %d is earlier than its parent", step, p)
		}
	}
	if h.remove(&waitEntry{}) {
		t.Error("remove found an entry that was never pushed")
	}
}

// TestDeadlineHeapPopMany checks popDue where many entries are due at once (games on one
// grid): it takes every due entry and no other, the earliest first until it takes the rest in
// one pass, and leaves a valid heap of the others.
func TestDeadlineHeapPopMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{10, 100, 1000, 10000} {
		for _, dueShare := range []int{0, 1, 50, 99, 100} {
			var h deadlineHeap
			var want []time.Duration
			for range size {
				d := time.Duration(rng.IntN(100))
				h.push(&waitEntry{deadline: d})
				want = append(want, d)
			}
			now := time.Duration(dueShare - 1)
			batch := h.popDue(now, nil)
			slices.Sort(want)
			n, _ := slices.BinarySearch(want, now+1)
			got := make([]time.Duration, len(batch))
			for i, e := range batch {
				got[i] = e.deadline
			}
			if bulk := min(max(64, size/16), len(got)); !slices.IsSorted(got[:bulk]) {
				t.Errorf("size %d, due %d%%: the first %d taken are not in order", size, dueShare, bulk)
			}
			slices.Sort(got)
			if !slices.Equal(got, want[:n]) {
				t.Errorf("size %d, due %d%%: took %d entries, want %d", size, dueShare, len(got), n)
			}
			if h.len() != size-n {
				t.Errorf("size %d, due %d%%: heap holds %d, want %d", size, dueShare, h.len(), size-n)
			}
			if p := heapViolation(&h); p >= 0 {
				t.Fatalf("size %d, due %d%%: slot %d is earlier than its parent", size, dueShare, p)
			}
			if h.len() > 0 && h.s[heapPad].deadline <= now {
				t.Errorf("size %d, due %d%%: a due entry was left", size, dueShare)
			}
		}
	}
}

// heapViolation returns the index of a slot of h earlier than its parent, or -1 if there is
// none. Its indexes are computed from scratch: slot k (from 0) is at heapPad+k, and its parent
// is slot (k-1)/4.
func heapViolation(h *deadlineHeap) int {
	for k := 1; k < h.len(); k++ {
		if h.s[heapPad+(k-1)/heapArity].deadline > h.s[heapPad+k].deadline {
			return heapPad + k
		}
	}
	return -1
}

// TestDeadlineQueueTarget checks that a wake-up gathers the latest deadline within the
// resolution of the earliest, and never one past it, with the deadlines pushed in order and
// latest first (each then goes in the run before the others).
func TestDeadlineQueueTarget(t *testing.T) {
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
			var inOrder, backward deadlineQueue
			for _, d := range tt.deadlines {
				inOrder.push(&waitEntry{deadline: d})
			}
			for _, d := range slices.Backward(tt.deadlines) {
				backward.push(&waitEntry{deadline: d})
			}
			if got := inOrder.target(tt.res, tt.precise); got != tt.want {
				t.Errorf("target = %v, want %v (pushed in order)", got, tt.want)
			}
			if got := backward.target(tt.res, tt.precise); got != tt.want {
				t.Errorf("target = %v, want %v (pushed latest first)", got, tt.want)
			}
		})
	}
}

// TestSharedClockWaitUntil has many goroutines wait for random deadlines, some of them woken
// early: none returns before its deadline unless woken, and every wait ends.
func TestSharedClockWaitUntil(t *testing.T) {
	for _, opts := range []SharedClockOptions{
		{Resolution: 200 * time.Microsecond}, {Resolution: time.Millisecond}, {Resolution: 3 * time.Millisecond},
		{Resolution: 200 * time.Microsecond, Spin: true}, {Resolution: 3 * time.Millisecond, Spin: true},
	} {
		name := opts.Resolution.String()
		if opts.Spin {
			name += ",spin"
		}
		t.Run(name, func(t *testing.T) {
			c := NewSharedClock(&opts)
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
// different times (each after a number of ticks of its own, the paused one last): every tick is
// run on time or later, never before it is due, and nothing is left running.
func TestSharedClockLoops(t *testing.T) {
	t.Run("default", func(t *testing.T) { testSharedClockLoops(t, nil) })
	t.Run("spin", func(t *testing.T) { testSharedClockLoops(t, &SharedClockOptions{Spin: true}) })
}

func testSharedClockLoops(t *testing.T, opts *SharedClockOptions) {
	before := runtime.NumGoroutine()
	c := NewSharedClock(opts)
	const loops, rate = 20, 200
	pausedCtx, endPaused := context.WithCancel(context.Background())
	defer endPaused()
	var wg, running sync.WaitGroup
	running.Add(loops - 1)
	for i := range loops {
		wg.Go(func() {
			parent := pausedCtx
			if i > 0 {
				parent = context.Background()
				defer running.Done()
			}
			ctx, cancel := context.WithCancel(parent)
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
					if u.Tick == uint64(5*i) {
						cancel()
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
			if want := uint64(5 * i); i > 0 && st.Ticks != want {
				t.Errorf("loop %d ran %d ticks, want %d", i, st.Ticks, want)
			}
		})
	}
	running.Wait()
	endPaused()
	wg.Wait()
	c.Close()
	waitGoroutines(t, before)
}

// TestSharedClockWaitLoop checks the wait a Loop makes on a shared clock with its own entry
// and wake channel: a deadline ends it no earlier than due, a wake-up ends it early and takes
// the entry out of the heap, and a wake-up racing the deadline leaves no entry in the heap.
func TestSharedClockWaitLoop(t *testing.T) {
	c := NewSharedClock(nil)
	defer c.Close()
	e := new(waitEntry)
	wake := make(chan struct{}, 1)
	heapLen := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.queue.len()
	}

	deadline := c.Now() + 2*time.Millisecond
	c.waitLoop(e, deadline, wake)
	if now := c.Now(); now < deadline {
		t.Errorf("the wait ended %v before its deadline", deadline-now)
	}
	if n := heapLen(); n != 0 {
		t.Errorf("after the deadline the heap holds %d entries", n)
	}

	wake <- struct{}{}
	c.waitLoop(e, c.Now()+time.Hour, wake)
	if n := heapLen(); n != 0 {
		t.Errorf("after a wake-up the heap holds %d entries", n)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		deadline := c.Now() + time.Duration(rng.IntN(200))*time.Microsecond
		delay := time.Duration(rng.IntN(200)) * time.Microsecond
		go func() {
			time.Sleep(delay)
			select {
			case wake <- struct{}{}:
			default:
			}
		}()
		if c.waitLoop(e, deadline, wake) {
			e = new(waitEntry) // the waiter still holds the old one
		}
		time.Sleep(300 * time.Microsecond) // the wake-up has been sent, if it was to be
		select {
		case <-wake: // the sender's, if it came after the wait ended
		default:
		}
		if n := heapLen(); n != 0 {
			t.Fatalf("wait %d: the heap holds %d entries", i, n)
		}
	}
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

// TestTickPeriod checks the waiter's ticker period: positive, never more than the resolution
// (a deadline would wait longer than the resolution for the tick alone), and leaving at least
// most of a millisecond to the Go timers' own lateness from 1 ms up.
func TestTickPeriod(t *testing.T) {
	for res := timerResolution; res <= time.Second; res += 50 * time.Microsecond {
		p := tickPeriod(res)
		if p <= 0 || p > res {
			t.Fatalf("tickPeriod(%v) = %v: want in (0, %v]", res, p, res)
		}
		if res-p < timerResolution*3/4 && p > res/4 {
			t.Fatalf("tickPeriod(%v) = %v leaves %v for the timers' lateness", res, p, res-p)
		}
	}
	if got := tickPeriod(time.Millisecond); got != 250*time.Microsecond {
		t.Errorf("tickPeriod(1ms) = %v, want 250µs", got)
	}
}
