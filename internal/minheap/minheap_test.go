package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct{ at, seq int }

func less(a, b *item) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// However pushes and pops interleave, each pop gives the least item held, ties in the order
// pushed, as a sorted list kept beside it does; a popped slot is cleared.
func TestOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q []*item
	var model []item // sorted by less
	for seq := range 5000 {
		if len(q) == 0 || rng.IntN(3) > 0 {
			x := &item{at: rng.IntN(50), seq: seq}
			q = Push(q, x, less)
			i, _ := slices.BinarySearchFunc(model, *x, func(a, b item) int {
				if less(&a, &b) {
					return -1
				}
				return 1
			})
			model = slices.Insert(model, i, *x)
			continue
		}
		var x *item
		x, q = Pop(q, less)
		if q[:len(q)+1][len(q)] != nil {
			t.Fatal("the popped slot still holds an item")
		}
		if *x != model[0] {
			t.Fatalf("popped %v, want %v", *x, model[0])
		}
		model = model[1:]
	}
}

// A heap with room allocates nothing.
func TestNoAllocations(t *testing.T) {
	q := make([]*item, 0, 8)
	x := &item{}
	if allocs := testing.AllocsPerRun(100, func() {
		q = Push(q, x, less)
		_, q = Pop(q, less)
	}); allocs != 0 {
		t.Errorf("%v allocations a push and pop", allocs)
	}
}
