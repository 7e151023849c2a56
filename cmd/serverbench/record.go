package main

import (
	"sync/atomic"
	"time"
)

// histogramMax is the largest lateness the histogram tells apart; later ticks count in its
// last bucket (and in the maximum, which is kept exactly).
const histogramMax = 2 * time.Second

// recorder keeps a histogram of the ticks' lateness (when an update began minus when it was
// due) over the measured window, in 1 µs buckets: every strategy records the same way, at the
// same small cost, from any goroutine.
type recorder struct {
	base        time.Time     // the bench's time 0
	startAt     time.Duration // when the first matches start
	from, to    time.Duration // the window: ticks due in [from, to) are counted
	clockOffset time.Duration // the bench's time minus the pool's clock's, for pool
	skip        int           // a match not counted (the slow one), or -1

	buckets        []atomic.Uint64 // bucket k: lateness in [k µs, k+1 µs)
	worst          atomic.Int64
	early, dropped atomic.Uint64
}

func newRecorder(warmup, seconds time.Duration, skip int) *recorder {
	r := &recorder{base: time.Now(), skip: skip,
		buckets: make([]atomic.Uint64, histogramMax/time.Microsecond+1)}
	r.startAt = 200 * time.Millisecond // time to start the goroutines of the slower strategies
	r.from = r.startAt + warmup
	r.to = r.from + seconds
	return r
}

// tick records a tick of match i due at due and begun at begun (the bench's time).
func (r *recorder) tick(i int, due, begun time.Duration) {
	if due < r.from || due >= r.to || i == r.skip {
		return
	}
	late := begun - due
	if late < 0 {
		r.early.Add(1)
		late = 0
	}
	r.buckets[min(late/time.Microsecond, histogramMax/time.Microsecond)].Add(1)
	for {
		w := r.worst.Load()
		if int64(late) <= w || r.worst.CompareAndSwap(w, int64(late)) {
			break
		}
	}
}

// drop records ticks match i dropped (over the whole run: a strategy that drops does so after
// its warm-up too).
func (r *recorder) drop(i int, n uint64) {
	if i != r.skip {
		r.dropped.Add(n)
	}
}

// summary is the lateness of every counted tick. The percentiles are the upper edges of
// their 1 µs buckets.
type summary struct {
	ticks           uint64
	p50, p99, worst time.Duration
	early, dropped  uint64
}

func (r *recorder) summarise() summary {
	s := summary{early: r.early.Load(), dropped: r.dropped.Load(), worst: time.Duration(r.worst.Load())}
	for i := range r.buckets {
		s.ticks += r.buckets[i].Load()
	}
	if s.ticks == 0 {
		return s
	}
	p50, p99 := (s.ticks-1)*50/100, (s.ticks-1)*99/100
	var seen uint64
	for k := range r.buckets {
		n := r.buckets[k].Load()
		edge := time.Duration(k+1) * time.Microsecond
		if seen <= p50 && p50 < seen+n {
			s.p50 = edge
		}
		if seen <= p99 && p99 < seen+n {
			s.p99 = edge
		}
		seen += n
	}
	s.p50, s.p99 = min(s.p50, s.worst), min(s.p99, s.worst)
	return s
}
