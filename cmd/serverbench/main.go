// Command serverbench measures how a game server's matches keep time: N matches at a tick rate,
// each waited for a different way, one strategy after another, each in a process of its own
// (the command runs itself again for each), so that none inherits another's threads or heap:
//
//	go run ./cmd/serverbench -matches 1000 -hz 20 -seconds 5
//
// The strategies: shared (a Loop per match, all on one gameloop.SharedClock), pool (every
// match in one gameloop.Pool: no goroutine per match), loops (a Loop per match on its own
// SystemClock, the default) and ticker (a goroutine and a time.Ticker per match, the usual Go
// server).
//
// Matches start at random over the first tick period (-aligned starts them all at once, on one
// grid). After a second of warm-up, for -seconds, it measures each tick's lateness (when its
// update began minus when it was due on its match's grid: p50, p99, max), the ticks begun
// before they were due (early) and dropped, the CPU the process used (getrusage, user + system,
// as % of one core), its threads and its peak resident memory. -slow gives one match an update
// of 30 ms every tick and leaves it out of the lateness: what the others suffer from it.
//
// Every update does -work of CPU work (a spin); the default runs each strategy with none and
// with 200 µs, so that the table shows matches that do real work beside idle ones. Each match
// records its own ticks, merged at the end, so that recording shares no memory between matches.
//
// -matches, -work and -resolution take lists; -runs repeats the whole set and reports medians;
// -json writes JSON rows instead of the table; -plot-n and -plot-res draw p99 and CPU against
// the number of matches, and p99 against CPU over the resolutions.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/cli"
)

func main() { os.Exit(exitStatus(run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr)) }

// exitStatus prints err, unless the flag package has, and returns the exit status for it: 0
// for none or -h, 2 for a bad flag (as the flag package's ExitOnError), 1 for anything else.
func exitStatus(err error, stderr io.Writer) int { return cli.Report("serverbench", err, stderr) }

// columns explains the table's columns, for the usage and under the table.
const columns = `columns: work µs is the CPU work (a spin) in every update; CPU % is the process's CPU (user +
system) as % of one core; p50, p99 and max are how late the ticks began (when each update began
minus when it was due on its match's grid), in µs; dropped counts ticks owed but never run;
early counts ticks begun before they were due (0 unless a clock wakes too soon); threads and
RSS MB (peak) are the process's, less the bench's own record of the ticks; load is the
machine's 1-minute load average when the run began (-1 where unknown): a busy machine makes
every strategy late.`

// options are the command's flags, parsed.
type options struct {
	matches     []int
	works       []time.Duration
	resolutions []time.Duration
	spins       []bool
	childOptions
	strategies []strategy
	runs       int
	json       bool
	plotN      string
	plotRes    string
	save, load string
	child      string // run this strategy in this process and write its row
}

// childOptions are what one run of one strategy needs.
type childOptions struct {
	matches    int
	hz         int
	seconds    time.Duration
	warmup     time.Duration
	work       time.Duration
	aligned    bool
	slow       bool
	resolution time.Duration
	spin       bool
}

// row is the result of one run of one strategy (or the medians of several).
type row struct {
	Strategy     string  `json:"strategy"`
	Matches      int     `json:"matches"`
	Hz           int     `json:"hz"`
	Aligned      bool    `json:"aligned"`
	ResolutionUs float64 `json:"resolution_us"`
	CPUPercent   float64 `json:"cpu_percent"`
	LateP50us    float64 `json:"late_p50_us"`
	LateP99us    float64 `json:"late_p99_us"`
	LateMaxUs    float64 `json:"late_max_us"`
	Dropped      uint64  `json:"dropped"`
	Early        uint64  `json:"early"`
	Threads      int     `json:"threads"`
	RSSMB        float64 `json:"rss_mb"`
	// Also: the conditions of the run.
	Ticks   int     `json:"ticks"`
	Slow    bool    `json:"slow"`
	Spin    bool    `json:"spin"` // the shared clock's waiter spins (SharedClockOptions.Spin)
	WorkUs  float64 `json:"work_us"`
	Seconds float64 `json:"seconds"`
	Load1   float64 `json:"load1"` // the machine's load average when the run began
	Runs    int     `json:"runs"`
}

