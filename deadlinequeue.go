package gameloop

import "time"

// deadlineQueue is the SharedClock's timer structure: a run of entries in order of deadline,
// beside a deadlineHeap for the rest.
//
// Most deadlines come in order. A match or a loop waits for its next tick, one period after the
// tick it has just run, and the ticks run in order of deadline, so that with every match at one
// rate the new deadlines come later than all those waiting: they go on the end of the run, and
// the due ones come off its front, in order, with no sift through a heap (with 10,000 matches
// the heap's sifts were a sixth of a pool's CPU, as each level of the heap missed the cache) and
// with the memory read in sequence. A deadline a little earlier than the last of the run goes
// in its place near the end (see insertSpan); one earlier still (another rate, a resumed or new
// match) goes in the heap, so the queue is never much worse than the heap alone.
//
// Taking out an entry that is not due (a wait ended early, a match stopped or paused) finds it in
// the run by its deadline, or searches the heap, and leaves a hole in the run (an entry of nil)
// that the front skips.
type deadlineQueue struct {
	run   []runSlot // a ring: the run is run[head], run[head+1], ... (mod len), n slots
	head  int
	n     int // slots in the run, holes included
	holes int
	heap  deadlineHeap
	// searched counts the slots of the run remove has looked at, for tests.
	searched int
}

// len returns the number of entries in the queue.
func (q *deadlineQueue) len() int { return q.n - q.holes + q.heap.len() }

// slot returns the i-th slot of the run, from its front.
func (q *deadlineQueue) slot(i int) *runSlot { return &q.run[(q.head+i)&(len(q.run)-1)] }

// runSlot is a slot of the run: an entry, its deadline, and what the dispatch of a wake-up needs
// of it (its dueInfo as it was when it was queued), so that taking the due entries out reads
// the run in sequence and none of the entries, whose memory is out of the cache.
type runSlot struct {
	deadline time.Duration
	entry    *waitEntry
	info     dueInfo
}

func (q *deadlineQueue) push(e *waitEntry) {
	// Where in the run e goes: after the last slot not later than it, if that is among the
	// last insertSpan.
	p := q.n
	for p > 0 && q.slot(p-1).deadline > e.deadline {
		if p == q.n-insertSpan {
			q.heap.push(e)
			return
		}
		p--
	}
	if q.n == len(q.run) {
		q.grow()
	}
	for i := q.n; i > p; i-- {
		*q.slot(i) = *q.slot(i - 1)
	}
	*q.slot(p) = runSlot{e.deadline, e, infoOf(e)}
	q.n++
}

// insertSpan is how far from the end of the run a deadline out of order may go in it, moving
// the slots after it: the matches a pool's workers run, and loops that finish their passes on
// two processors, put their next deadlines back a little out of order. Further out, it goes in
// the heap.
const insertSpan = 32

// grow doubles the ring (its length stays a power of two), the run at its start.
func (q *deadlineQueue) grow() {
	run := make([]runSlot, max(64, 2*len(q.run)))
	for i := range q.n {
		run[i] = *q.slot(i)
	}
	q.run, q.head = run, 0
}

// remove takes e out of the queue; it reports false if e was not in it. In the run, it looks
// for e by its deadline (the run is in order), so that ending thousands of matches at once
// does not search the run for each.
func (q *deadlineQueue) remove(e *waitEntry) bool {
	// The first slot not earlier than e, then the slots with e's deadline.
	lo, hi := 0, q.n
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); q.slot(mid).deadline < e.deadline {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < q.n && q.slot(i).deadline == e.deadline; i++ {
		q.searched++
		if s := q.slot(i); s.entry == e {
			s.entry = nil
			q.holes++
			q.trim()
			return true
		}
	}
	return q.heap.remove(e)
}

// trim drops the holes at the front and the back of the run. A hole's deadline still orders
// the run, but the front must be an entry for popDue and target, and holes at the back would
// only take room.
func (q *deadlineQueue) trim() {
	for q.n > 0 && q.slot(0).entry == nil {
		*q.slot(0) = runSlot{}
		q.head = (q.head + 1) & (len(q.run) - 1)
		q.n--
		q.holes--
	}
	for q.n > 0 && q.slot(q.n-1).entry == nil {
		*q.slot(q.n - 1) = runSlot{}
		q.n--
		q.holes--
	}
}

