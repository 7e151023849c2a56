//go:build unix

package netplay

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// BenchmarkUDPRealTime plays two peers in one process over real UDP sockets on 127.0.0.1 at
// 60 Hz of real time (an iteration is a tick: both peers add their input, a byte that changes
// every 10 ticks, advance and carry out the requests, then the process sleeps until the next
// tick), and reports the process's CPU time a tick (getrusage: user and system) and the ticks
// the first peer skipped at the prediction window. "bare" is the same 60 Hz sleep loop with no
// session; "polled" reads the sockets from the sessions' calls, as a *net.UDPConn is read on
// Linux; "goroutine" reads them with a reader goroutine each, as a conn that cannot be polled
// is; "UDPConn" plays over ListenUDP's sockets. The loop sleeps with time.Sleep; cmd/netbench
// measures the same game paced by gameloop's pacers, with its system calls and context
// switches. Run it with -benchtime 1200x (20 s) and -count 3.
func BenchmarkUDPRealTime(b *testing.B) {
	b.Run("bare", func(b *testing.B) { realTime(b, nil) })
	b.Run("polled", func(b *testing.B) { realTime(b, func(c *net.UDPConn) net.PacketConn { return c }) })
	b.Run("goroutine", func(b *testing.B) { realTime(b, func(c *net.UDPConn) net.PacketConn { return opaqueConn{c} }) })
	b.Run("UDPConn", func(b *testing.B) {
		realTime(b, func(c *net.UDPConn) net.PacketConn {
			addr := c.LocalAddr().(*net.UDPAddr)
			c.Close()
			u, err := ListenUDP("udp", addr) // the same address, now this package's socket
			if err != nil {
				b.Fatal(err)
			}
			return u
		})
	})
}

func realTime(b *testing.B, wrap func(*net.UDPConn) net.PacketConn) {
	var sessions [2]*Session[testInput]
	var games [2]*testGame
	if wrap != nil {
		var conns [2]*net.UDPConn
		for i := range conns {
			c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				b.Fatal(err)
			}
			conns[i] = c
		}
		for h := range sessions {
			players := make([]Player, 2)
			players[h] = Player{Local: true}
			players[1-h] = Player{Addr: conns[1-h].LocalAddr()}
			s, err := NewSession(wrap(conns[h]), Config[testInput]{Players: players, Codec: byteCodec{}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			sessions[h], games[h] = s, newTestGame(2, s.Slots(), uint64(h), 1)
		}
	}
	start := time.Now()
	tick := func(n int) {
		time.Sleep(time.Until(start.Add(time.Duration(n) * time.Second / 60)))
		if wrap == nil {
			return
		}
		now := time.Since(start)
		for h, s := range sessions {
			_ = s.AddLocalInput(h, testInput(s.Tick()/10))
			reqs, err := s.Advance(now)
			if err == nil {
				for i := range reqs {
					if r := &reqs[i]; r.Kind == Save {
						r.Checksum = uint64(r.Tick)
					}
				}
			} else if err != ErrNotSynchronized && err != ErrPredictionThreshold {
				b.Fatal(err)
			}
		}
	}
	// Until both run, then a second more to settle.
	n := 0
	for ; wrap != nil && (!sessions[0].running || !sessions[1].running) && n < 600; n++ {
		tick(n)
	}
	for end := n + 60; n < end; n++ {
		tick(n)
	}
	var skipped uint64
	if wrap != nil {
		skipped = sessions[0].Stats().Skipped
	}
	before := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		tick(n)
		n++
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-µs/tick")
	if wrap != nil {
		b.ReportMetric(float64(sessions[0].Stats().Skipped-skipped), "skipped")
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
