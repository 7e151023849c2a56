package gameloop

import "time"

// The dispatch of a wake-up's due matches: which the waiter runs from the start, and how the
// rest is cut for the pool's workers. It is a pure function of the matches' measured costs (the
// time their last pass took, kept in their entries) and of how many workers there are, so that
// tests drive it on a simulated clock with virtual workers (see pooldispatch_test.go).
//
// The model: a wake-up's burst of W of work, on the waiter and K-1 workers, should end about
// W/K after it was due, plus the longest single update, plus what a worker takes to wake; a
// match must not wait for a slow one to finish. So:
//
//   - a burst whose cost is under shareAbove runs on the waiter alone: waking a worker costs
//     more than it saves (a thread wake-up is tens of µs on a virtual machine);
//   - otherwise as many processors are used as the burst gives minShare of work each, up to
//     K; the waiter runs its share (W over that; half of it past halfFrontAbove) from the
//     front (it is awake, and the earliest due go first), and the rest is cut in guided
//     chunks, which whoever is free takes next (the waiter too, once its front is done), so
//     that a processor that comes late, or is taken away for a while (a virtual machine's
//     are), takes less rather than a fixed part (with the waiter's whole share of a long burst
//     run first, 80 ms of 80 µs updates on 2 processors ended about 3 ms later at the 99th
//     percentile: docs/server.md);
//   - a match that must not run on the waiter (a slow one: see PoolOptions.SlowPass), or that
//     costs a chunk or more, is a chunk of its own: no match of a chunk waits behind it, and
//     the other processors go on with the rest.
//
// Chunks are cut by cost, not by count: cut by count (16 matches), a chunk of matches with
// 80 µs updates was 1.3 ms of work that one thread took whole while the other had nothing left.
const (
	// shareAbove is the cost of a burst above which it is shared with the workers.
	shareAbove = 200 * time.Microsecond
	// minShare is the least work a processor used for a burst is given.
	minShare = 100 * time.Microsecond
	// chunkCost is about how much work a chunk of the workers' part holds (at least one match,
	// at most tailChunk).
	chunkCost = 50 * time.Microsecond
	// halfFrontAbove is the share of a burst above which the waiter runs half of it from the
	// front rather than all: in a shorter burst the chunks it would take with the workers
	// instead cost more (lock trips, matches' memory moved between processors) than a pause
	// of a worker can.
	halfFrontAbove = 5 * time.Millisecond
	// tailChunk is the most entries a chunk of the workers' part holds: where matches cost
	// under a microsecond, a chunk of 16 was a trip to the pool's lock and to the clock's for
	// a few microseconds of work, which the waiter and the workers then spent contending.
	tailChunk = 128
)

// dispatchPlan is how one wake-up's due entries are run.
type dispatchPlan struct {
	// procs is how many processors the burst is planned for: the waiter and procs-1 workers.
	procs int
	// inline is how many entries, from the front, the waiter runs from the start (it hands
	// those it may not run to the workers as it comes to them); the rest is the workers'.
	inline int
	// ends are the ends of the chunks of the rest, as indexes of the whole batch, ascending;
	// the last is the batch's length. Empty when inline is the whole batch.
	ends []int
	// cost is the burst's foreseen cost: the sum of its entries'.
	cost time.Duration
}

// guidedShare is the part of what is left to cut, over the processors, that the next chunk of
// the workers' part holds, at least chunkCost: the chunks of a long burst begin long and shrink
// toward its end (guided self-scheduling), so that the processors take the tail's lock and
// requeue under the clock's a few dozen times each rather than once for every match (80 ms of
// 80 µs updates was 1,000 chunks of one match each), and still end together, the last chunks
// being short; and a processor that stops for a while holds up no more than its chunk.
const guidedShare = 4

// dueInfo is what the dispatch needs of a due entry, in 32 bits: what its last pass cost (0 for
// one never run, and for a goroutine's wait), in nanoseconds, shifted left by one, and in the
// lowest bit whether the waiter must not run it. The clock's queue keeps it beside the
// deadline, so that planning a wake-up reads the queue's memory in sequence rather than each
// entry's, out of the cache: for 10,000 due matches, reading their entries took 200 µs here.
type dueInfo uint32

// maxDueCost is the most cost a dueInfo holds; more is taken as this (2.1 s), more than any pass
// that is not slow (PoolOptions.SlowPass).
const maxDueCost = time.Duration(1<<31 - 1)

// makeDueInfo returns the dueInfo of an entry whose last pass cost cost, and which the waiter
// must not run if offWaiter.
func makeDueInfo(cost time.Duration, offWaiter bool) dueInfo {
	d := dueInfo(min(max(cost, 0), maxDueCost)) << 1
	if offWaiter {
		d |= 1
	}
	return d
}

// infoOf returns e's dueInfo, as its runner set it.
func infoOf(e *waitEntry) dueInfo { return e.info }

// cost returns the entry's cost.
func (d dueInfo) cost() time.Duration { return time.Duration(d >> 1) }

// offWaiter reports whether the waiter must not run the entry.
func (d dueInfo) offWaiter() bool { return d&1 != 0 }

// planDispatch plans the entries of a wake-up, given by their infos in the order they came
// due, for the waiter and workers workers, reusing plan's array.
func planDispatch(batch []dueInfo, workers int, plan *dispatchPlan) {
	plan.ends = plan.ends[:0]
	plan.cost = 0
	for _, d := range batch {
		plan.cost += d.cost()
	}
	plan.procs, plan.inline = 1, len(batch)
	if plan.cost <= shareAbove || workers < 1 || len(batch) < 2 {
		return
	}
	plan.procs = int(min(plan.cost/minShare, time.Duration(workers+1)))
	plan.procs = max(plan.procs, 2)
	share := plan.cost / time.Duration(plan.procs)
	// The waiter's front: entries until the cost of those it runs reaches its share, or half
	// of it in a long burst. Those it may not run it hands to the workers as it comes to them,
	// first in their queue.
	limit := share
	if share > halfFrontAbove {
		limit = share / 2
	}
	var ran, front time.Duration
	inline := 0
	for inline < len(batch) && ran < limit {
		if !batch[inline].offWaiter() {
			ran += batch[inline].cost()
		}
		front += batch[inline].cost()
		inline++
	}
	plan.inline = inline
	plan.ends = cutChunks(batch, inline, plan.ends, plan.cost-front, plan.procs)
}

// cutChunks appends to ends the ends of the chunks of batch[from:], whose entries cost rest in
// all, for procs processors: runs of entries of about max(chunkCost, what is left to cut /
// (guidedShare × procs)) each (at most tailChunk), with every entry that costs that or more,
// or that the waiter may not run, alone. With procs 0, the chunks are of chunkCost.
func cutChunks(batch []dueInfo, from int, ends []int, rest time.Duration, procs int) []int {
	var sum time.Duration
	n := 0
	chunk := chunkCost
	for i := from; i < len(batch); i++ {
		d := batch[i]
		if n == 0 && procs > 0 {
			chunk = max(chunkCost, rest/time.Duration(guidedShare*procs))
		}
		rest -= d.cost()
		alone := d.offWaiter() || d.cost() >= chunk
		if alone && n > 0 {
			ends = append(ends, i) // the chunk before it ends here
			sum, n = 0, 0
		}
		sum += d.cost()
		n++
		if alone || sum >= chunk || n == tailChunk {
			ends = append(ends, i+1)
			sum, n = 0, 0
		}
	}
	if n > 0 {
		ends = append(ends, len(batch))
	}
	return ends
}
