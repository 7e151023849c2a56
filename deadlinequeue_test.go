package gameloop

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// queueModel runs ops on a deadlineQueue and checks every step against a plain list of the
// entries it should hold. Each op is a byte: a push (of a deadline later than the last pushed,
// as a tick's next deadline mostly is, or of any deadline), a remove, or a popDue at a time
// that moves forward.
func queueModel(t *testing.T, ops []byte) {
	t.Helper()
	var q deadlineQueue
	var held []*waitEntry
	var now, last time.Duration
	for step, op := range ops {
		arg := time.Duration(op >> 3)
		switch op & 7 {
		case 0, 1, 2: // in order
			last += arg
			e := &waitEntry{deadline: last, info: makeDueInfo(time.Duration(step)*time.Microsecond, step%3 == 0)}
			q.push(e)
			held = append(held, e)
		case 3: // anywhere after now
			e := &waitEntry{deadline: now + arg*3, info: makeDueInfo(time.Duration(step), step%5 == 0)}
			q.push(e)
			held = append(held, e)
		case 4:
			if len(held) == 0 {
				if q.remove(&waitEntry{}) {
					t.Fatalf("step %d: removed an entry never pushed", step)
				}
				continue
			}
			i := int(arg) % len(held)
			if !q.remove(held[i]) {
				t.Fatalf("step %d: remove did not find an entry held", step)
			}
			if q.remove(held[i]) {
				t.Fatalf("step %d: removed an entry twice", step)
			}
			held = slices.Delete(held, i, i+1)
		default:
			now += arg
			batch, infos := q.popDue(now, nil, nil)
			var want []*waitEntry
			held = slices.DeleteFunc(held, func(e *waitEntry) bool {
				if e.deadline <= now {
					want = append(want, e)
					return true
				}
				return false
			})
			if len(batch) != len(want) {
				t.Fatalf("step %d: popDue(%v) took %d entries, want %d", step, now, len(batch), len(want))
			}
			for i, e := range batch {
				if e == nil || e.deadline > now || !slices.Contains(want, e) {
					t.Fatalf("step %d: popDue(%v) took %v, not due or not held", step, now, e)
				}
				// The info the queue kept (the run's) or read (the heap's) is the entry's.
				if len(infos) != len(batch) || infos[i] != infoOf(e) {
					t.Fatalf("step %d: popDue(%v) gave %d infos for %d entries, entry %d's %#x, want %#x",
						step, now, len(infos), len(batch), i, infos[min(i, len(infos)-1)], infoOf(e))
				}
			}
		}
		if q.len() != len(held) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(held))
		}
		checkTarget(t, step, &q, held)
	}
	all := q.takeAll(nil)
	if len(all) != len(held) || q.len() != 0 {
		t.Fatalf("takeAll took %d of %d and left %d", len(all), len(held), q.len())
	}
	for _, e := range held {
		if !slices.Contains(all, e) {
			t.Fatal("takeAll missed an entry")
		}
	}
}

// checkTarget checks q's target at every resolution of a few: never when empty, else a held
// deadline within the resolution of the earliest, and the latest such.
func checkTarget(t *testing.T, step int, q *deadlineQueue, held []*waitEntry) {
	t.Helper()
	for _, res := range []time.Duration{0, 5, 40} {
		got := q.target(res, true)
		if len(held) == 0 {
			if got != never {
				t.Fatalf("step %d: target of an empty queue %v", step, got)
			}
			continue
		}
		first := slices.MinFunc(held, func(a, b *waitEntry) int { return int(a.deadline - b.deadline) }).deadline
		want := first
		for _, e := range held {
			if e.deadline <= first+res {
				want = max(want, e.deadline)
			}
		}
		if got != want {
			t.Fatalf("step %d: target(%v) = %v, want %v", step, res, got, want)
		}
	}
}

// TestDeadlineQueue runs long random sequences of operations against the model.
func TestDeadlineQueue(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		ops := make([]byte, 3000)
		for i := range ops {
			ops[i] = byte(rng.UintN(256))
		}
		queueModel(t, ops)
	}
}

// TestDeadlineQueueInOrder checks that deadlines that come in order stay out of the heap, and
// that one out of order goes there and still comes out in time.
func TestDeadlineQueueInOrder(t *testing.T) {
	var q deadlineQueue
	for i := range 1000 {
		q.push(&waitEntry{deadline: time.Duration(i / 3)}) // equal deadlines are in order too
	}
	if q.heap.len() != 0 {
		t.Fatalf("%d in-order deadlines went to the heap", q.heap.len())
	}
	near := &waitEntry{deadline: 330} // 2 slots from the end
	q.push(near)
	if q.heap.len() != 0 {
		t.Fatal("a deadline just out of order went to the heap")
	}
	early := &waitEntry{deadline: 10}
	q.push(early)
	if q.heap.len() != 1 {
		t.Fatal("a deadline far out of order did not go to the heap")
	}
	batch, _ := q.popDue(10, nil, nil)
	if len(batch) != 34 || !slices.Contains(batch, early) {
		t.Fatalf("popDue(10) took %d entries (early one: %v), want 34", len(batch), slices.Contains(batch, early))
	}
}

// FuzzDeadlineQueue checks the queue against the model on any sequence of operations.
func FuzzDeadlineQueue(f *testing.F) {
	f.Add([]byte{0, 8, 16, 5, 4, 77, 3, 255, 12, 5})
	f.Add([]byte{1, 1, 1, 1, 12, 12, 28, 253, 3, 11, 19, 4, 4, 4, 5})
	f.Fuzz(queueModel)
}
