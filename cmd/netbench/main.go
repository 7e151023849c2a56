// Command netbench measures what a two-peer netplay game over real UDP costs the process that
// plays it: both peers in one process on 127.0.0.1, at 60 Hz of real time, paced as a game
// would pace them, with the whole process's CPU time a tick (getrusage: every thread, the Go
// runtime's included, nothing subtracted), its context switches and system calls a tick
// (perf, where it is installed and allowed), its allocations a tick and how late each tick
// began. Beside the games, the same loops with no session, down to the floor: one absolute
// clock_nanosleep a tick, as a C program's loop would sleep.
//
//	go run ./cmd/netbench -seconds 10 -runs 3
//
// Each row runs in a process of its own, -runs times, the rows in a different order each
// time; the table gives the medians. Rows:
//
//	sleep                  no session: one absolute clock_nanosleep a tick (the floor)
//	time.Sleep             no session: time.Sleep to each tick
//	lowpower               no session: gameloop's low-power pacer (NewLowPowerClock)
//	precise                no session: gameloop's precise pacer (NewSystemClock)
//	lowpower/UDPConn       the game over netplay.ListenUDP's sockets, the low-power pacer
//	lowpower/net.UDPConn   the game over net.ListenUDP's sockets, the low-power pacer
//	precise/UDPConn        the game over netplay.ListenUDP's sockets, the precise pacer
//	precise/net.UDPConn    the game over net.ListenUDP's sockets, the precise pacer
//	time.Sleep/net.UDPConn the game over net.ListenUDP's sockets, time.Sleep
//	lowpower/UDPConn/spectators      lowpower/UDPConn with 8 spectators of the first peer
//	                                 in the process too, each on a socket of its own
//	lowpower/net.UDPConn/spectators  the same over net.ListenUDP's sockets
//
// Flags: -seconds (measured, a run), -warmup (after both peers run), -runs, -rows (a
// comma-separated list of the rows above), -balls (the game's size), -hz.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop/internal/cli"
)

// row is one line of the table: how the loop sleeps and, for a game, its sockets.
type row struct {
	name, pace, conn string // conn "": no session
	spectators       int    // spectators of the first peer, each a session of its own
}

var allRows = []row{
	{"sleep", "sleep", "", 0},
	{"time.Sleep", "time.Sleep", "", 0},
	{"lowpower", "lowpower", "", 0},
	{"precise", "precise", "", 0},
	{"lowpower/UDPConn", "lowpower", "UDPConn", 0},
	{"lowpower/net.UDPConn", "lowpower", "net.UDPConn", 0},
	{"precise/UDPConn", "precise", "UDPConn", 0},
	{"precise/net.UDPConn", "precise", "net.UDPConn", 0},
	{"time.Sleep/net.UDPConn", "time.Sleep", "net.UDPConn", 0},
	{"lowpower/UDPConn/spectators", "lowpower", "UDPConn", 8},
	{"lowpower/net.UDPConn/spectators", "lowpower", "net.UDPConn", 8},
}

type options struct {
	seconds, warmup float64
	runs, balls, hz int
	rows            []row
	child           string
}

