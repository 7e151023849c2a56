package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netsim"
)

// simConn is the conn to the other player with what this side sends put through -netsim's
// conditions in real time (netsim.Wrap): delayed, dropped, duplicated and reordered as the
// conditions' model decides. It keeps the rtc conn's TryReadFrom, which netplay polls.
type simConn struct {
	*netsim.WrappedTry
	preset string
	// linger is the longest delay the conditions give a datagram: Close waits it out.
	linger time.Duration
}

// newSimConn wraps conn under the conditions c of preset, its model seeded with seed.
func newSimConn(conn *rtc.Conn, preset string, c netsim.Conditions, seed uint64) *simConn {
	linger := c.Latency + c.Jitter
	if c.Reorder > 0 {
		if c.ReorderDelay > 0 {
			linger += c.ReorderDelay
		} else {
			linger += netsim.DefaultReorderDelay
		}
	}
	return &simConn{WrappedTry: netsim.Wrap(conn, c, seed).(*netsim.WrappedTry), preset: preset, linger: linger}
}

// Close waits out the longest delay of the conditions, so that what was written last (the
// session's goodbye) goes through the simulated network as it would through a real one, lost
// only as the model loses a datagram, and then closes the wrapper and the conn under it.
func (s *simConn) Close() error {
	time.Sleep(s.linger)
	return s.WrappedTry.Close()
}

// printStats prints, on one line, what the simulated network did to what this side sent.
func (s *simConn) printStats(w io.Writer) {
	st := s.Stats()
	fmt.Fprintf(w, "duel: -netsim %s: %d datagrams sent through it, %d dropped, %d duplicated, %d reordered\n",
		s.preset, st.Packets, st.Dropped, st.Duplicated, st.Reordered)
}
