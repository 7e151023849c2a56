// Command relaybench measures a relay (package netplay/relay) under load: N matches of P
// players at R ticks a second over real UDP on 127.0.0.1, the relay in a process of its own
// and the players simulated in others. For each row it reports the relay process's CPU (user
// and system, getrusage, as a share of one core), the packets and bytes it received and sent a
// second, how long it took to forward the ticks that the players' inputs completed before their
// deadline (fwd p50, p99: from reading the packets to the end of sending), and how late after
// their deadline it sent the ticks that waited for it (late p50, p99, max; with -at-deadline,
// every tick; µs, each to within a quarter).
//
//	go run ./cmd/relaybench -rows 100x2,1000x2 -seconds 10
//
// The simulated players speak the relay's protocol (a join through the cookie round trip, then
// an input a tick, two ticks ahead of the relay's clock, and an acknowledgement of the ticks
// it has confirmed) but read nothing once the match runs, so that they cost the machine the
// relay runs on as little as they can: their sockets' receive buffers are small and the
// kernel drops what they do not read, after the relay has done all its work for it. Each row
// is a new relay and new players, measured after -warmup seconds.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(cli.Report("relaybench", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// options are the command's flags.
type options struct {
	rows           []row
	hz             int
	seconds        float64
	warmup         float64
	clients        int
	runs           int
	role           string
	relayAddr      string
	first, matches int
	players        int
	ip             int
	resolution     time.Duration
	atDeadline     bool
}

// row is one configuration measured: matches of players.
type row struct{ matches, players int }

func (r row) String() string { return fmt.Sprintf("%dx%d", r.matches, r.players) }

