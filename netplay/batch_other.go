//go:build !linux

package netplay

// batchSys is empty here: a Batch is read and written a packet at a time.
type batchSys struct{}

func (s *batchSys) init(*Batch) {}

// ReadBatch reads into b one packet, waiting for it as ReadFrom does; it returns 1 (b.Len()).
func (c *UDPConn) ReadBatch(b *Batch) (int, error) {
	b.read = 0
	n, ap, err := c.ReadFromUDPAddrPort(b.in[0])
	if err != nil {
		return 0, err
	}
	b.inLen[0], b.from[0], b.read = n, ap, 1
	return 1, nil
}

// WriteBatch sends the packets queued in b, one call each, and empties the queue. It returns
// how many were sent and the first error.
func (c *UDPConn) WriteBatch(b *Batch) (sent int, err error) {
	n := b.queued
	b.queued = 0
	for i := range n {
		if _, werr := c.WriteToUDPAddrPort(b.out[i][:b.outLen[i]], b.to[i]); werr != nil {
			if err == nil {
				err = werr
			}
			continue
		}
		sent++
	}
	return sent, err
}
