package main

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// recorder keeps each match's tick lateness (when its update began minus when it was due)
// over the measured window. Each match writes only its own slot, from one goroutine at a time.
type recorder struct {
	base         time.Time     // the bench's time 0
	startAt      time.Duration // when the first matches start
	from, to     time.Duration // the window: ticks due in [from, to) are counted
	clockOffset  time.Duration // the bench's time minus the pool's clock's, for pool
	skip         int           // a match not counted (the slow one), or -1
	late         [][]time.Duration
	early, drops []uint64
}

func newRecorder(matches, hz int, warmup, seconds time.Duration, skip int) *recorder {
	r := &recorder{base: time.Now(), skip: skip, late: make([][]time.Duration, matches),
		early: make([]uint64, matches), drops: make([]uint64, matches)}
	r.startAt = 200 * time.Millisecond // time to start the goroutines of the slower strategies
	r.from = r.startAt + warmup
	r.to = r.from + seconds
	per := int(seconds.Seconds()*float64(hz)) + 2
	for i := range r.late {
		r.late[i] = make([]time.Duration, 0, per)
	}
	return r
}

// tick records a tick of match i due at due and begun at begun (the bench's time).
func (r *recorder) tick(i int, due, begun time.Duration) {
	if due < r.from || due >= r.to || i == r.skip {
		return
	}
	late := begun - due
	if late > 20*time.Millisecond && os.Getenv("SB_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "late %v match %d due %v\n", late, i, due)
	}
	if late < 0 {
		r.early[i]++
	}
	r.late[i] = append(r.late[i], late)
}

// dropped records ticks match i dropped (over the whole run: a strategy that drops does so
// after its warm-up too).
func (r *recorder) dropped(i int, n uint64) {
	if i != r.skip {
		r.drops[i] += n
	}
}

// summary is the lateness of every counted tick.
type summary struct {
	ticks           int
	p50, p99, worst time.Duration
	early, dropped  uint64
}

func (r *recorder) summarise() summary {
	var all []time.Duration
	var s summary
	for i, l := range r.late {
		all = append(all, l...)
		s.early += r.early[i]
		s.dropped += r.drops[i]
	}
	slices.Sort(all)
	s.ticks = len(all)
	if n := len(all); n > 0 {
		s.p50, s.p99, s.worst = all[(n-1)*50/100], all[(n-1)*99/100], all[n-1]
	}
	return s
}
