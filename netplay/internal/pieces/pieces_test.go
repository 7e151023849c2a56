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

// A receiver that takes pieces and acknowledges none is stalled once d has passed and what was
// in flight went again n times; one sent to only now and then (a turn among a crowd), which
// acknowledges each turn's pieces, never is, however far apart its turns.
func TestStalled(t *testing.T) {
	const d, n, resend, window = 10 * time.Second, 5, 100 * time.Millisecond, 4
	data := make([]byte, 100*wire.MaxSnapshotChunk)
	silent := NewSender(data, 0)
	var at time.Duration
	for ; !silent.Stalled(at, d, n); at += 10 * time.Millisecond {
		for {
			if _, _, ok := silent.Piece(at, resend, window); !ok {
				break
			}
		}
		if at > time.Minute {
			t.Fatal("a receiver that acknowledges nothing is never stalled")
		}
	}
	if at < d {
		t.Errorf("stalled after %v, before %v", at, d)
	}
	crowd := NewSender(data, 0)
	for turn := time.Duration(1); turn <= 20; turn++ {
		at := turn * 8 * time.Second // its turn comes every 8 s
		if crowd.Stalled(at, d, n) {
			t.Fatalf("stalled at its turn %d, having acknowledged every turn's pieces", turn)
		}
		var last int64
		for {
			off, p, ok := crowd.Piece(at, resend, window)
			if !ok {
				break
			}
			last = off + int64(len(p))
		}
		if crowd.Ack(last, at+50*time.Millisecond) {
			break
		}
	}
}
