package gameloop

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// closeRates are the tick rates of the matches BenchmarkPoolClose closes, in turn: mixed rates
// put most of them out of order, in the clock queue's heap.
var closeRates = [...]int{20, 30, 60, 64}

// BenchmarkPoolClose measures Pool.Close with n matches at mixed tick rates waiting on the
// clock, their deadlines out of order.
func BenchmarkPoolClose(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 80_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				c := NewSharedClock(nil)
				p := NewPool(c, &PoolOptions{Workers: 1})
				start := c.Now() + time.Hour // the waiter leaves them alone
				for i := range n {
					m, err := p.NewMatch(context.Background(), GameFunc(func(*Update) error { return nil }),
						Config{TickRate: closeRates[i%len(closeRates)]})
					if err != nil {
						b.Fatal(err)
					}
					// Starts out of order, as the next ticks of matches at mixed rates come.
					m.StartAt(start + time.Duration(i*7919%n)*time.Microsecond)
				}
				b.StartTimer()
				if err := p.Close(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c.Close()
			}
		})
	}
}

// TestPoolCloseTakesMatchesOutAtOnce: closing a pool whose matches wait in the clock's heap
// (mixed tick rates put their deadlines out of order) takes them out in one pass, rather than
// searching the heap for each, which made Close quadratic in the number of matches. Every
// match ends with ErrClosed, and nothing of the pool is left in the queue.
func TestPoolCloseTakesMatchesOutAtOnce(t *testing.T) {
	const n = 4000
	c := NewSharedClock(nil)
	defer c.Close()
	p := NewPool(c, &PoolOptions{Workers: 1})
	other := NewPool(c, &PoolOptions{Workers: 1})
	start := c.Now() + time.Hour // the waiter leaves them alone
	var ms []*Match
	for i := range n {
		pool := p
		if i%10 == 0 {
			pool = other // some stay in the queue
		}
		m, err := pool.NewMatch(context.Background(), GameFunc(func(*Update) error { return nil }),
			Config{TickRate: closeRates[i%len(closeRates)]})
		if err != nil {
			t.Fatal(err)
		}
		m.StartAt(start + time.Duration(i*7919%n)*time.Microsecond)
		if pool == p {
			ms = append(ms, m)
		}
	}
	c.mu.Lock()
	inHeap := c.queue.heap.len()
	c.queue.heap.searched = 0
	c.mu.Unlock()
	if inHeap < n/2 {
		t.Fatalf("only %d of %d matches are in the heap: the test does not test it", inHeap, n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := m.Wait(); !errors.Is(err, ErrClosed) {
			t.Fatalf("a match of the closed pool: Err = %v", err)
		}
	}
	c.mu.Lock()
	searched, left := c.queue.heap.searched, c.queue.len()
	c.mu.Unlock()
	if searched > n {
		t.Errorf("closing a pool of %d matches searched the heap's slots %d times", len(ms), searched)
	}
	if left != n/10 {
		t.Errorf("after closing one pool the queue holds %d entries, want the other pool's %d", left, n/10)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMassStopTakesMatchesOutAtOnce: matches stopped together (a context they share, cancelled)
// are taken out of the clock's queue by the waiter in one pass, not searched for one by one,
// which made ending them quadratic in their number, on one grid as at mixed rates.
func TestMassStopTakesMatchesOutAtOnce(t *testing.T) {
	const n = 4000
	for _, grid := range []bool{true, false} {
		c := newSharedClock(SharedClockOptions{Resolution: DefaultResolution})
		close(c.stopped) // no waiter: the test plays its part
		p := NewPool(c, &PoolOptions{Workers: 1})
		start := c.Now() + time.Hour
		var ms []*Match
		for i := range n {
			m, err := p.NewMatch(context.Background(), GameFunc(func(*Update) error { return nil }),
				Config{TickRate: closeRates[i%len(closeRates)]})
			if err != nil {
				t.Fatal(err)
			}
			if grid {
				m.StartAt(start)
			} else {
				m.StartAt(start + time.Duration(i*7919%n)*time.Microsecond)
			}
			ms = append(ms, m)
		}
		c.mu.Lock()
		c.queue.heap.searched, c.queue.searched = 0, 0
		c.mu.Unlock()
		for i := range ms {
			ms[i*7919%n].Stop() // in no order, as the goroutines of a cancelled context come
		}
		c.mu.Lock()
		batch := runnerOf(c).takeLocked(nil)
		searched := c.queue.heap.searched + c.queue.searched
		left := c.queue.len()
		c.mu.Unlock()
		if searched > n {
			t.Errorf("grid %v: taking %d stopped matches out of the queue searched %d slots", grid, n, searched)
		}
		if len(batch) != n || left != 0 {
			t.Fatalf("grid %v: the waiter took %d stopped matches out of the queue, and left %d", grid, len(batch), left)
		}
		runnerOf(c).runDue(batch, infosOf(batch))
		for _, m := range ms {
			if err := m.Wait(); !errors.Is(err, ErrStopped) {
				t.Fatalf("grid %v: a stopped match: Err = %v", grid, err)
			}
		}
		p.Close()
	}
}
