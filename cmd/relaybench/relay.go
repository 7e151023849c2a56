package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/relay"
)

// runRelay serves an open relay on 127.0.0.1, prints "listening ADDR", and measures itself
// between the lines "start" and "stop" on its stdin, printing the result as JSON.
func runRelay(ctx context.Context, o options, stdout io.Writer) error {
	conn, err := netplay.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetReadBuffer(16 << 20)
	conn.SetWriteBuffer(16 << 20)
	clock := gameloop.NewSharedClock(&gameloop.SharedClockOptions{Resolution: o.resolution})
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	r, err := relay.New(conn, pool, &relay.Options{MaxMatches: 1_000_000, OpenMatch: relay.MatchConfig{AtDeadline: o.atDeadline}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx) }()
	fmt.Fprintf(stdout, "listening %s\n", conn.LocalAddr())
	in := bufio.NewScanner(os.Stdin)
	var (
		startUser, startSys time.Duration
		startAt             time.Time
		startM              relay.Metrics
		startDr             int64
	)
	port := conn.LocalAddr().(*net.UDPAddr).Port
	for in.Scan() {
		switch in.Text() {
		case "start":
			startUser, startSys = processCPU()
			startM, startAt, startDr = r.Metrics(), time.Now(), socketDrops(port)
			if path := os.Getenv("RELAYBENCH_CPUPROFILE"); path != "" {
				if f, err := os.Create(path); err == nil {
					pprof.StartCPUProfile(f)
					defer f.Close()
					defer pprof.StopCPUProfile()
				}
			}
		case "stop":
			user, sys := processCPU()
			m, wall := r.Metrics(), time.Since(startAt)
			sec := wall.Seconds()
			late, fwd := m.Lateness.Sub(startM.Lateness), m.Forward.Sub(startM.Forward)
			us := func(d time.Duration) float64 { return float64(d) / 1e3 }
			res := result{
				CPU:        100 * (user + sys - startUser - startSys).Seconds() / sec,
				User:       100 * (user - startUser).Seconds() / sec,
				PacketsIn:  float64(m.PacketsIn-startM.PacketsIn) / sec,
				PacketsOut: float64(m.PacketsOut-startM.PacketsOut) / sec,
				BytesIn:    float64(m.BytesIn-startM.BytesIn) / sec,
				BytesOut:   float64(m.BytesOut-startM.BytesOut) / sec,
				P50:        us(late.Quantile(0.5)),
				P99:        us(late.Quantile(0.99)),
				Max:        us(late.Max),
				Late:       late.Count,
				FwdP50:     us(fwd.Quantile(0.5)),
				FwdP99:     us(fwd.Quantile(0.99)),
				Replaced:   m.Replaced - startM.Replaced,
				Matches:    uint64(m.Matches),
				Players:    uint64(m.Players),
				Ticks:      m.Ticks - startM.Ticks,
				Dropped:    socketDrops(port) - startDr,
				Refused:    map[string]uint64{},
			}
			for why, n := range m.Refused {
				if d := n - startM.Refused[why]; d > 0 {
					res.Refused[why] = d
				}
			}
			if startDr < 0 {
				res.Dropped = -1
			}
			if late.Count == 0 {
				res.Max = 0 // Max is of all time: none of the window's
			}
			if startUser < 0 {
				res.CPU, res.User = -1, -1
			}
			b, _ := json.Marshal(res)
			fmt.Fprintf(stdout, "%s\n", b)
			cancel()
			if err := <-served; err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		}
	}
	cancel()
	<-served
	return nil
}

// socketDrops returns how many packets the kernel dropped for the UDP socket bound to port on
// 127.0.0.1 (its receive buffer full), from /proc/net/udp; -1 where that cannot be read.
func socketDrops(port int) int64 {
	b, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		return -1
	}
	want := fmt.Sprintf("0100007F:%04X", port)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 12 && f[1] == want {
			n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}