// secondsFlags returns args with a plain number given to one of the duration flags names
// (-name N, -name=N, or with two dashes) taken as seconds: "-seconds 5" is "-seconds 5s".
func secondsFlags(args []string, names ...string) []string {
	args = slices.Clone(args)
	isNumber := func(v string) bool { _, err := strconv.ParseFloat(v, 64); return err == nil }
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		flagName, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !slices.Contains(names, flagName) {
			continue
		}
		switch {
		case hasValue && isNumber(value):
			args[i] = a + "s"
		case !hasValue && i+1 < len(args) && isNumber(args[i+1]):
			args[i+1] += "s"
			i++
		}
	}
	return args
}

func parseFlags(args []string, stderr io.Writer) (o options, err error) {
	defer func() {
		// A setting out of range is a bad flag too, for the exit status.
		var ue *cli.UsageError
		if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.As(err, &ue) {
			err = &cli.UsageError{Err: err}
		}
	}()
	fs := flag.NewFlagSet("serverbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	matches := fs.String("matches", "1000", "numbers of matches, comma-separated")
	fs.IntVar(&o.hz, "hz", 20, "ticks per second of every match")
	fs.DurationVar(&o.seconds, "seconds", 5*time.Second, "how long to measure each run, after -warmup (a number is seconds)")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "how long each run goes before it is measured (a number is seconds)")
	works := fs.String("work", "0,200us", "CPU work in every update (a spin), comma-separated: each is a row of the table")
	fs.BoolVar(&o.aligned, "aligned", false, "start every match at once, on one grid (default: at random over one period)")
	resolutions := fs.String("resolution", "1ms", "SharedClock resolutions for shared and pool, comma-separated")
	o.spins = []bool{false}
	fs.Var(spinFlag{&o.spins}, "spin", "make the SharedClock's waiter spin rather than sleep before each wake-up (SharedClockOptions.Spin) for shared and pool: true, false, or both as -spin=false,true")
	fs.BoolVar(&o.slow, "slow", false, "give one match a 30ms update every tick, and leave it out of the lateness")
	names := fs.String("strategies", "shared,pool,loops,ticker", "strategies to run, comma-separated: "+strategyNames())
	fs.IntVar(&o.runs, "runs", 1, "run everything this many times, interleaved, and report medians")
	fs.BoolVar(&o.json, "json", false, "write JSON rows instead of the table")
	fs.StringVar(&o.plotN, "plot-n", "", "draw late p99 and CPU against the number of matches to this PNG file (the first -work only)")
	fs.StringVar(&o.plotRes, "plot-res", "", "draw late p99 against CPU over the resolutions to this PNG file (the first -work only)")
	fs.StringVar(&o.save, "save", "", "also write the rows as JSON to this file")
	fs.StringVar(&o.load, "load", "", "print and plot the rows of a file written by -save or -json instead of running anything")
	fs.StringVar(&o.child, "child", "", "(internal) run one strategy in this process")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: serverbench [flags]\n\nRuns N matches at a tick rate under each strategy, each in its own process, and reports tick lateness and cost.\n\n"+columns+"\n\nflags:")
		fs.PrintDefaults()
	}
	args = secondsFlags(args, "seconds", "warmup")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, f := range strings.Split(*matches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1_000_000 {
			return o, fmt.Errorf("-matches: %q is not a number between 1 and 1000000", f)
		}
		o.matches = append(o.matches, n)
	}
	for _, f := range strings.Split(*works, ",") {
		f = strings.TrimSpace(f)
		if f == "0" {
			f = "0s"
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 || d > time.Second {
			return o, fmt.Errorf("-work: %q is not a duration between 0 and 1s such as 200us", f)
		}
		o.works = append(o.works, d)
	}
	for _, f := range strings.Split(*resolutions, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return o, fmt.Errorf("-resolution: %q is not a duration such as 500us", f)
		}
		if d == 0 {
			d = gameloop.DefaultResolution
		}
		o.resolutions = append(o.resolutions, d)
	}
	switch {
	case o.hz < 1 || o.hz > 10000:
		return o, fmt.Errorf("-hz: %d is not between 1 and 10000", o.hz)
	case o.seconds <= 0 || o.seconds > time.Hour:
		return o, fmt.Errorf("-seconds: %v is not between 0 and an hour", o.seconds)
	case o.warmup < 0:
		return o, fmt.Errorf("-warmup: %v is negative", o.warmup)
	case o.runs < 1:
		return o, fmt.Errorf("-runs: %d is less than 1", o.runs)
	}
	for _, n := range strings.Split(*names, ",") {
		s, ok := findStrategy(strings.TrimSpace(n))
		if !ok {
			return o, fmt.Errorf("-strategies: unknown strategy %q (known: %s)", n, strategyNames())
		}
		o.strategies = append(o.strategies, s)
	}
	return o, nil
}

