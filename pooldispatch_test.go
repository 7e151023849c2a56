package gameloop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// simulated is one burst run on a simulated clock: when each entry began, on which processor
// (0 is the waiter), and when the last ended.
type simulated struct {
	start []time.Duration
	proc  []int
	end   time.Duration
}

// simulateBurst runs a plan on a simulated clock, as the pool runs it: at 0 the waiter hands
// the chunks over and runs its own share, passing the entries it may not run to the workers'
// slow queue as it comes to them; procs-1 workers come wake later; each processor free takes,
// in order, a slow entry queued by then (workers only; queueing one wakes a worker, where the
// plan woke none), else the next chunk, whose entries the
// waiter may not run it queues for the workers. An entry costs its cost; nothing else does.
func simulateBurst(batch []dueInfo, plan *dispatchPlan, wake time.Duration) simulated {
	n := len(batch)
	s := simulated{start: make([]time.Duration, n), proc: make([]int, n)}
	for i := range s.start {
		s.start[i] = -1
	}
	type queued struct {
		i  int
		at time.Duration
	}
	var slowq []queued
	procs := plan.procs
	if procs == 1 && slices.ContainsFunc(batch, func(d dueInfo) bool { return d.offWaiter() }) {
		procs = 2 // queueing a slow match wakes a worker
	}
	free := make([]time.Duration, procs)
	for w := 1; w < procs; w++ {
		free[w] = wake
	}
	run := func(p, i int) {
		s.start[i], s.proc[i] = free[p], p
		free[p] += batch[i].cost()
		s.end = max(s.end, free[p])
	}
	for i := range plan.inline {
		if batch[i].offWaiter() {
			slowq = append(slowq, queued{i, free[0]})
			continue
		}
		run(0, i)
	}
	from, chunk := plan.inline, 0
	for {
		// The processor free first (the waiter on a tie) takes the next thing it may.
		p := 0
		for w := range free {
			if free[w] < free[p] {
				p = w
			}
		}
		if p > 0 && len(slowq) > 0 && (slowq[0].at <= free[p] || chunk == len(plan.ends)) {
			free[p] = max(free[p], slowq[0].at)
			run(p, slowq[0].i)
			slowq = slowq[1:]
			continue
		}
		if chunk == len(plan.ends) {
			if len(slowq) == 0 {
				return s
			}
			// Only the slow queue is left, which the waiter may not take.
			free[0] = max(free[0], slowq[len(slowq)-1].at) + time.Hour
			continue
		}
		for i := from; i < plan.ends[chunk]; i++ {
			if batch[i].offWaiter() && (p == 0 || i > from) {
				slowq = append(slowq, queued{i, free[p]}) // as runTaken queues it
				continue
			}
			run(p, i)
		}
		from = plan.ends[chunk]
		chunk++
	}
}

// burstOf returns the infos of entries of the given costs, the entries at offWaiter marked so.
func burstOf(costs []time.Duration, offWaiter ...int) []dueInfo {
	batch := make([]*waitEntry, len(costs))
	for i, c := range costs {
		batch[i] = &waitEntry{info: makeDueInfo(c, slices.Contains(offWaiter, i))}
	}
	return infosOf(batch)
}

// infosOf returns the infos of batch's entries, as the clock's queue hands them to runDue.
func infosOf(batch []*waitEntry) []dueInfo {
	infos := make([]dueInfo, len(batch))
	for i, e := range batch {
		infos[i] = infoOf(e)
	}
	return infos
}

// The plan spreads a burst over the waiter and workers in proportion to cost: on K processors,
// simulated, a burst of W ends within W/K (or the slow matches' cost over the K-1 workers, who
// alone may run them) + the longest update + what a worker takes to wake + a small constant (the least share a processor is given, and a chunk's cost), for 2 to 64
// processors and updates of 0 to 1 ms; no entry begins later than the cost of the quick
// entries before it (none waits behind a slow one); every entry runs once, and none the waiter
// may not run runs on it. Cut by count and split equally, as the pool did, 1,000 matches of
// 80 µs on 2 processors ended 1.3 ms past W/K where a worker came 200 µs late.
func TestPlanDispatchSpreadsByCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 35))
	costs := map[string]func(i int) time.Duration{
		"none":       func(int) time.Duration { return 0 },
		"cold 0.3µs": func(int) time.Duration { return 300 * time.Nanosecond },
		"80µs":       func(int) time.Duration { return 80 * time.Microsecond },
		"200µs":      func(int) time.Duration { return 200 * time.Microsecond },
		"0 to 1ms":   func(int) time.Duration { return time.Duration(rng.Int64N(int64(time.Millisecond))) },
		"1 in 50 of 1ms": func(i int) time.Duration {
			if i%50 == 7 {
				return time.Millisecond
			}
			return 20 * time.Microsecond
		},
	}
	var plan dispatchPlan
	for _, workers := range []int{1, 3, 15, 63} {
		for name, cost := range costs {
			for _, n := range []int{1, 2, 10, 100, 1000, 5000} {
				for _, slow := range []bool{false, true} {
					for _, wake := range []time.Duration{20 * time.Microsecond, 200 * time.Microsecond} {
						cs := make([]time.Duration, n)
						for i := range cs {
							cs[i] = cost(i)
						}
						var off []int
						if slow {
							// Slow matches the waiter may not run, early in the burst and later.
							for i := 0; i < n; i += 97 {
								cs[i] = 30 * time.Millisecond
								off = append(off, i)
							}
						}
						batch := burstOf(cs, off...)
						planDispatch(batch, workers, &plan)
						s := simulateBurst(batch, &plan, wake)
						checkBurst(t, fmt.Sprintf("%d workers, %d entries of %s, slow %v, wake %v", workers, n, name, slow, wake), batch, &plan, s, workers+1, wake)
					}
				}
			}
		}
	}
}

