package ballgame

import "testing"

// A state saved, stepped on and loaded again steps to the same checksums: what a rollback
// relies on. The balls stay in the box.
func TestRollback(t *testing.T) {
	g := New(100, 2)
	g.Save(0)
	var sums []uint64
	for k := uint64(1); k <= 50; k++ {
		g.Step(k, int64(k%3)-1)
		sums = append(sums, g.Save(1))
	}
	g.Load(0)
	for k := uint64(1); k <= 50; k++ {
		g.Step(k, int64(k%3)-1)
		if sum := g.Save(1); sum != sums[k-1] {
			t.Fatalf("tick %d: checksum %#x after a rollback, %#x before", k, sum, sums[k-1])
		}
	}
	for i, b := range g.State.Balls {
		if b.X < 0 || b.X >= BoxWidth || b.Y < 0 || b.Y >= BoxHeight {
			t.Fatalf("ball %d out of the box: %+v", i, b)
		}
	}
}