func findStrategy(name string) (strategy, bool) {
	for _, s := range strategies() {
		if s.name == name {
			return s, true
		}
	}
	return strategy{}, false
}

func strategyNames() string {
	var names []string
	for _, s := range strategies() {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// usesResolution reports whether a strategy waits on a SharedClock.
func usesResolution(name string) bool { return name == "shared" || name == "pool" }

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.child != "" {
		s, ok := findStrategy(o.child)
		if !ok {
			return fmt.Errorf("-child: unknown strategy %q", o.child)
		}
		if len(o.spins) != 1 {
			return fmt.Errorf("-child: -spin %v is not one value", o.spins)
		}
		if len(o.works) != 1 {
			return fmt.Errorf("-child: -work %v is not one value", o.works)
		}
		o.matches, o.resolution, o.spin, o.work = o.matches[:1], o.resolutions[0], o.spins[0], o.works[0]
		o.childOptions.matches = o.matches[0]
		r, err := measure(s, o.childOptions)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		return json.NewEncoder(stdout).Encode(r)
	}

	rows, err := collect(o, stderr)
	if err != nil {
		return err
	}
	if o.save != "" {
		b, err := json.MarshalIndent(rows, "", "  ")
		if err == nil {
			err = os.WriteFile(o.save, append(b, '\n'), 0o644)
		}
		if err != nil {
			return fmt.Errorf("-save: %w", err)
		}
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fmt.Errorf("writing JSON: %w", err)
		}
	} else {
		printTable(stdout, rows, o)
	}
	// The charts draw the rows of the first -work only: a line per strategy.
	var plotRows []row
	for _, r := range rows {
		if r.WorkUs == rows[0].WorkUs {
			plotRows = append(plotRows, r)
		}
	}
	if o.plotN != "" {
		if err := plotByMatches(o.plotN, plotRows); err != nil {
			return fmt.Errorf("drawing %s: %w", o.plotN, err)
		}
	}
	if o.plotRes != "" {
		if err := plotByResolution(o.plotRes, plotRows); err != nil {
			return fmt.Errorf("drawing %s: %w", o.plotRes, err)
		}
	}
	return nil
}

// collect runs every strategy the options ask for, each in a process of its own, and returns
// the medians of its rows; with -load it reads them instead.
func collect(o options, stderr io.Writer) ([]row, error) {
	if o.load != "" {
		b, err := os.ReadFile(o.load)
		if err != nil {
			return nil, err
		}
		var rows []row
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, fmt.Errorf("-load %s: %w", o.load, err)
		}
		return rows, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to run it again: %w", err)
	}
	var rows []row
	for range o.runs {
		for _, n := range o.matches {
			for _, work := range o.works {
				for _, s := range o.strategies {
					res, spins := o.resolutions, o.spins
					if !usesResolution(s.name) {
						res, spins = res[:1], []bool{false}
					}
					for _, d := range res {
						for _, spin := range spins {
							co := o.childOptions
							co.matches, co.resolution, co.spin, co.work = n, d, spin, work
							if !o.json {
								fmt.Fprintf(stderr, "serverbench: %s, %d matches at %d Hz, work %v%s\n", s.name, n, o.hz, work, describe(s.name, co))
							}
							r, err := runChild(self, s.name, co, stderr)
							if err != nil {
								return nil, err
							}
							rows = append(rows, r)
						}
					}
				}
			}
		}
	}
	return medians(rows), nil
}