// checkBurst checks a simulated burst against the bounds TestPlanDispatchSpreadsByCost states.
func checkBurst(t *testing.T, what string, batch []dueInfo, plan *dispatchPlan, s simulated, k int, wake time.Duration) {
	t.Helper()
	var total, longest, quick, slow time.Duration
	for i, e := range batch {
		total += e.cost()
		if e.offWaiter() {
			slow += e.cost()
		}
		longest = max(longest, e.cost())
		if s.start[i] < 0 {
			t.Fatalf("%s: entry %d never ran", what, i)
		}
		if e.offWaiter() && s.proc[i] == 0 {
			t.Fatalf("%s: entry %d, which the waiter may not run, ran on it", what, i)
		}
		if !e.offWaiter() {
			if s.start[i] > quick {
				t.Fatalf("%s: entry %d began at %v, after the %v the quick entries before it cost: it waited behind a slow one", what, i, s.start[i], quick)
			}
			quick += e.cost()
		}
	}
	if total != plan.cost {
		t.Errorf("%s: plan.cost %v, want %v", what, plan.cost, total)
	}
	if plan.procs < 1 || plan.procs > k {
		t.Errorf("%s: planned for %d processors of %d", what, plan.procs, k)
	}
	// The slow entries can only go to the K-1 workers: their W/(K-1) may be the bound.
	slack := wake + 2*minShare + 2*chunkCost
	if bound := max(total/time.Duration(k), slow/time.Duration(k-1)) + longest + slack; s.end > bound {
		t.Errorf("%s: the burst of %v ended at %v, past max(W/K, slow W/(K-1)) + the longest + %v = %v (plan: %d processors, %d inline, %d chunks)",
			what, total, s.end, slack, bound, plan.procs, plan.inline, len(plan.ends))
	}
	if len(plan.ends) > 0 && (plan.ends[len(plan.ends)-1] != len(batch) || !slices.IsSorted(plan.ends) || plan.ends[0] <= plan.inline) {
		t.Errorf("%s: chunk ends %v after %d inline, for %d entries", what, plan.ends, plan.inline, len(batch))
	}
}

