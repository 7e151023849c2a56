package pieces

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// A snapshot sent through a link that loses, repeats and reorders pieces and acknowledgements
// arrives whole and the same, whatever its size; the sender never has more than its window
// past the acknowledgement in flight, and stops once everything is acknowledged.
func TestTransfer(t *testing.T) {
	for _, size := range []int{1, wire.MaxSnapshotChunk - 1, wire.MaxSnapshotChunk, wire.MaxSnapshotChunk + 1, 100_000} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, uint64(size)))
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(r.Uint32())
			}
			s, a := NewSender(data, 0), NewAssembly(int64(size))
			type piece struct {
				offset int64
				b      []byte
			}
			var flight []piece
			var acks []int64
			const window = 8
			now := time.Duration(0)
			for step := 0; !s.Ack(0, now) || len(flight) > 0; step++ {
				if step > 100_000 {
					t.Fatalf("size %d seed %d: not done: acked %d of %d, in a row %d", size, seed, s.Acked, size, a.InRow)
				}
				now += time.Millisecond
				for {
					off, b, ok := s.Piece(now, 20*time.Millisecond, window)
					if !ok {
						break
					}
					if off+int64(len(b)) > s.Acked+window*wire.MaxSnapshotChunk {
						t.Fatalf("a piece at %d past the window from %d", off, s.Acked)
					}
					flight = append(flight, piece{off, b})
				}
				r.Shuffle(len(flight), func(i, j int) { flight[i], flight[j] = flight[j], flight[i] })
				for len(flight) > 0 && r.IntN(4) != 0 {
					p := flight[0]
					flight = flight[1:]
					if r.IntN(5) == 0 {
						continue // lost
					}
					if r.IntN(10) == 0 {
						flight = append(flight, p) // repeated
					}
					a.Add(p.offset, p.b)
					acks = append(acks, a.InRow)
				}
				for len(acks) > 0 && r.IntN(3) != 0 {
					i := r.IntN(len(acks))
					if r.IntN(5) != 0 {
						s.Ack(acks[i], now)
					}
					acks = append(acks[:i], acks[i+1:]...)
				}
				if s.Acked == int64(size) {
					flight = flight[:0]
				}
			}
			if !a.Done() || !bytes.Equal(a.Data, data) {
				t.Fatalf("size %d seed %d: arrived %v, the same %v", size, seed, a.Done(), bytes.Equal(a.Data, data))
			}
			if _, _, ok := s.Piece(now+time.Second, 20*time.Millisecond, window); ok {
				t.Fatal("a piece to send once all is acknowledged")
			}
		}
	}
}
