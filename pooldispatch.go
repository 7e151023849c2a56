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
//     K; the waiter runs its share, W over that, from the front (it is awake, and the earliest
//     due go first), and the rest goes to the workers in chunks of about chunkCost, which
//     whoever is free takes next (the waiter too, once its share is done), so that a worker
//     that comes late takes less rather than a fixed part;
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
	// at most workerChunk).
	chunkCost = 50 * time.Microsecond
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

// planDispatch plans the entries of a wake-up, in the order they came due, for the waiter and
// workers workers, reusing plan's array. An entry's cost is what its last pass took (0 for one
// never run, and for a goroutine's wait); its offWaiter says that the waiter must not run it.
func planDispatch(batch []*waitEntry, workers int, plan *dispatchPlan) {
	plan.ends = plan.ends[:0]
	plan.cost = 0
	for _, e := range batch {
		plan.cost += e.cost
	}
	plan.procs, plan.inline = 1, len(batch)
	if plan.cost <= shareAbove || workers < 1 || len(batch) < 2 {
		return
	}
	plan.procs = int(min(plan.cost/minShare, time.Duration(workers+1)))
	plan.procs = max(plan.procs, 2)
	share := plan.cost / time.Duration(plan.procs)
	// The waiter's share: entries from the front until the cost of those it runs reaches
	// share. Those it may not run it hands to the workers as it comes to them, first in their
	// queue.
	var ran time.Duration
	inline := 0
	for inline < len(batch) && ran < share {
		if !batch[inline].offWaiter {
			ran += batch[inline].cost
		}
		inline++
	}
	plan.inline = inline
	plan.ends = cutChunks(batch, inline, plan.ends)
}

// cutChunks appends to ends the ends of the chunks of batch[from:]: runs of entries of about
// chunkCost each (at most workerChunk), with every entry that costs chunkCost or more, or that
// the waiter may not run, alone.
func cutChunks(batch []*waitEntry, from int, ends []int) []int {
	var sum time.Duration
	n := 0
	for i := from; i < len(batch); i++ {
		e := batch[i]
		alone := e.offWaiter || e.cost >= chunkCost
		if alone && n > 0 {
			ends = append(ends, i) // the chunk before it ends here
			sum, n = 0, 0
		}
		sum += e.cost
		n++
		if alone || sum >= chunkCost || n == workerChunk {
			ends = append(ends, i+1)
			sum, n = 0, 0
		}
	}
	if n > 0 {
		ends = append(ends, len(batch))
	}
	return ends
}