func describe(name string, co childOptions) string {
	var s string
	if usesResolution(name) {
		s += fmt.Sprintf(", resolution %v", co.resolution)
		if co.spin {
			s += ", spinning"
		}
	}
	if co.aligned {
		s += ", aligned"
	}
	if co.slow {
		s += ", one slow match"
	}
	return s
}

// runChild runs one strategy in a new process of this program and reads its row.
func runChild(self, name string, co childOptions, stderr io.Writer) (row, error) {
	args := []string{"-child", name,
		"-matches", strconv.Itoa(co.matches), "-hz", strconv.Itoa(co.hz),
		"-seconds", co.seconds.String(), "-warmup", co.warmup.String(), "-work", co.work.String(),
		"-resolution", co.resolution.String(),
		"-aligned=" + strconv.FormatBool(co.aligned), "-slow=" + strconv.FormatBool(co.slow),
		"-spin=" + strconv.FormatBool(co.spin)}
	var out bytes.Buffer
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return row{}, fmt.Errorf("%s with %d matches: %w", name, co.matches, err)
	}
	var r row
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return row{}, fmt.Errorf("%s with %d matches: reading its result %q: %w", name, co.matches, out.String(), err)
	}
	return r, nil
}

// measure runs one strategy in this process.
func measure(s strategy, o childOptions) (row, error) {
	skip := -1
	if o.slow {
		skip = 0
	}
	rec := newRecorder(o.matches, o.hz, o.warmup, o.seconds, skip)
	b := newBench(o, rec)
	load := loadAverage()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, b) }()

	// The window, by the bench's clock; the strategy's goroutines do the work meanwhile.
	time.Sleep(time.Until(rec.base.Add(rec.from)))
	cpu0, wall0 := processCPU(), time.Now()
	time.Sleep(time.Until(rec.base.Add(rec.to)))
	cpu1, wall := processCPU(), time.Since(wall0)
	threads, rss := procStatus()
	// Ticks due just before the end may begin a little after it.
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		return row{}, err
	}
	sum, err := rec.summarise()
	if err != nil {
		return row{}, err
	}
	// The recorder's arrays, which every strategy touches alike, are not the strategy's.
	rss = max(rss-float64(rec.bytes)/(1<<20), 0)
	r := row{
		Strategy: s.name, Matches: o.matches, Hz: o.hz, Aligned: o.aligned,
		CPUPercent: -1,
		LateP50us:  us(sum.p50), LateP99us: us(sum.p99), LateMaxUs: us(sum.worst),
		Dropped: sum.dropped, Early: sum.early, Threads: threads, RSSMB: rss,
		Ticks: int(sum.ticks), Slow: o.slow, WorkUs: us(o.work), Seconds: o.seconds.Seconds(), Load1: load, Runs: 1,
	}
	if usesResolution(s.name) {
		r.ResolutionUs, r.Spin = us(o.resolution), o.spin
	}
	if cpu0 >= 0 && cpu1 >= 0 {
		r.CPUPercent = 100 * float64(cpu1-cpu0) / float64(wall)
	}
	return r, nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// medians merges the rows of the same strategy and settings into one of their medians, field
