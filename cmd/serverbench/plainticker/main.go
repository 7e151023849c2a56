//go:build unix

// Command plainticker is the baseline serverbench's ticker strategy is checked against: the
// plainest many-matches server in Go, a goroutine and a time.Ticker per match, each match keeping
// how late its ticks began in a slice of its own (no shared write while it runs), merged at the
// end. It prints one line: the process's CPU over the measured window, as a per cent of one
// core, and the ticks' lateness at the median and the 99th percentile, in µs.
//
//	go run ./cmd/serverbench/plainticker -matches 1000 -work 200us -seconds 4s
//
// A match's lateness is when its update began minus when its tick was due: the time its ticker
// sent (since Go 1.23 the tick's due time). Ticks a match's goroutine took too long to receive
// are lost by the ticker (its channel holds one) and counted as dropped. Matches start at random
// over one period (-aligned: all at once). It exits 2 on a bad flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the command's flags.
type options struct {
	matches, hz     int
	seconds, warmup time.Duration
	work            time.Duration
	aligned         bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("plainticker", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a bad flag is told in one line by realMain
	fs.IntVar(&o.matches, "matches", 1000, "number of matches")
	fs.IntVar(&o.hz, "hz", 20, "ticks per second of every match")
	fs.DurationVar(&o.seconds, "seconds", 4*time.Second, "how long to measure, after -warmup")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "how long to run before measuring")
	fs.DurationVar(&o.work, "work", 0, "CPU work in every update (a spin)")
	fs.BoolVar(&o.aligned, "aligned", false, "start every match at once (default: at random over one period)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return o, err
	} else if err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.matches < 1 || o.matches > 1_000_000:
		return o, fmt.Errorf("-matches %d: must be 1 to 1,000,000", o.matches)
	case o.hz < 1 || o.hz > 1000:
		return o, fmt.Errorf("-hz %d: must be 1 to 1000", o.hz)
	case o.seconds <= 0 || o.warmup < 0 || o.work < 0:
		return o, errors.New("-seconds must be positive, -warmup and -work not negative")
	}
	return o, nil
}

func realMain(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "plainticker:", err)
		return 2
	}
	r := run(o)
	fmt.Fprintf(stdout, "plainticker %d matches at %d Hz, work %v%s: CPU %.1f%%, late p50 %d µs, p99 %d µs, %d ticks, %d dropped\n",
		o.matches, o.hz, o.work, map[bool]string{true: ", aligned"}[o.aligned], r.cpu, r.p50.Microseconds(), r.p99.Microseconds(), r.ticks, r.dropped)
	return 0
}

// result is what a run measured.
type result struct {
	cpu            float64 // per cent of one core
	p50, p99       time.Duration
	ticks, dropped int
}

// match is one match's record: how late each of its measured ticks began, and how many it lost.
type match struct {
	late    []time.Duration
	dropped int
}

func run(o options) result {
	period := time.Second / time.Duration(o.hz)
	ms := make([]match, o.matches)
	perMatch := int(o.seconds/period) + 2
	for i := range ms {
		ms[i].late = make([]time.Duration, 0, perMatch)
	}
	start := time.Now().Add(10 * time.Millisecond)
	from, to := start.Add(period+o.warmup), start.Add(period+o.warmup+o.seconds)
	ctx, cancel := context.WithDeadline(context.Background(), to.Add(period))
	defer cancel()
	rng := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	for i := range ms {
		offset := time.Duration(0)
		if !o.aligned {
			offset = time.Duration(rng.Int64N(int64(period)))
		}
		wg.Add(1)
		go func(m *match, first time.Time) {
			defer wg.Done()
			time.Sleep(time.Until(first))
			t := time.NewTicker(period)
			defer t.Stop()
			epoch := first
			last := int64(0)
			for {
				select {
				case <-ctx.Done():
					return
				case sent := <-t.C:
					begun := time.Now()
					k := (int64(sent.Sub(epoch)) + int64(period)/2) / int64(period)
					inWindow := !sent.Before(from) && sent.Before(to)
					if k > last+1 && inWindow {
						m.dropped += int(k - last - 1)
					}
					last = k
					if inWindow {
						m.late = append(m.late, begun.Sub(sent))
					}
					for s := time.Now(); time.Since(s) < o.work; {
					}
				}
			}
		}(&ms[i], start.Add(offset))
	}
	time.Sleep(time.Until(from))
	cpu0, wall0 := processCPU(), time.Now()
	time.Sleep(time.Until(to))
	cpu1, wall := processCPU(), time.Since(wall0)
	wg.Wait()
	var all []time.Duration
	var r result
	for i := range ms {
		all = append(all, ms[i].late...)
		r.dropped += ms[i].dropped
	}
	slices.Sort(all)
	r.ticks = len(all)
	if len(all) > 0 {
		r.p50, r.p99 = all[len(all)/2], all[len(all)*99/100]
	}
	r.cpu = 100 * float64(cpu1-cpu0) / float64(wall)
	return r
}

// processCPU returns the process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
