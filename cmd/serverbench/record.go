package main

import (
	"sync/atomic"
	"time"
)

// The histogram's buckets: 1 µs wide up to fineMax, then 1 ms wide up to histogramMax; later
// ticks count in the last bucket (and in the maximum, which is kept exactly).
const (
	fineMax      = 16 * time.Millisecond
	histogramMax = 2 * time.Second
	buckets      = int(fineMax/time.Microsecond + (histogramMax-fineMax)/time.Millisecond + 1)
)

// shards is how many histograms the matches record into, by match: with one, the matches that
// run on different cores at once would contend for its cache lines, and the bench would
// measure its own recording.
const shards = 16

// bucketOf returns the bucket of a lateness, and bucketEdge the upper edge of a bucket.
func bucketOf(late time.Duration) int {
	if late < fineMax {
		return int(late / time.Microsecond)
	}
	return min(int(fineMax/time.Microsecond)+int((late-fineMax)/time.Millisecond), buckets-1)
}

func bucketEdge(k int) time.Duration {
	if fine := int(fineMax / time.Microsecond); k >= fine {
		return fineMax + time.Duration(k-fine+1)*time.Millisecond
	}
	return time.Duration(k+1) * time.Microsecond
}

// shard is one histogram, padded so that two shards share no cache line.
type shard struct {
	buckets []atomic.Uint32 // 4 bytes a bucket, to keep the buckets in use in few cache lines
	worst   atomic.Int64
	_       [48]byte
}

// recorder keeps histograms of the ticks' lateness (when an update began minus when it was
// due) over the measured window: every strategy records the same way, at the same small cost,
// from any goroutine.
type recorder struct {
	base        time.Time     // the bench's time 0
	startAt     time.Duration // when the first matches start
	from, to    time.Duration // the window: ticks due in [from, to) are counted
	clockOffset time.Duration // the bench's time minus the pool's clock's, for pool
	skip        int           // a match not counted (the slow one), or -1

	shards         [shards]shard
	early, dropped atomic.Uint64
}

func newRecorder(warmup, seconds time.Duration, skip int) *recorder {
	r := &recorder{base: time.Now(), skip: skip}
	for i := range r.shards {
		r.shards[i].buckets = make([]atomic.Uint32, buckets)
	}
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
	sh := &r.shards[i%shards]
	sh.buckets[bucketOf(late)].Add(1)
	for {
		w := sh.worst.Load()
		if int64(late) <= w || sh.worst.CompareAndSwap(w, int64(late)) {
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
// their buckets.
type summary struct {
	ticks           uint64
	p50, p99, worst time.Duration
	early, dropped  uint64
}

func (r *recorder) summarise() summary {
	s := summary{early: r.early.Load(), dropped: r.dropped.Load()}
	counts := make([]uint64, buckets)
	for i := range r.shards {
		sh := &r.shards[i]
		s.worst = max(s.worst, time.Duration(sh.worst.Load()))
		for k := range sh.buckets {
			counts[k] += uint64(sh.buckets[k].Load())
		}
	}
	for _, n := range counts {
		s.ticks += n
	}
	if s.ticks == 0 {
		return s
	}
	p50, p99 := (s.ticks-1)*50/100, (s.ticks-1)*99/100
	var seen uint64
	for k, n := range counts {
		edge := bucketEdge(k)
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