// popDue appends to batch, and takes out of the queue, every entry due at now: those of the
// run in order of deadline, then those of the heap; and appends their dueInfos to infos.
func (q *deadlineQueue) popDue(now time.Duration, batch []*waitEntry, infos []dueInfo) ([]*waitEntry, []dueInfo) {
	for q.n > 0 {
		s := q.slot(0)
		if s.deadline > now {
			break
		}
		batch = append(batch, s.entry)
		infos = append(infos, s.info)
		*s = runSlot{}
		q.head = (q.head + 1) & (len(q.run) - 1)
		q.n--
		q.trim() // the next hole, if any, is at the front now
	}
	from := len(batch)
	batch = q.heap.popDue(now, batch)
	// The heap holds what came out of order, a few entries where the matches run at one rate:
	// their infos are read from the entries.
	for _, e := range batch[from:] {
		infos = append(infos, infoOf(e))
	}
	return batch, infos
}

// target returns when the waiter should wake: never with nothing in the queue, else the latest
// deadline within res-late of the earliest, so that one wake-up serves them all and none is
// woken for early; late is how late the waker may wake by itself (up to a millisecond for a Go
// timer, none for a precise sleep).
func (q *deadlineQueue) target(res time.Duration, precise bool) time.Duration {
	if !precise {
		res = max(res-timerResolution, 0)
	}
	first := never
	if q.n > 0 {
		first = q.slot(0).deadline
	}
	if q.heap.len() > 0 {
		first = min(first, q.heap.s[heapPad].deadline)
	}
	if first == never {
		return never
	}
	limit := addSat(first, res)
	best := first
	for i := 0; i < q.n; i++ {
		s := q.slot(i)
		if s.deadline > limit {
			break
		}
		if s.entry != nil {
			best = s.deadline
		}
	}
	if q.heap.len() > 0 {
		best = q.heap.latestUpTo(heapPad, limit, best)
	}
	return best
}

// takeAll appends every entry of the queue to dst, and empties the queue.
func (q *deadlineQueue) takeAll(dst []*waitEntry) []*waitEntry {
	for i := range q.n {
		if e := q.slot(i).entry; e != nil {
			dst = append(dst, e)
		}
	}
	if q.heap.len() > 0 {
		for _, s := range q.heap.s[heapPad:] {
			dst = append(dst, s.entry)
		}
	}
	*q = deadlineQueue{}
	return dst
}

// removeFunc takes out of the queue every entry for which drop reports true, and appends them
// to dst, in one pass over the run and one over the heap, which it rebuilds: closing a pool
// takes out thousands of matches at once, and taking each out by itself searches the heap for
// it (remove), a cost that grows with the queue.
func (q *deadlineQueue) removeFunc(drop func(*waitEntry) bool, dst []*waitEntry) []*waitEntry {
	kept := 0
	for i := range q.n {
		s := *q.slot(i)
		if s.entry != nil && drop(s.entry) {
			dst = append(dst, s.entry)
			continue
		}
		if s.entry == nil {
			continue // a hole: the run is rebuilt without them
		}
		*q.slot(kept) = s
		kept++
	}
	for i := kept; i < q.n; i++ {
		*q.slot(i) = runSlot{}
	}
	q.n, q.holes = kept, 0
	return q.heap.removeFunc(drop, dst)
}

// deadlineHeap is a 4-ary min-heap of entries by deadline (the part of a deadlineQueue out of
// order): half as deep as a binary one. The deadlines are kept in the array itself, beside the
// entries, and the entries do not know whether or where they are in it: a sift, or taking out
// what is due, moves slots without following a pointer, which with thousands of matches would
// miss the cache at every step.
// Taking out an entry that is not due (a wait ended early, a match stopped or paused) searches
// the array for it: that is rare.
//
// The array begins with heapPad unused slots, so that the four children of a slot, 64 bytes,
// lie in one cache line where the array is aligned to 64 bytes: otherwise every group of
// children straddles two lines, and a sift through a heap out of the cache misses twice per
// level. Go's allocator aligns arrays over 32 KB (heaps of over 2,000 entries) to a page;
// smaller arrays of pointers begin 8 bytes into their slot, after a header, but they also fit
// in the processor's cache. Indexes below are into
// the array: the root is at heapPad, the children of p at 4p-8 to 4p-5, and the parent of c at
// c/4+2.
type deadlineHeap struct {
	s []heapSlot
	// searched counts the slots remove has looked at, for tests: the cost that ending many
	// entries one by one would pay.
	searched int
}

type heapSlot struct {
	deadline time.Duration
	entry    *waitEntry
}

// heapArity is the number of children of a slot of the heap.
const heapArity = 4

// heapPad is the number of unused slots before the root.
const heapPad = heapArity - 1

