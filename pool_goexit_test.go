package gameloop

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// An Update that calls runtime.Goexit (as t.Fatal does) ends its match with ErrGoexit, whether
// the waiter or a worker ran it; the other matches on the clock go on ticking, and Pool.Close
// and SharedClock.Close return.
func TestPoolUpdateGoexit(t *testing.T) {
	tests := []struct {
		name string
		slow bool // the match's first updates are slow, so that a worker runs it
	}{
		{"on the waiter", false},
		{"on a worker", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			c := NewSharedClock(nil)
			p := NewPool(c, &PoolOptions{Workers: 1, SlowPass: time.Millisecond})
			exiting, err := p.NewMatch(context.Background(), GameFunc(func(u *Update) error {
				if tt.slow {
					time.Sleep(2 * time.Millisecond)
				}
				if u.Tick == 3 {
					runtime.Goexit()
				}
				return nil
			}), Config{TickRate: 100})
			if err != nil {
				t.Fatal(err)
			}
			var others [3]atomic.Uint64
			var ms []*Match
			for i := range others {
				m, err := p.NewMatch(context.Background(), GameFunc(func(u *Update) error {
					others[i].Store(u.Tick)
					return nil
				}), Config{TickRate: 100})
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
			at := c.Now()
			exiting.StartAt(at)
			for _, m := range ms {
				m.StartAt(at)
			}
			select {
			case <-exiting.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the match whose Update called runtime.Goexit did not end")
			}
			if err := exiting.Err(); !errors.Is(err, ErrGoexit) {
				t.Errorf("Err = %v, want ErrGoexit", err)
			}
			// The others go on: each runs 10 more ticks.
			var from [len(others)]uint64
			for i := range others {
				from[i] = others[i].Load()
			}
			for i := range others {
				for deadline := time.Now().Add(10 * time.Second); others[i].Load() < from[i]+10; {
					if time.Now().After(deadline) {
						t.Fatalf("match %d stopped at tick %d after another's Goexit", i, others[i].Load())
					}
					time.Sleep(time.Millisecond)
				}
			}
			closed := make(chan struct{})
			go func() {
				p.Close()
				c.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("Pool.Close and SharedClock.Close did not return")
			}
			waitGoroutines(t, before)
		})
	}
}

// Close called from a match's Update, which runs on the waiter or a worker that Close waits
// for, returns ErrCloseFromCallback at once rather than deadlock; the pool and clock then close
// from another goroutine as usual.
func TestCloseFromCallback(t *testing.T) {
	tests := []struct {
		name  string
		slow  bool // the match's first updates are slow, so that a worker runs it
		clock bool // SharedClock.Close rather than Pool.Close
	}{
		{"Pool.Close on the waiter", false, false},
		{"Pool.Close on a worker", true, false},
		{"SharedClock.Close on the waiter", false, true},
		{"SharedClock.Close on a worker", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			c := NewSharedClock(nil)
			p := NewPool(c, &PoolOptions{Workers: 1, SlowPass: time.Millisecond})
			got := make(chan error, 1)
			m, err := p.NewMatch(context.Background(), GameFunc(func(u *Update) error {
				if tt.slow {
					time.Sleep(2 * time.Millisecond)
				}
				if u.Tick == 3 {
					if tt.clock {
						got <- c.Close()
					} else {
						got <- p.Close()
					}
					return ErrStop
				}
				return nil
			}), Config{TickRate: 100})
			if err != nil {
				t.Fatal(err)
			}
			m.Start()
			select {
			case err := <-got:
				if !errors.Is(err, ErrCloseFromCallback) {
					t.Errorf("Close from an Update: %v, want ErrCloseFromCallback", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close called from an Update did not return in 10 s")
			}
			if err := m.Wait(); err != nil {
				t.Errorf("the match that returned ErrStop: Err = %v", err)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Pool.Close from the test: %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("SharedClock.Close from the test: %v", err)
			}
			waitGoroutines(t, before)
		})
	}
}

// A match that must end because its pool or clock has closed ends on whatever goroutine comes to
// it (the waiter for another pool, a control method's caller) without running its callbacks
// there: ticks it owes are not run by a goroutine that is not the pool's.
func TestClosedMatchRunsNoCallbacks(t *testing.T) {
	tests := []struct {
		name  string
		close func(c *SharedClock, p *Pool, m *Match, batch []*waitEntry)
	}{
		{"clock closed, then Pause", func(c *SharedClock, p *Pool, m *Match, batch []*waitEntry) {
			c.mu.Lock()
			c.queue.push(batch[0]) // back in the queue, as the waiter left it
			c.closed = true        // as Close does before it ends the pools
			c.mu.Unlock()
			m.Pause()
		}},
		{"pool closed, then the waiter comes to a slow match", func(c *SharedClock, p *Pool, m *Match, batch []*waitEntry) {
			p.mu.Lock()
			p.closed = true // as Close does before it ends the matches
			p.mu.Unlock()
			m.slow.left = 2
			runnerOf(c).runDue(batch, infosOf(batch))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSharedClock(SharedClockOptions{Resolution: DefaultResolution})
			close(c.stopped) // no waiter: the test plays its part
			p := NewPool(c, &PoolOptions{Workers: 1})
			var ticks atomic.Uint64
			m, err := p.NewMatch(context.Background(), GameFunc(func(*Update) error {
				ticks.Add(1)
				return nil
			}), Config{TickRate: 100})
			if err != nil {
				t.Fatal(err)
			}
			m.StartAt(c.Now() - time.Second) // ticks are owed
			batch := takeQueued(t, c, 1)
			tt.close(c, p, m, batch)
			select {
			case <-m.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the match did not end")
			}
			if !errors.Is(m.Err(), ErrClosed) || ticks.Load() != 0 {
				t.Errorf("Err %v after %d updates; want ErrClosed after none", m.Err(), ticks.Load())
			}
			p.mu.Lock()
			p.closed = false // so that Close ends its workers
			p.mu.Unlock()
			p.Close()
		})
	}
}
