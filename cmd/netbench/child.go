package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
)

// peer is one side of the game: its session and its game.
type peer struct {
	h       int
	s       *netplay.Session[uint8]
	g       *game
	running bool
}

// tick runs one tick of the peer: its input, Advance, the requests.
func (p *peer) tick(now time.Duration) error {
	if err := p.s.AddLocalInput(p.h, p.g.LocalInput(p.h)); err != nil {
		return err
	}
	reqs, err := p.s.Advance(now)
	switch {
	case err == nil:
		p.running = true
		return netplay.Run(reqs, netplay.Game[uint8](p.g))
	case errors.Is(err, netplay.ErrPredictionThreshold):
		p.running = true
		return nil
	case errors.Is(err, netplay.ErrNotSynchronized):
		return nil
	}
	return err
}

// listen opens a socket of the kind conn names on 127.0.0.1.
func listen(conn string) (net.PacketConn, error) {
	addr := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
	if conn == "UDPConn" {
		return netplay.ListenUDP("udp4", addr)
	}
	return net.ListenUDP("udp4", addr)
}

// newPeers opens two sockets of the kind conn names on 127.0.0.1 and a session on each, the
// first taking spectators, and the spectators' sessions, each on a socket of its own.
func newPeers(conn string, balls, spectators int) ([2]*peer, []*peer, error) {
	var peers [2]*peer
	var conns [2]net.PacketConn
	for i := range conns {
		c, err := listen(conn)
		if err != nil {
			return peers, nil, err
		}
		conns[i] = c
	}
	for h := range peers {
		players := make([]netplay.Player, 2)
		players[h] = netplay.Player{Local: true}
		players[1-h] = netplay.Player{Addr: conns[1-h].LocalAddr()}
		cfg := netplay.Config[uint8]{Players: players, Codec: codec{}}
		if h == 0 {
			cfg.Spectators = spectators
		}
		s, err := netplay.NewSession(conns[h], cfg)
		if err != nil {
			return peers, nil, err
		}
		peers[h] = &peer{h: h, s: s, g: newGame(balls, s.Slots())}
	}
	specs := make([]*peer, spectators)
	for i := range specs {
		c, err := listen(conn)
		if err != nil {
			return peers, specs, err
		}
		s, err := netplay.NewSpectator(c, conns[0].LocalAddr(), 2, netplay.Config[uint8]{Codec: codec{}})
		if err != nil {
			return peers, specs, err
		}
		specs[i] = &peer{h: -1, s: s, g: newGame(balls, s.Slots())}
	}
	return peers, specs, nil
}

// spectate runs every tick a spectator has received.
func (p *peer) spectate(now time.Duration) error {
	for {
		reqs, err := p.s.Advance(now)
		switch {
		case err == nil:
			if err := netplay.Run(reqs, netplay.Game[uint8](p.g)); err != nil {
				return err
			}
		case errors.Is(err, netplay.ErrPredictionThreshold), errors.Is(err, netplay.ErrNotSynchronized):
			return nil
		default:
			return err
		}
	}
}

// child runs one row: it plays (or only paces) until both peers run and -warmup more, says
// "ready", goes on until told "go" on stdin, then measures -seconds and prints its result.
func child(rw row, o options, stdin io.Reader, stdout io.Writer) error {
	var peers [2]*peer
	var specs []*peer
	if rw.conn != "" {
		var err error
		peers, specs, err = newPeers(rw.conn, o.balls, rw.spectators)
		for _, p := range append(peers[:], specs...) {
			if p != nil {
				defer p.s.Close()
			}
		}
		if err != nil {
			return err
		}
	}
	wait := sleeper(rw.pace)
	// stdin says "go" to start the measure, then ends (or says "end") to end the run.
	var goSeen, endSeen atomic.Bool
	go func() {
		r := bufio.NewReader(stdin)
		if line, err := r.ReadString('\n'); err == nil && line == "go\n" {
			goSeen.Store(true)
		}
		r.ReadString('\n')
		endSeen.Store(true)
	}()

	period := time.Second / time.Duration(o.hz)
	start := time.Now()
	measured := int(o.seconds * float64(o.hz))
	late := make([]time.Duration, 0, measured)
	var (
		phase             int // 0: until both run; 1: warm-up; 2: ready, waiting for go; 3: measuring
		phaseAt           int
		cpu0, csw0        int64
		allocs0, skipped0 uint64
		ms                runtime.MemStats
		warmTicks         = int(o.warmup * float64(o.hz))
		timeout           = 30 * o.hz
	)
	for k := 1; ; k++ {
		deadline := time.Duration(k) * period
		wait(start, deadline)
		now := time.Since(start)
		if phase == 3 {
			late = append(late, now-deadline)
		}
		for _, p := range peers {
			if p != nil {
				if err := p.tick(now); err != nil {
					return err
				}
			}
		}
		for _, p := range specs {
			if err := p.spectate(now); err != nil {
				return err
			}
		}
		switch phase {
		case 0:
			if peers[0] == nil || peers[0].running && peers[1].running {
				phase, phaseAt = 1, k
			} else if k > timeout {
				return fmt.Errorf("the peers did not synchronize in %d ticks", k)
			}
		case 1:
			if k-phaseAt >= warmTicks {
				phase, phaseAt = 2, k
				fmt.Fprintln(stdout, "ready")
			}
		case 2:
			if goSeen.Load() {
				phase, phaseAt = 3, k
				runtime.ReadMemStats(&ms)
				allocs0 = ms.Mallocs
				cpu0, csw0 = usage()
				if peers[0] != nil {
					skipped0 = peers[0].s.Stats().Skipped + peers[1].s.Stats().Skipped
				}
			} else if k-phaseAt > timeout {
				return errors.New("not told to measure")
			}
		case 3:
			if len(late) < measured {
				continue
			}
			cpu, csw := usage()
			runtime.ReadMemStats(&ms)
			var skipped uint64
			if peers[0] != nil {
				skipped = peers[0].s.Stats().Skipped + peers[1].s.Stats().Skipped - skipped0
			}
			n := float64(len(late))
			slices.Sort(late)
			fmt.Fprintf(stdout, "result %g %g %g %g %g %d\n", float64(cpu-cpu0)/1e3/n, float64(csw-csw0)/n,
				float64(ms.Mallocs-allocs0)/n, float64(late[len(late)/2])/1e3, float64(late[len(late)*99/100])/1e3, skipped)
			phase, phaseAt = 4, k
		case 4:
			// The same loop goes on while perf counts its system calls, until the end.
			if endSeen.Load() {
				return nil
			}
			if k-phaseAt > timeout+int(o.seconds)*o.hz {
				return errors.New("not told to end")
			}
		}
	}
}

// sleeper returns the wait of a pacing: until start+deadline.
func sleeper(pace string) func(start time.Time, deadline time.Duration) {
	switch pace {
	case "sleep":
		return rawSleep
	case "time.Sleep":
		return func(start time.Time, deadline time.Duration) { time.Sleep(time.Until(start.Add(deadline))) }
	}
	clock := gameloop.NewSystemClock()
	if pace == "lowpower" {
		clock = gameloop.NewLowPowerClock()
	}
	return func(start time.Time, deadline time.Duration) {
		clock.WaitUntil(clock.Now()+time.Until(start.Add(deadline)), nil)
	}
}
