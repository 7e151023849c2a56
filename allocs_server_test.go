//go:build !race

// The race detector makes sync.Pool drop entries on purpose, and allocations with them.

package gameloop

import (
	"runtime"
	"testing"
	"time"
)

// TestSharedClockWaitAllocs: a wait on the shared clock allocates nothing.
func TestSharedClockWaitAllocs(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("on js/wasm the runtime allocates whenever every goroutine blocks, to yield to the event loop")
	}
	c := NewSharedClock(&SharedClockOptions{Resolution: 100 * time.Microsecond})
	defer c.Close()
	wake := make(chan struct{}, 1)
	c.WaitUntil(c.Now()+10*time.Microsecond, wake) // the first entry
	if n := testing.AllocsPerRun(200, func() { c.WaitUntil(c.Now()+20*time.Microsecond, wake) }); n > 0 {
		t.Errorf("WaitUntil allocated %v times a call", n)
	}
}

// TestPoolPassAllocs: a match's pass, and putting it back in the heap, allocate nothing.
func TestPoolPassAllocs(t *testing.T) {
	m := newTestMatch(t, GameFunc(func(*Update) error { return nil }), Config{TickRate: 1000})
	m.Push(Input{Kind: Char, Rune: 'a'})
	m.runPass(m.pool.clock.Now()) // the first pass, and the input buffers
	c := m.pool.clock
	ran := []*Match{m}
	if n := testing.AllocsPerRun(200, func() {
		m.sched.realBase -= time.Millisecond // a tick is owed, without waiting for it
		c.mu.Lock()
		c.queue.remove(&m.entry)
		c.mu.Unlock()
		if ok, _ := m.runPass(c.Now()); !ok {
			t.Fatal("the match ended")
		}
		requeue(c, ran)
	}); n > 0 {
		t.Errorf("a pass allocated %v times", n)
	}
}
