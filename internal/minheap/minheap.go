// Package minheap keeps a slice as a binary min-heap under an order the caller gives, for the
// queues of packets that netsim's in-memory network and its proxy deliver by time. Unlike
// container/heap it needs no interface value and no boxing: pushing into a slice with room to
// spare allocates nothing.
package minheap

// Push adds x to the heap q and returns the heap. less must be a strict weak order.
func Push[T any](q []T, x T, less func(a, b T) bool) []T {
	q = append(q, x)
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !less(q[i], q[parent]) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
	return q
}

// Pop removes the least item of the heap q, which must not be empty, and returns it and the
// heap. The slot it leaves at the end of q's backing array is zeroed, so that the heap holds
// no reference to it.
func Pop[T any](q []T, less func(a, b T) bool) (T, []T) {
	top := q[0]
	last := len(q) - 1
	var zero T
	q[0], q[last] = q[last], zero
	q = q[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q) && less(q[l], q[m]) {
			m = l
		}
		if r < len(q) && less(q[r], q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	return top, q
}