// Plans, whole: a burst under shareAbove stays on the waiter; above it, the processors used
// are as many as get minShare each; chunks are cut by cost, with a costly or slow entry alone.
func TestPlanDispatch(t *testing.T) {
	us := time.Microsecond
	rep := func(n int, d time.Duration) []time.Duration { return slices.Repeat([]time.Duration{d}, n) }
	for _, tt := range []struct {
		name      string
		costs     []time.Duration
		offWaiter []int
		workers   int
		want      dispatchPlan
	}{
		{"cheap burst: the waiter alone", rep(100, 2*us), nil, 3, dispatchPlan{procs: 1, inline: 100, cost: 200 * us}},
		{"no workers", rep(10, 100*us), nil, 0, dispatchPlan{procs: 1, inline: 10, cost: 1000 * us}},
		{"unmeasured: free", rep(1000, 0), nil, 3, dispatchPlan{procs: 1, inline: 1000}},
		{"300 µs: two processors", rep(30, 10*us), nil, 3, dispatchPlan{procs: 3, inline: 10, ends: []int{15, 20, 25, 30}, cost: 300 * us}},
		{"80 µs each: a chunk each", rep(6, 80*us), nil, 1, dispatchPlan{procs: 2, inline: 3, ends: []int{4, 5, 6}, cost: 480 * us}},
		{"cheap matches: about chunkCost a chunk", rep(100, 3*us), nil, 1, dispatchPlan{procs: 2, inline: 50, ends: []int{67, 84, 100}, cost: 300 * us}},
		{"matches of no cost: tailChunk a chunk", rep(300, 0), nil, 1, dispatchPlan{procs: 1, inline: 300}},
		{"matches under a microsecond: about chunkCost a chunk", rep(600, 400*time.Nanosecond), nil, 1,
			dispatchPlan{procs: 2, inline: 300, ends: []int{425, 550, 600}, cost: 240 * us}},
		{"matches of 100 ns: tailChunk a chunk", rep(3000, 100*time.Nanosecond), nil, 1,
			dispatchPlan{procs: 2, inline: 1500, ends: append(slices.Collect(func(yield func(int) bool) {
				for end := 1500 + tailChunk; end < 3000 && yield(end); end += tailChunk {
				}
			}), 3000), cost: 300 * us}},
		{"a slow one first: queued by the waiter, not in its share",
			[]time.Duration{2000 * us, 50 * us, 50 * us, 50 * us, 50 * us}, []int{0}, 1,
			dispatchPlan{procs: 2, inline: 5, cost: 2200 * us}},
		{"a slow one in the workers' part: alone, the two before it one chunk (2,270 µs left to cut over 4 processors)",
			append(append(rep(10, 100*us), 2000*us, 10*us), rep(3, 20*us)...), []int{10}, 3,
			dispatchPlan{procs: 4, inline: 8, ends: []int{10, 11, 14, 15}, cost: 3070 * us}},
		{"a costly one: alone", []time.Duration{100 * us, 100 * us, 100 * us, 20 * us, 10 * us, 300 * us, 20 * us}, nil, 1,
			dispatchPlan{procs: 2, inline: 5, ends: []int{6, 7}, cost: 650 * us}},
	} {
		var got dispatchPlan
		planDispatch(burstOf(tt.costs, tt.offWaiter...), tt.workers, &got)
		if got.procs != tt.want.procs || got.inline != tt.want.inline || got.cost != tt.want.cost || !slices.Equal(got.ends, tt.want.ends) {
			t.Errorf("%s: plan %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Planning reuses the plan's array: no allocation per wake-up.
func TestPlanDispatchAllocates(t *testing.T) {
	batch := burstOf(slices.Repeat([]time.Duration{80 * time.Microsecond}, 1000))
	var plan dispatchPlan
	planDispatch(batch, 15, &plan)
	if n := testing.AllocsPerRun(100, func() { planDispatch(batch, 15, &plan) }); n != 0 {
		t.Errorf("%v allocations a plan, want 0", n)
	}
}

// TestPlanDispatchGuided: the workers' part of a long burst is cut in chunks that begin long and
// shrink toward its end, so that a burst of a thousand 80 µs updates is not a thousand trips to
// the locks, and the last chunks are short, so that the processors end together.
func TestPlanDispatchGuided(t *testing.T) {
	const us = time.Microsecond
	for _, workers := range []int{1, 3, 15} {
		batch := burstOf(slices.Repeat([]time.Duration{80 * us}, 1000))
		var plan dispatchPlan
		planDispatch(batch, workers, &plan)
		var sizes []time.Duration
		from := plan.inline
		for _, end := range plan.ends {
			sizes = append(sizes, time.Duration(end-from)*80*us)
			from = end
		}
		if from != len(batch) {
			t.Fatalf("%d workers: the chunks end at %d of %d", workers, from, len(batch))
		}
		// The waiter runs its share from the front (half of it where that is over
		// halfFrontAbove), and takes chunks with the workers after.
		parts := plan.procs
		if plan.cost/time.Duration(plan.procs) > halfFrontAbove {
			parts *= 2
		}
		want := (1000 + parts - 1) / parts // the first entries that cost their part, or more
		if plan.inline != want {
			t.Errorf("%d workers: the waiter runs %d from the front, want %d", workers, plan.inline, want)
		}
		for i := 1; i < len(sizes); i++ {
			if sizes[i] > sizes[i-1] {
				t.Fatalf("%d workers: chunk %d is longer than the one before: %v", workers, i, sizes)
			}
		}
		if last := sizes[len(sizes)-1]; last > chunkCost+80*us {
			t.Errorf("%d workers: the last chunk is %v, want at most %v", workers, last, chunkCost+80*us)
		}
		if max := 20 * plan.procs; len(sizes) > max {
			t.Errorf("%d workers: %d chunks, want at most %d: %v", workers, len(sizes), max, sizes)
		}
		t.Logf("%d workers: %d processors, %d inline, %d chunks: %v", workers, plan.procs, plan.inline, len(sizes), sizes)
	}
}