// by field, keeping the order of first appearance.
func medians(rows []row) []row {
	type key struct {
		strategy string
		matches  int
		work     float64
		res      float64
		spin     bool
	}
	groups := map[key][]row{}
	var order []key
	for _, r := range rows {
		k := key{r.Strategy, r.Matches, r.WorkUs, r.ResolutionUs, r.Spin}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []row
	for _, k := range order {
		g := groups[k]
		m := g[0]
		m.Runs = len(g)
		f := func(get func(r row) float64) float64 {
			v := make([]float64, len(g))
			for i, r := range g {
				v[i] = get(r)
			}
			slices.Sort(v)
			if n := len(v); n%2 == 0 {
				return (v[n/2-1] + v[n/2]) / 2
			}
			return v[len(v)/2]
		}
		m.CPUPercent = f(func(r row) float64 { return r.CPUPercent })
		m.LateP50us = f(func(r row) float64 { return r.LateP50us })
		m.LateP99us = f(func(r row) float64 { return r.LateP99us })
		m.LateMaxUs = f(func(r row) float64 { return r.LateMaxUs })
		m.Dropped = uint64(f(func(r row) float64 { return float64(r.Dropped) }))
		m.Early = uint64(f(func(r row) float64 { return float64(r.Early) }))
		m.Threads = int(f(func(r row) float64 { return float64(r.Threads) }))
		m.RSSMB = f(func(r row) float64 { return r.RSSMB })
		m.Ticks = int(f(func(r row) float64 { return float64(r.Ticks) }))
		m.Load1 = f(func(r row) float64 { return r.Load1 })
		out = append(out, m)
	}
	return out
}

func printTable(w io.Writer, rows []row, o options) {
	if o.load != "" && len(rows) > 0 {
		// The settings of the rows, not of this command line.
		r := rows[0]
		o.hz, o.aligned, o.slow, o.runs = r.Hz, r.Aligned, r.Slow, r.Runs
		o.seconds = time.Duration(r.Seconds * float64(time.Second))
	}
	what := "spread over one period"
	if o.aligned {
		what = "aligned on one grid"
	}
	fmt.Fprintf(w, "tick lateness, %d Hz, starts %s, %v measured after %v, slow match %v, %s/%s, %d CPUs, GOMAXPROCS %d",
		o.hz, what, o.seconds, o.warmup, o.slow, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if o.runs > 1 {
		fmt.Fprintf(w, ", medians of %d runs", o.runs)
	}
	fmt.Fprint(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tmatches\twork µs\tresolution\tCPU %\tp50 µs\tp99 µs\tmax µs\tdropped\tearly\tthreads\tRSS MB\tload\t")
	for _, r := range rows {
		res := "-"
		if r.ResolutionUs > 0 {
			res = time.Duration(r.ResolutionUs * float64(time.Microsecond)).String()
			if r.Spin {
				res += " spin"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%.1f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%.0f\t%.2f\t\n",
			r.Strategy, r.Matches, r.WorkUs, res, r.CPUPercent, r.LateP50us, r.LateP99us, r.LateMaxUs, r.Dropped, r.Early, r.Threads, r.RSSMB, r.Load1)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", columns)
}

// procStatus returns the process's threads and peak resident memory in MB, from /proc; zeros
// where there is no /proc.
func procStatus() (threads int, rssMB float64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.Atoi(f[0])
		switch k {
		case "Threads":
			threads = n
		case "VmHWM":
			rssMB = float64(n) / 1024
		}
	}
	return threads, rssMB
}

// loadAverage returns the one-minute load average, or -1.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// spinFlag is -spin: a bool flag (-spin alone means true) that also takes a list, such as
// false,true, to run shared and pool both ways.
type spinFlag struct{ v *[]bool }

func (f spinFlag) String() string {
	if f.v == nil {
		return "false"
	}
	var s []string
	for _, b := range *f.v {
		s = append(s, strconv.FormatBool(b))
	}
	return strings.Join(s, ",")
}

func (f spinFlag) Set(v string) error {
	var bs []bool
	for _, p := range strings.Split(v, ",") {
		b, err := strconv.ParseBool(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("%q is not true, false or a list of them", p)
		}
		if !slices.Contains(bs, b) {
			bs = append(bs, b)
		}
	}
	*f.v = bs
	return nil
}

func (spinFlag) IsBoolFlag() bool { return true }