func parseRows(s string) ([]row, error) {
	var rows []row
	for _, f := range strings.Split(s, ",") {
		m, p, ok := strings.Cut(strings.TrimSpace(f), "x")
		nm, err1 := strconv.Atoi(m)
		np, err2 := strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil || nm < 1 || nm > 100_000 || np < 1 || np > 8 {
			return nil, fmt.Errorf("-rows: %q is not MATCHESxPLAYERS (1 to 100000 matches of 1 to 8 players)", f)
		}
		rows = append(rows, row{nm, np})
	}
	return rows, nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("relaybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.String("rows", "100x2,1000x2,1000x4", "the rows to measure: MATCHESxPLAYERS, comma-separated")
	fs.IntVar(&o.hz, "hz", 60, "ticks a second of every match")
	fs.Float64Var(&o.seconds, "seconds", 10, "seconds measured of each row")
	fs.Float64Var(&o.warmup, "warmup", 2, "seconds of each row before the measure")
	fs.IntVar(&o.clients, "clients", 0, "processes simulating the players (0: one per 15,000 players, at least 1)")
	fs.IntVar(&o.runs, "runs", 1, "times each row is measured (the median of each figure is printed)")
	fs.DurationVar(&o.resolution, "resolution", 0, "the relay's gameloop.SharedClock resolution (0: its default, 1ms)")
	fs.BoolVar(&o.atDeadline, "at-deadline", false, "confirm every tick at its deadline only (relay.MatchConfig.AtDeadline)")
	fs.StringVar(&o.role, "role", "", "internal: relay or players")
	fs.StringVar(&o.relayAddr, "relay", "", "internal: the relay's address")
	fs.IntVar(&o.first, "first", 0, "internal: the first match of a players process")
	fs.IntVar(&o.matches, "matches", 0, "internal: how many matches a players process plays")
	fs.IntVar(&o.players, "players", 0, "internal: players a match")
	fs.IntVar(&o.ip, "ip", 0, "internal: which 127.0.N.x addresses a players process binds")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.hz < 1 || o.hz > 1000:
		err = fmt.Errorf("-hz: %d is not 1 to 1000", o.hz)
	case !(o.seconds > 0) || !(o.warmup >= 0):
		err = errors.New("-seconds must be positive and -warmup not negative")
	case o.clients < 0 || o.runs < 1:
		err = errors.New("-clients must not be negative and -runs at least 1")
	}
	if err == nil && o.role == "" {
		o.rows, err = parseRows(*rows)
	}
	if err != nil {
		return o, &cli.UsageError{Err: err}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	switch o.role {
	case "relay":
		return runRelay(ctx, o, stdout)
	case "players":
		return runPlayers(ctx, o, stdout)
	case "":
	default:
		return &cli.UsageError{Err: fmt.Errorf("-role: %q", o.role)}
	}
	fmt.Fprintf(stdout, "relaybench: %d Hz, %g s a row after %g s, GOMAXPROCS %d, %d CPUs\n", o.hz, o.seconds, o.warmup, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Fprintf(stdout, "%-10s %7s %7s %10s %10s %9s %9s %8s %8s %8s %8s %8s %9s %8s\n", "row", "CPU %", "user %", "pkts in/s", "pkts out/s",
		"KB in/s", "KB out/s", "fwd p50", "fwd p99", "late p50", "late p99", "late max", "replaced", "dropped")
	for _, r := range o.rows {
		var res []result
		for range o.runs {
			x, err := measure(ctx, o, r)
			if err != nil {
				return fmt.Errorf("row %v: %w", r, err)
			}
			res = append(res, x)
		}
		m := medianResult(res)
		late := [3]string{"-", "-", "-"} // no tick waited for its deadline
		if m.Late > 0 {
			late = [3]string{fmt.Sprintf("%.0f", m.P50), fmt.Sprintf("%.0f", m.P99), fmt.Sprintf("%.0f", m.Max)}
		}
		fmt.Fprintf(stdout, "%-10s %7.1f %7.1f %10.0f %10.0f %9.0f %9.0f %8.0f %8.0f %8s %8s %8s %9d %8d\n", r, m.CPU, m.User, m.PacketsIn, m.PacketsOut,
			m.BytesIn/1000, m.BytesOut/1000, m.FwdP50, m.FwdP99, late[0], late[1], late[2], m.Replaced, m.Dropped)
	}
	return nil
}

// result is what the relay process measured of a row.
type result struct {
	CPU                     float64 // percent of one core
	User                    float64 // of it, in user mode (the rest: the kernel's, on the relay's behalf)
	PacketsIn, PacketsOut   float64 // a second
	BytesIn, BytesOut       float64 // a second
	P50, P99, Max           float64 // µs: ticks sent after their deadline
	Late                    uint64  // updates that sent ticks at their deadline
	FwdP50, FwdP99          float64 // µs: ticks confirmed early, from the packets that completed them
	Replaced                uint64
	Dropped                 int64             // packets the relay's socket dropped, its buffer full
	Refused                 map[string]uint64 // packets the relay refused, by reason
	Matches, Players, Ticks uint64
}

func medianResult(rs []result) result {
	med := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		for i := range v { // a few values: insertion sort
			for j := i; j > 0 && v[j] < v[j-1]; j-- {
				v[j], v[j-1] = v[j-1], v[j]
			}
		}
		return v[len(v)/2]
	}
	return result{
		CPU:        med(func(r result) float64 { return r.CPU }),
		User:       med(func(r result) float64 { return r.User }),
		PacketsIn:  med(func(r result) float64 { return r.PacketsIn }),
		PacketsOut: med(func(r result) float64 { return r.PacketsOut }),
		BytesIn:    med(func(r result) float64 { return r.BytesIn }),
		BytesOut:   med(func(r result) float64 { return r.BytesOut }),
		P50:        med(func(r result) float64 { return r.P50 }),
		P99:        med(func(r result) float64 { return r.P99 }),
		Max:        med(func(r result) float64 { return r.Max }),
		FwdP50:     med(func(r result) float64 { return r.FwdP50 }),
		FwdP99:     med(func(r result) float64 { return r.FwdP99 }),
		Replaced:   uint64(med(func(r result) float64 { return float64(r.Replaced) })),
		Late:       uint64(med(func(r result) float64 { return float64(r.Late) })),
		Dropped:    int64(med(func(r result) float64 { return float64(r.Dropped) })),
	}
}

// measure runs one row: a relay process, the players' processes, and the measure.
func measure(ctx context.Context, o options, r row) (result, error) {
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	relay := exec.CommandContext(ctx, self, "-role", "relay", "-hz", strconv.Itoa(o.hz), "-resolution", o.resolution.String(),
		"-at-deadline="+strconv.FormatBool(o.atDeadline))
	relay.Stderr = os.Stderr
	relayIn, err := relay.StdinPipe()
	if err != nil {
		return result{}, err
	}
	relayOut, err := relay.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := relay.Start(); err != nil {
		return result{}, err
	}
	defer relay.Process.Kill()
	lines := bufio.NewScanner(relayOut)
	if !lines.Scan() {
		return result{}, errors.New("the relay process printed no address")
	}
	addr := strings.TrimPrefix(lines.Text(), "listening ")
	procs := o.clients
	if procs == 0 {
		procs = max(1, (r.matches*r.players+14_999)/15_000)
	}
	procs = min(procs, r.matches)
	var players []*exec.Cmd
	ready := make(chan error, procs)
	defer func() {
		for _, p := range players {
			p.Process.Signal(syscall.SIGTERM)
			p.Wait()
		}
	}()
	for i := range procs {
		first := r.matches * i / procs
		n := r.matches*(i+1)/procs - first
		p := exec.CommandContext(ctx, self, "-role", "players", "-relay", addr, "-hz", strconv.Itoa(o.hz),
			"-first", strconv.Itoa(first), "-matches", strconv.Itoa(n), "-players", strconv.Itoa(r.players), "-ip", strconv.Itoa(i))
		p.Stderr = os.Stderr
		out, err := p.StdoutPipe()
		if err != nil {
			return result{}, err
		}
		if err := p.Start(); err != nil {
			return result{}, err
		}
		players = append(players, p)
		go func() {
			sc := bufio.NewScanner(out)
			if sc.Scan() && sc.Text() == "ready" {
				ready <- nil
				io.Copy(io.Discard, out)
				return
			}
			ready <- errors.New("a players process did not get ready")
		}()
	}
	for range procs {
		select {
		case err := <-ready:
			if err != nil {
				return result{}, err
			}
		case <-time.After(5 * time.Minute):
			return result{}, errors.New("the players took over 5 minutes to join")
		case <-ctx.Done():
			return result{}, ctx.Err()
		}
	}
	sleep(ctx, o.warmup)
	fmt.Fprintln(relayIn, "start")
	sleep(ctx, o.seconds)
	fmt.Fprintln(relayIn, "stop")
	if !lines.Scan() {
		return result{}, errors.New("the relay process printed no result")
	}
	var res result
	if err := json.Unmarshal(lines.Bytes(), &res); err != nil {
		return result{}, fmt.Errorf("the relay's result %q: %w", lines.Text(), err)
	}
	if len(res.Refused) > 0 {
		return res, fmt.Errorf("the relay refused packets of the simulated players: %v", res.Refused)
	}
	if res.Matches != uint64(r.matches) || res.Players != uint64(r.matches*r.players) {
		return res, fmt.Errorf("the relay ran %d matches of %d players, want %d of %d", res.Matches, res.Players, r.matches, r.matches*r.players)
	}
	relayIn.Close()
	relay.Wait()
	return res, ctx.Err()
}

func sleep(ctx context.Context, seconds float64) {
	select {
	case <-time.After(time.Duration(seconds * float64(time.Second))):
	case <-ctx.Done():
	}
}