func heapChild(p int) int  { return heapArity*p - heapPad*heapPad + 1 }
func heapParent(c int) int { return (c-1-heapPad)/heapArity + heapPad }

// len returns the number of entries in the heap.
func (h *deadlineHeap) len() int { return max(len(h.s)-heapPad, 0) }

func (h *deadlineHeap) push(e *waitEntry) {
	if len(h.s) < heapPad {
		h.s = append(h.s[:0], make([]heapSlot, heapPad)...)
	}
	h.s = append(h.s, heapSlot{e.deadline, e})
	h.up(len(h.s) - 1)
}

// remove takes e out of the heap; it reports false if e was not in it.
func (h *deadlineHeap) remove(e *waitEntry) bool {
	for p := heapPad; p < len(h.s); p++ {
		h.searched++
		if h.s[p].entry == e {
			h.removeAt(p)
			return true
		}
	}
	return false
}

func (h *deadlineHeap) removeAt(p int) {
	last := len(h.s) - 1
	if p != last {
		h.swap(p, last)
	}
	h.s[last] = heapSlot{}
	h.s = h.s[:last]
	if p != last {
		h.down(p)
		h.up(p)
	}
}

// popDue appends to batch, and takes out of the heap, every entry due at now, the earliest
// first. When many are due (matches on one grid), taking them out one by one costs a sift each:
// past a number, it takes the rest in one pass over the array and rebuilds the heap, which
// costs about one look at each slot.
func (h *deadlineHeap) popDue(now time.Duration, batch []*waitEntry) []*waitEntry {
	bulk := max(64, h.len()/16)
	for n := 0; h.len() > 0 && h.s[heapPad].deadline <= now; n++ {
		if n == bulk {
			return h.takeDue(now, batch)
		}
		batch = append(batch, h.s[heapPad].entry)
		h.removeAt(heapPad)
	}
	return batch
}

// takeDue appends to batch every entry due at now, in the order of the array, and rebuilds the
// heap from the others.
func (h *deadlineHeap) takeDue(now time.Duration, batch []*waitEntry) []*waitEntry {
	kept := h.s[:heapPad]
	for _, slot := range h.s[heapPad:] {
		if slot.deadline <= now {
			batch = append(batch, slot.entry)
		} else {
			kept = append(kept, slot)
		}
	}
	clear(h.s[len(kept):])
	h.s = kept
	if last := len(kept) - 1; last > heapPad {
		for p := heapParent(last); p >= heapPad; p-- {
			h.down(p)
		}
	}
	return batch
}

// removeFunc takes out of the heap every entry for which drop reports true, appends them to
// dst, and rebuilds the heap from the others.
func (h *deadlineHeap) removeFunc(drop func(*waitEntry) bool, dst []*waitEntry) []*waitEntry {
	if h.len() == 0 {
		return dst
	}
	kept := h.s[:heapPad]
	for _, slot := range h.s[heapPad:] {
		if drop(slot.entry) {
			dst = append(dst, slot.entry)
		} else {
			kept = append(kept, slot)
		}
	}
	clear(h.s[len(kept):])
	h.s = kept
	if last := len(kept) - 1; last > heapPad {
		for p := heapParent(last); p >= heapPad; p-- {
			h.down(p)
		}
	}
	return dst
}

// latestUpTo returns the latest deadline at most limit in the subtree at p, or best if none is
// later. A subtree whose root is past limit holds nothing at most limit, so the walk visits
// only the entries it gathers (and their children): no more than the wake-up will fire.
func (h *deadlineHeap) latestUpTo(p int, limit, best time.Duration) time.Duration {
	if p >= len(h.s) || h.s[p].deadline > limit {
		return best
	}
	best = max(best, h.s[p].deadline)
	for c := heapChild(p); c < heapChild(p)+heapArity; c++ {
		best = h.latestUpTo(c, limit, best)
	}
	return best
}

func (h *deadlineHeap) swap(i, j int) {
	h.s[i], h.s[j] = h.s[j], h.s[i]
}

func (h *deadlineHeap) up(p int) {
	for p > heapPad {
		parent := heapParent(p)
		if h.s[parent].deadline <= h.s[p].deadline {
			return
		}
		h.swap(p, parent)
		p = parent
	}
}

func (h *deadlineHeap) down(p int) {
	n := len(h.s)
	for {
		least := p
		first := heapChild(p)
		for c := first; c < first+heapArity && c < n; c++ {
			if h.s[c].deadline < h.s[least].deadline {
				least = c
			}
		}
		if least == p {
			return
		}
		h.swap(p, least)
		p = least
	}
}
