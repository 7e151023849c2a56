package gameloop

import (
	"context"
	"testing"
	"time"
)

// takeQueued plays the waiter of a clock that has none (newSharedClock): it waits until n
// entries are in the queue and takes them out as due, as the waiter does before it fires them,
// without firing them.
func takeQueued(t *testing.T, c *SharedClock, n int) []*waitEntry {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.mu.Lock()
		if c.queue.len() >= n {
			batch, _ := c.queue.popDue(never-1, nil, nil)
			c.mu.Unlock()
			return batch
		}
		c.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %d entries in the queue after 10 s", n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A Loop on a shared clock that is cancelled while the waiter holds its entry, taken out to be
// fired behind a slow entry of a client, returns at once: it neither waits for the waiter nor spins until
// it comes. Its later waits are not disturbed by the waiter firing the old entry.
func TestSharedClockLoopCancelledWhileHeld(t *testing.T) {
	c := newSharedClock(SharedClockOptions{Resolution: DefaultResolution})
	close(c.stopped) // no waiter: the test plays its part
	loop, err := New(Config{TickRate: 1, Clock: c, NoFrames: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- loop.Run(ctx, GameFunc(func(*Update) error { return nil })) }()
	held := takeQueued(t, c, 1)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a loop cancelled while the waiter held its entry did not return in 10 s")
	}
	// The waiter comes to the entry at last, and the loop, run again, waits with another.
	held[0].wakeGoroutine()
	go func() { done <- loop.Run(context.Background(), GameFunc(func(*Update) error { return ErrStop })) }()
	for {
		batch := takeQueued(t, c, 1)
		if batch[0] == held[0] {
			t.Fatal("the loop waits again with the entry the waiter held")
		}
		batch[0].wakeGoroutine()
		select {
		case <-done:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// WaitUntil woken while the waiter holds its entry returns at once too.
func TestSharedClockWaitUntilWokenWhileHeld(t *testing.T) {
	c := newSharedClock(SharedClockOptions{Resolution: DefaultResolution})
	close(c.stopped)
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		c.WaitUntil(c.Now()+time.Hour, wake)
		close(done)
	}()
	held := takeQueued(t, c, 1)
	wake <- struct{}{}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("WaitUntil woken while the waiter held its entry did not return in 10 s")
	}
	held[0].wakeGoroutine() // the waiter comes to it: its token goes nowhere, and blocks nothing
}
