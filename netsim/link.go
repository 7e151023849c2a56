package netsim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Link decides, from a seeded generator, what happens to each packet sent over one direction
// of a link under some Conditions: it is dropped, or delivered once or twice, at which times.
//
// A Link is the pure model that both Network (simulated time) and cmd/netsim (real time) use.
// It reads no clock, starts no goroutine and holds no packet: it is handed the time a packet
// is sent and answers when it arrives. The same seed, conditions and sequence of calls give
// the same answers, on every platform. Send costs a few random draws and no allocation.
//
// A Link is not safe for concurrent use.
type Link struct {
	c     Conditions
	rng   *rand.PCG
	burst int // packets still to drop in the burst under way
	stats LinkStats
}

// LinkStats counts what a Link did to the packets sent over it.
type LinkStats struct {
	Packets    int64 // packets sent
	Bytes      int64 // bytes sent, delivered or not
	Dropped    int64 // packets dropped (by Loss or in a burst)
	Duplicated int64 // packets delivered twice
	Reordered  int64 // packets held back by ReorderDelay (whether or not another overtook them)
}

// NewLink returns a Link under conditions c whose randomness comes from seed.
// It panics if c is not valid (see Conditions.Validate): conditions are a program's settings,
// and a program that takes them from a user validates them first.
func NewLink(c Conditions, seed uint64) *Link {
	l := &Link{rng: rand.NewPCG(seed, 0x6e657473696d2121)} // "netsim!!": any fixed stream
	l.SetConditions(c)
	return l
}

// SetConditions changes the link's conditions for the packets sent from now on; the generator,
// the statistics and a burst under way go on. It panics if c is not valid, as NewLink does.
func (l *Link) SetConditions(c Conditions) {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	l.c = c
	if l.burst > c.BurstLen {
		l.burst = c.BurstLen
	}
}

// Conditions returns the link's conditions.
func (l *Link) Conditions() Conditions { return l.c }

// Stats returns what the link has done so far.
func (l *Link) Stats() LinkStats { return l.stats }

// Send decides the fate of a packet of size bytes sent at now: n is 0 if it is dropped, else
// the number of copies delivered (1 or 2), and at[:n] their delivery times in ascending order.
// now may be simulated or real time, from any origin; delivery times saturate rather than
// overflow.
func (l *Link) Send(now time.Duration, size int) (at [2]time.Duration, n int) {
	// Every packet draws the same six numbers, whatever the conditions (see Conditions).
	lossDraw, burstDraw := l.float(), l.float()
	delay1, delay2 := l.rng.Uint64(), l.rng.Uint64()
	reorderDraw, dupDraw := l.float(), l.float()

	l.stats.Packets++
	l.stats.Bytes += int64(size)
	switch {
	case l.burst > 0:
		l.burst--
		l.stats.Dropped++
		return at, 0
	case lossDraw < l.c.Loss:
		if burstDraw < l.c.BurstLoss {
			l.burst = l.c.BurstLen
		}
		l.stats.Dropped++
		return at, 0
	}
	d := l.delay(delay1)
	if reorderDraw < l.c.Reorder {
		d += l.c.reorderDelay()
		l.stats.Reordered++
	}
	at[0], n = addSat(now, d), 1
	if dupDraw < l.c.Dup {
		at[1], n = addSat(now, l.delay(delay2)), 2
		if at[1] < at[0] {
			at[0], at[1] = at[1], at[0]
		}
		l.stats.Duplicated++
	}
	return at, n
}

// float returns a uniform draw from [0, 1), 53 bits of it.
func (l *Link) float() float64 {
	return float64(l.rng.Uint64()>>11) / (1 << 53)
}

// delay turns the draw r into Latency ± Jitter, uniformly over the whole nanoseconds of the
// range, and never below 0. Latency and Jitter are at most MaxDelay, so nothing overflows.
func (l *Link) delay(r uint64) time.Duration {
	j := uint64(l.c.Jitter)
	d := l.c.Latency + time.Duration(r%(2*j+1)) - l.c.Jitter
	return max(d, 0)
}

// addSat returns now+d (d >= 0), or the largest Duration where that would overflow.
func addSat(now, d time.Duration) time.Duration {
	if now > math.MaxInt64-d {
		return math.MaxInt64
	}
	return now + d
}
