// Command loopbench measures how precisely, and at what CPU cost, different game-loop pacing
// strategies start their frames: this library's Loop and the loops of the classic texts (Game
// Programming Patterns, the LWJGL book, Piston). It runs the same frame (empty, or -work long) under each strategy, one after
// another, at each rate, and prints one table:
//
//	go run ./cmd/loopbench -hz 240 -seconds 8 -plot docs/images/pacing-240.png
//
// For each run it reports the frames per second achieved; the deviation of each frame's start
// from the time the strategy aimed it at (p50, p99 and max, in µs); the 99th percentile of the
// error of the interval between frame starts against the period; and the CPU the process used,
// as % of one core (getrusage, user + system). The time a frame is aimed at is its slot of the
// ideal absolute schedule, k/hz seconds after the first frame, for the strategies that keep
// one (gameloop, ticker, busy-wait); the classic texts' loops count each frame from the one before
// (gpp-sleep, lwjgl-sync) or from the last render (piston), so for them it is the deadline they
// computed, and the slip that adds shows as an FPS below the rate and in the interval error.
//
// -json writes the figures as a JSON array instead of the table, -plot draws the distribution
// of the deviations of every run, and -strategies chooses the strategies (comma-separated
// names; the default is all of them).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gameloop-go/gameloop"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

// realMain runs the command and returns its exit status: 0 when it ran (or -h printed the
// usage), 2 for bad flags, 1 when the benchmark failed.
func realMain(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "loopbench:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "loopbench:", err)
		return 1
	}
}

// usageError is a bad flag or argument.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// options are the command's flags, parsed.
type options struct {
	rates      []int
	seconds    float64
	work       time.Duration
	json       bool
	plot       string
	strategies []strategy
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loopbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hz := fs.String("hz", "60,144,240", "frame rates to run at, comma-separated")
	fs.Float64Var(&o.seconds, "seconds", 8, "seconds to run each strategy at each rate")
	fs.DurationVar(&o.work, "work", 0, "CPU work to do in each frame (a spin), such as 2ms")
	fs.BoolVar(&o.json, "json", false, "write the figures as a JSON array instead of a table")
	fs.StringVar(&o.plot, "plot", "", "draw the distributions of frame-start deviation to this PNG file")
	names := fs.String("strategies", "", "strategies to run, comma-separated (default all but pacer and gameloop-input): "+strategyNames())
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loopbench [flags]\n\nRuns an empty frame (or -work) paced by each strategy and reports its timing and CPU cost.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, f := range strings.Split(*hz, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r <= 0 || r > 10000 {
			return o, fmt.Errorf("-hz: %q is not a rate between 1 and 10000", f)
		}
		o.rates = append(o.rates, r)
	}
	if !(o.seconds > 0) || o.seconds > 3600 {
		return o, fmt.Errorf("-seconds: %v is not between 0 and 3600", o.seconds)
	}
	if o.work < 0 {
		return o, fmt.Errorf("-work: %v is negative", o.work)
	}
	if *names == "" {
		o.strategies = strategies()
		return o, nil
	}
	all := append(strategies(), extraStrategies()...)
	for _, n := range strings.Split(*names, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, s := range all {
			if s.name == n {
				o.strategies, found = append(o.strategies, s), true
			}
		}
		if !found {
			return o, fmt.Errorf("-strategies: unknown strategy %q (known: %s)", n, strategyNames())
		}
	}
	return o, nil
}

func strategyNames() string {
	var names []string
	for _, s := range append(strategies(), extraStrategies()...) {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return usageError{err}
	}
	// The frames allocate nothing, but the recorders do before each run; collecting between
	// runs keeps the collector out of them.
	debug.SetGCPercent(-1)
	defer debug.SetGCPercent(100)

	var results []result
	for _, hz := range o.rates {
		for _, s := range o.strategies {
			if !o.json {
				fmt.Fprintf(stderr, "loopbench: %s at %d Hz for %gs\n", s.name, hz, o.seconds)
			}
			res, err := measure(s, hz, o.seconds, o.work)
			if err != nil {
				return fmt.Errorf("%s at %d Hz: %w", s.name, hz, err)
			}
			if ps := res.pacer; ps.Waits > 0 && !o.json {
				fmt.Fprintf(stderr, "loopbench:   pacer: %d waits, margins %v and %v, %d late by over %v (worst %v), spun %v\n",
					ps.Waits, ps.LongMargin, ps.Margin, ps.Late, gameloop.LateBy, ps.WorstLate, ps.Spun)
			}
			results = append(results, res)
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return fmt.Errorf("writing JSON: %w", err)
		}
	} else {
		printTable(stdout, results, o)
	}
	if o.plot != "" {
		if err := drawPlot(o.plot, results, o); err != nil {
			return fmt.Errorf("drawing %s: %w", o.plot, err)
		}
	}
	return nil
}

// measure runs one strategy at one rate.
func measure(s strategy, hz int, seconds float64, work time.Duration) (result, error) {
	rec := newRecorder(hz, seconds, work)
	runtime.GC()
	time.Sleep(100 * time.Millisecond) // let the machine settle after the last run
	cpu0, wall0 := processCPU(), time.Now()
	err := s.run(rec)
	cpu1, wall := processCPU(), time.Since(wall0)
	if err != nil {
		return result{}, err
	}
	cpu := time.Duration(-1)
	if cpu0 >= 0 && cpu1 >= 0 {
		cpu = cpu1 - cpu0
	}
	return rec.summarise(s.name, wall, cpu), nil
}

func printTable(w io.Writer, results []result, o options) {
	fmt.Fprintf(w, "frame-start deviation from the aimed time, %gs per run, work %v per frame, %s/%s, %d CPUs\n\n",
		o.seconds, o.work, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tHz\tFPS\tp50 µs\tp99 µs\tmax µs\tinterval p99 µs\tCPU %\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t\n",
			r.Strategy, r.Hz, r.FPS, r.P50us, r.P99us, r.MaxUs, r.IntervalP99us, r.CPUPercent)
	}
	tw.Flush()
}
