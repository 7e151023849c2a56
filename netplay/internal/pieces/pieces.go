// Package pieces moves a state snapshot in the protocol's pieces (wire.KindSnapshot): an
// Assembly puts the pieces that arrive back together, in any order, and says how many bytes
// have arrived in a row (what the receiver acknowledges); a Sender sends a window of pieces past
// the receiver's acknowledgement, again from it after a while without progress (the pieces in
// flight lost). The relay and a player's session each use both, one way or the other.
package pieces

import (
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Assembly is a snapshot being received.
type Assembly struct {
	// Data is the snapshot: its bytes from 0 to InRow have all arrived.
	Data  []byte
	InRow int64
	have  []bool // by piece
}

// NewAssembly returns the assembly of a snapshot of size bytes, 1 to wire.MaxSnapshot.
func NewAssembly(size int64) *Assembly {
	return &Assembly{Data: make([]byte, size), have: make([]bool, (size+wire.MaxSnapshotChunk-1)/wire.MaxSnapshotChunk)}
}

// Add takes the piece at offset, as a valid wire.KindSnapshot message of this snapshot carries
// it (offset a multiple of wire.MaxSnapshotChunk within Data, the piece as long as one or the
// rest), and reports whether it was new.
func (a *Assembly) Add(offset int64, piece []byte) bool {
	i := offset / wire.MaxSnapshotChunk
	if a.have[i] {
		return false
	}
	a.have[i] = true
	copy(a.Data[offset:], piece)
	for a.InRow < int64(len(a.Data)) && a.have[a.InRow/wire.MaxSnapshotChunk] {
		a.InRow = min(a.InRow+wire.MaxSnapshotChunk, int64(len(a.Data)))
	}
	return true
}

// Done reports whether every byte has arrived.
func (a *Assembly) Done() bool { return a.InRow == int64(len(a.Data)) }

// Sender is a snapshot being sent.
type Sender struct {
	// Data is the snapshot; Acked how many of its bytes the receiver has in a row, Next
	// where the next piece to send starts.
	Data        []byte
	Acked, Next int64
	// Moved is when Acked last moved, or the sending began; Fruitless counts the times the
	// pieces in flight were sent again since, none of them acknowledged in between.
	Moved     time.Duration
	Fruitless int
	progress  time.Duration // when Acked last moved, or the pieces in flight were sent again
}

// NewSender returns a sender of data, beginning at now.
func NewSender(data []byte, now time.Duration) *Sender {
	return &Sender{Data: data, progress: now, Moved: now}
}

// Ack takes the receiver's acknowledgement of offset bytes in a row, at now, and reports
// whether it has them all.
func (s *Sender) Ack(offset int64, now time.Duration) bool {
	if offset > s.Acked {
		s.Acked, s.progress, s.Moved, s.Fruitless = min(offset, int64(len(s.Data))), now, now, 0
		s.Next = max(s.Next, s.Acked)
	}
	return s.Acked == int64(len(s.Data))
}

// Stalled reports whether the receiver has acknowledged nothing new for at least d as of now,
// while the pieces in flight went again at least n times: a receiver gone, or one that
// takes pieces and never acknowledges them. (A receiver sent to rarely, one of a crowd taking
// turns, acknowledges each turn's pieces, and is not stalled however long its turns take.)
func (s *Sender) Stalled(now, d time.Duration, n int) bool {
	return now-s.Moved >= d && s.Fruitless >= n
}

// Piece returns the next piece to send as of now and its offset, or ok false when the window of
// window pieces past the acknowledgement is out (or all is sent): after resend without
// progress, the pieces past the acknowledgement go again.
func (s *Sender) Piece(now, resend time.Duration, window int) (offset int64, piece []byte, ok bool) {
	if now-s.progress >= resend {
		if s.Next > s.Acked {
			s.Fruitless++
		}
		s.Next, s.progress = s.Acked, now
	}
	size := int64(len(s.Data))
	if s.Next >= size || s.Next >= s.Acked+int64(window)*wire.MaxSnapshotChunk {
		return 0, nil, false
	}
	offset = s.Next
	piece = s.Data[offset:min(size, offset+wire.MaxSnapshotChunk)]
	s.Next += int64(len(piece))
	return offset, piece, true
}
