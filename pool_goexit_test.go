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
