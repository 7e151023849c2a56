package main

import (
	"fmt"
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

// matchRecord is what one match's ticks recorded: written only by whoever runs the match (one
// goroutine at a time, handed over with the match by the strategy), with plain writes, and
// read once every strategy's goroutine has returned. It fills a cache line of its own, and its
// buckets are a stretch of the recorder's array that no other match's shares a cache line
// with, so that matches running on different cores at once write to no line in common: the
// bench measures the strategy, not its own recording. (It once recorded into 16 histograms
// shared by all matches, with atomic adds: goroutines on many cores contended for them, and
// one pool thread did not.)
type matchRecord struct {
	late   []uint16 // the bucket of each tick counted, in the order they began
	worst  time.Duration
	early  uint64
	missed uint64 // ticks counted with late full: the recorder was sized too small
	_      [16]byte
}

// recorder keeps each match's ticks' lateness (when an update began minus when it was due)
// over the measured window: every strategy records the same way, at the same small cost, from
// any goroutine, and summarise merges the matches' records at the end.
type recorder struct {
	base        time.Time     // the bench's time 0
	startAt     time.Duration // when the first matches start
	from, to    time.Duration // the window: ticks due in [from, to) are counted
	clockOffset time.Duration // the bench's time minus the pool's clock's, for pool
	skip        int           // a match not counted (the slow one), or -1

	matches []matchRecord
	// bytes is the size of the matches' arrays of buckets, which the process touches before it
	// runs a strategy: serverbench leaves it out of the RSS it reports.
	bytes   int
	dropped atomic.Uint64
}

// lineUint16s is how many buckets fill a cache line.
const lineUint16s = 64 / 2

// newRecorder returns a recorder for n matches at hz, each with room for every tick due in the
// window.
func newRecorder(n, hz int, warmup, seconds time.Duration, skip int) *recorder {
	r := &recorder{base: time.Now(), skip: skip, matches: make([]matchRecord, n)}
	r.startAt = 200 * time.Millisecond // time to start the goroutines of the slower strategies
	r.from = r.startAt + warmup
	r.to = r.from + seconds
	// Ticks due in [from, to): at most seconds*hz + 1 per match; a few more for safety.
	per := int(seconds.Seconds()*float64(hz)) + 4
	per = (per + lineUint16s - 1) / lineUint16s * lineUint16s
	all := make([]uint16, n*per+lineUint16s)
	// Touched now, so that the pages are in every strategy's RSS from the start, and left out.
	for i := 0; i < len(all); i += 2048 {
		all[i] = 0
	}
	r.bytes = len(all) * 2
	for i := range r.matches {
		r.matches[i].late = all[i*per : i*per : (i+1)*per]
	}
	return r
}

// tick records a tick of match i due at due and begun at begun (the bench's time), on the
// goroutine that runs match i.
func (r *recorder) tick(i int, due, begun time.Duration) {
	if due < r.from || due >= r.to || i == r.skip {
		return
	}
	m := &r.matches[i]
	late := begun - due
	if late < 0 {
		m.early++
		late = 0
	}
	if late > m.worst {
		m.worst = late
	}
	if len(m.late) == cap(m.late) {
		m.missed++
		return
	}
	m.late = append(m.late, uint16(bucketOf(late)))
}

// drop records ticks match i dropped (over the whole run: a strategy that drops does so after
// its warm-up too). It is called once a match, at its end.
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

// summarise merges the matches' records, once every goroutine that ran a match has returned.
func (r *recorder) summarise() (summary, error) {
	s := summary{dropped: r.dropped.Load()}
	counts := make([]uint64, buckets)
	for i := range r.matches {
		m := &r.matches[i]
		if m.missed > 0 {
			return s, fmt.Errorf("match %d counted %d ticks more than the %d the window holds", i, m.missed, cap(m.late))
		}
		s.worst = max(s.worst, m.worst)
		s.early += m.early
		for _, k := range m.late {
			counts[k]++
		}
		s.ticks += uint64(len(m.late))
	}
	if s.ticks == 0 {
		return s, nil
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
	return s, nil
}
