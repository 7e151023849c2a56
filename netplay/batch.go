package netplay

import (
	"fmt"
	"net/netip"
)

// MaxBatch is the most packets a Batch holds each way.
const MaxBatch = 1024

// A Batch is packets a UDPConn reads (ReadBatch) or writes (WriteBatch) together: with one
// system call on Linux (recvmmsg, sendmmsg), one a packet elsewhere. It is how a server that
// serves many peers from one socket cuts its system calls: a relay reads what has arrived
// from every player at once, and sends a tick's packets to every player at once. A Batch
// holds up to its size of packets of up to 1,500 bytes each way, allocated by NewBatch; using
// it allocates nothing. It is used by one goroutine at a time.
type Batch struct {
	n int
	// The packets read: their bytes, lengths and senders; read of them are valid.
	in    [][]byte
	inLen []int
	from  []netip.AddrPort
	read  int
	// The packets queued to write, and where to.
	out    [][]byte
	outLen []int
	to     []netip.AddrPort
	queued int

	sys batchSys // the system's own headers (recvmmsg's and sendmmsg's), where it has them
}

// NewBatch returns a batch of n packets each way, 1 to MaxBatch.
func NewBatch(n int) (*Batch, error) {
	if n < 1 || n > MaxBatch {
		return nil, fmt.Errorf("netplay: NewBatch(%d): a batch holds 1 to %d packets", n, MaxBatch)
	}
	b := &Batch{n: n, in: make([][]byte, n), inLen: make([]int, n), from: make([]netip.AddrPort, n),
		out: make([][]byte, n), outLen: make([]int, n), to: make([]netip.AddrPort, n)}
	for i := range n {
		b.in[i] = make([]byte, readBufSize)
		b.out[i] = make([]byte, readBufSize)
	}
	b.sys.init(b)
	return b, nil
}

// Len returns how many packets the last ReadBatch read.
func (b *Batch) Len() int { return b.read }

// Packet returns the i-th packet the last ReadBatch read (0 to Len()-1) and its sender (IPv4
// unmapped). The bytes are the batch's, valid until the next ReadBatch; a packet longer than
// 1,500 bytes comes cut.
func (b *Batch) Packet(i int) ([]byte, netip.AddrPort) {
	return b.in[i][:b.inLen[i]], b.from[i]
}

// Add queues a copy of p for to, for the next WriteBatch, and reports whether it could: false
// when the batch is full (write it first) or p is longer than 1,500 bytes.
func (b *Batch) Add(p []byte, to netip.AddrPort) bool {
	if b.queued == b.n || len(p) > readBufSize {
		return false
	}
	b.outLen[b.queued] = copy(b.out[b.queued], p)
	b.to[b.queued] = to
	b.queued++
	return true
}

// Queued returns how many packets wait for WriteBatch.
func (b *Batch) Queued() int { return b.queued }