func main() {
	os.Exit(cli.Report("netbench", run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("netbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var rows string
	fs.Float64Var(&o.seconds, "seconds", 10, "seconds measured in each run of each row")
	fs.Float64Var(&o.warmup, "warmup", 1, "seconds played before the measure, once both peers run")
	fs.IntVar(&o.runs, "runs", 3, "runs of each row; the table gives their medians")
	fs.IntVar(&o.balls, "balls", 100, "balls in the game: its cost a tick")
	fs.IntVar(&o.hz, "hz", 60, "ticks a second")
	fs.StringVar(&rows, "rows", "", "the rows to run, comma-separated (default all): "+rowNames())
	fs.StringVar(&o.child, "child", "", "run one row in this process (used by netbench itself)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	usage := func(format string, a ...any) error { return &cli.UsageError{Err: fmt.Errorf(format, a...)} }
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case !(o.seconds > 0 && o.seconds <= 3600):
		return usage("-seconds %v: want more than 0 and at most 3600", o.seconds)
	case !(o.warmup >= 0 && o.warmup <= 600):
		return usage("-warmup %v: want 0 to 600", o.warmup)
	case o.runs < 1 || o.runs > 100:
		return usage("-runs %d: want 1 to 100", o.runs)
	case o.balls < 0 || o.balls > 1_000_000:
		return usage("-balls %d: want 0 to 1000000", o.balls)
	case o.hz < 1 || o.hz > 1000:
		return usage("-hz %d: want 1 to 1000", o.hz)
	}
	o.rows = allRows
	if rows != "" {
		o.rows = nil
		for _, name := range strings.Split(rows, ",") {
			i := slices.IndexFunc(allRows, func(r row) bool { return r.name == strings.TrimSpace(name) })
			if i < 0 {
				return usage("-rows: no row %q (rows: %s)", name, rowNames())
			}
			o.rows = append(o.rows, allRows[i])
		}
	}
	if o.child != "" {
		i := slices.IndexFunc(allRows, func(r row) bool { return r.name == o.child })
		if i < 0 {
			return usage("-child: no row %q", o.child)
		}
		return child(allRows[i], o, stdin, stdout)
	}
	return parent(o, stdout, stderr)
}

func rowNames() string {
	var names []string
	for _, r := range allRows {
		names = append(names, r.name)
	}
	return strings.Join(names, ", ")
}

// parent runs every row -runs times, each in a child process, and prints the table.
func parent(o options, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	perf := perfWorks()
	if !perf {
		fmt.Fprintln(stderr, "netbench: perf is not installed or not allowed: no system calls a tick")
	}
	results := make(map[string][]result)
	for r := range o.runs {
		order := slices.Clone(o.rows)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, rw := range order {
			res, err := runChild(exe, rw, o, perf)
			if err != nil {
				return fmt.Errorf("row %s: %w", rw.name, err)
			}
			results[rw.name] = append(results[rw.name], res)
		}
	}
	fmt.Fprintf(stdout, "%d Hz, %d balls, %d run(s) of %gs a row, medians; CPU, context switches and system calls of the whole process\n\n",
		o.hz, o.balls, o.runs, o.seconds)
	fmt.Fprintln(stdout, "| row | CPU µs/tick | context switches/tick | system calls/tick | allocs/tick | late p50 µs | late p99 µs | skipped |")
	fmt.Fprintln(stdout, "|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, rw := range o.rows {
		rs := results[rw.name]
		med := func(f func(result) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			return median(v)
		}
		sys := "-"
		if n := med(func(r result) float64 { return r.syscalls }); !math.IsNaN(n) {
			sys = fmt.Sprintf("%.1f", n)
		}
		skipped := "-"
		if rw.conn != "" {
			skipped = fmt.Sprintf("%.0f", med(func(r result) float64 { return r.skipped }))
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %.1f | %s | %.2f | %.0f | %.0f | %s |\n", rw.name,
			med(func(r result) float64 { return r.cpu }), med(func(r result) float64 { return r.csw }), sys,
			med(func(r result) float64 { return r.allocs }), med(func(r result) float64 { return r.lateP50 }),
			med(func(r result) float64 { return r.lateP99 }), skipped)
	}
	return nil
}

// median returns the median of v, leaving out the unknown values (NaN); NaN if all are.
func median(v []float64) float64 {
	v = slices.DeleteFunc(v, math.IsNaN)
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// result is what a child measured, a tick.
type result struct {
	cpu, csw, syscalls, allocs, lateP50, lateP99, skipped float64
}

// runChild runs row rw in a child process: once it says it is ready, perf (if it works) is
// attached to it and the child is told to measure; its result line is read back.
func runChild(exe string, rw row, o options, perf bool) (result, error) {
	cmd := exec.Command(exe, "-child", rw.name, "-seconds", fmt.Sprint(o.seconds), "-warmup", fmt.Sprint(o.warmup),
		"-balls", strconv.Itoa(o.balls), "-hz", strconv.Itoa(o.hz))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	lines := bufio.NewScanner(out)
	fail := func(err error) (result, error) {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return result{}, fmt.Errorf("%w: %s", err, msg)
		}
		return result{}, err
	}
	if !lines.Scan() || lines.Text() != "ready" {
		return fail(errors.New("the child did not start"))
	}
	if _, err := io.WriteString(in, "go\n"); err != nil {
		return fail(err)
	}
	if !lines.Scan() {
		return fail(errors.New("the child ended without a result"))
	}
	var r result
	if _, err := fmt.Sscanf(lines.Text(), "result %g %g %g %g %g %g", &r.cpu, &r.csw, &r.allocs, &r.lateP50, &r.lateP99, &r.skipped); err != nil {
		return fail(fmt.Errorf("the child's result %q: %w", lines.Text(), err))
	}
	// The system calls are counted after the CPU time, the loop going on as measured: perf
	// counting every system call costs the process CPU time of its own.
	// A count perf does not give (it had not attached yet, on a busy machine) leaves the
	// figure unknown, not the run failed.
	r.syscalls = math.NaN()
	if perf {
		p, err := startPerf(cmd.Process.Pid)
		if err != nil {
			return fail(err)
		}
		time.Sleep(time.Duration(max(min(o.seconds, 3), 0.5) * float64(time.Second)))
		if n, secs, err := p.stop(); err == nil {
			r.syscalls = n / (secs * float64(o.hz))
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return result{}, fmt.Errorf("%w %s", err, strings.TrimSpace(stderr.String()))
	}
	return r, nil
}

// perfRun is perf stat counting a process's system calls.
type perfRun struct {
	cmd   *exec.Cmd
	out   bytes.Buffer
	start time.Time
}

// perfWorks reports whether perf stat can count system calls here.
func perfWorks() bool {
	path, err := exec.LookPath("perf")
	if err != nil {
		return false
	}
	return exec.Command(path, "stat", "-x,", "-e", "raw_syscalls:sys_enter", "true").Run() == nil
}

func startPerf(pid int) (*perfRun, error) {
	p := &perfRun{}
	p.cmd = exec.Command("perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p", strconv.Itoa(pid))
	p.cmd.Stderr = &p.out
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	p.start = time.Now()
	return p, nil
}

// stop stops perf and returns the system calls it counted and the seconds it counted them.
func (p *perfRun) stop() (float64, float64, error) {
	p.cmd.Process.Signal(os.Interrupt)
	secs := time.Since(p.start).Seconds()
	p.cmd.Wait()
	for _, line := range strings.Split(p.out.String(), "\n") {
		f := strings.Split(line, ",")
		if len(f) > 2 && strings.Contains(line, "raw_syscalls:sys_enter") {
			n, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return 0, 0, fmt.Errorf("perf: %q", line)
			}
			return n, secs, nil
		}
	}
	return 0, 0, fmt.Errorf("perf printed no count: %q", p.out.String())
}
