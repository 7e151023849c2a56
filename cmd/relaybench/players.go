package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"
)

// simPlayer is one simulated player: its socket and its session at the relay.
type simPlayer struct {
	conn    *net.UDPConn
	slot    int
	session uint32
	seq     uint16
}

// runPlayers joins o.matches matches of o.players players (the first named m<o.first>), each
// player on a socket of its own bound to 127.0.<o.ip+1>.1, prints "ready", then sends each
// player's input every tick until ctx ends.
func runPlayers(ctx context.Context, o options, stdout io.Writer) error {
	relay, err := netip.ParseAddrPort(o.relayAddr)
	if err != nil {
		return fmt.Errorf("-relay: %w", err)
	}
	ip := netip.AddrFrom4([4]byte{127, 0, byte(o.ip + 1), 1})
	period := time.Second / time.Duration(o.hz)
	matches := make([][]*simPlayer, o.matches)
	starts := make([]time.Time, o.matches)
	sent := make([]uint64, o.matches) // the last tick of each match's inputs sent
	buf := make([]byte, 2048)
	pkt := make([]byte, 0, 512)
	for i := range matches {
		name := fmt.Sprintf("m%d", o.first+i)
		for slot := range o.players {
			conn, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(ip, 0)))
			if err != nil {
				return fmt.Errorf("player %d of %s: %w", slot, name, err)
			}
			defer conn.Close()
			p := &simPlayer{conn: conn, slot: slot}
			if err := p.join(relay, name, o, buf, pkt); err != nil {
				return fmt.Errorf("player %d of %s: %w", slot, name, err)
			}
			matches[i] = append(matches[i], p)
		}
		// The relay starts the match at its next update once the last player is in: within a
		// tick of its welcome.
		starts[i] = time.Now().Add(period / 2)
	}
	// From now on the players read nothing: the kernel drops what they do not read.
	for _, ps := range matches {
		for _, p := range ps {
			p.conn.SetReadBuffer(1)
		}
	}
	fmt.Fprintln(stdout, "ready")
	rng := rand.New(rand.NewPCG(uint64(o.first), 1))
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		now := time.Now()
		for i, ps := range matches {
			// Three ticks ahead of the relay's clock, every tick since the last sent (a
			// tick of the ticker missed leaves none out), acknowledging what the relay has
			// confirmed two ticks ago; an input that changes now and then.
			t := uint64(max(now.Sub(starts[i]), 0)/period) + 3
			from := max(sent[i]+1, t-min(t, 7))
			if from > t {
				continue
			}
			sent[i] = t
			for _, p := range ps {
				in := byte(0)
				if rng.IntN(8) == 0 {
					in = byte(rng.IntN(16))
				}
				p.seq++
				pkt = appendInput(pkt[:0], p.session, p.seq, p.slot, from, int(t-from+1), int64(t)-5, in)
				if _, err := p.conn.WriteToUDPAddrPort(pkt, relay); err != nil && !errors.Is(err, net.ErrClosed) {
					// A full socket buffer: the packet is lost, as on a network.
					continue
				}
			}
		}
	}
}

// join joins p to slot p.slot of match name: a join, the relay's cookie, the join again with it,
// and the welcome.
func (p *simPlayer) join(relay netip.AddrPort, name string, o options, buf, pkt []byte) error {
	nonce := rand.Uint32() | 1
	cookie := uint32(0)
	for try := 0; try < 20; try++ {
		pkt = appendJoin(pkt[:0], nonce, cookie, name, p.slot, o.players, o.hz)
		if _, err := p.conn.WriteToUDPAddrPort(pkt, relay); err != nil {
			return err
		}
		p.conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		for {
			n, _, err := p.conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				break // asked again
			}
			a, err := parseAnswer(buf[:n])
			switch {
			case err != nil:
			case a.kind == kindCookie && a.session == nonce:
				cookie = a.cookie
			case a.kind == kindRefused && a.nonce == nonce:
				return fmt.Errorf("refused by the relay (reason %d)", a.reason)
			case a.kind == kindWelcome && a.nonce == nonce:
				p.session = a.session
				p.conn.SetReadDeadline(time.Time{})
				return nil
			default:
				continue
			}
			break
		}
	}
	return errors.New("no welcome from the relay after 20 tries")
}
