// Command matchserver is an example game server: it runs many matches in one process, on one
// gameloop.Pool (no goroutine per match), each started and ended by a client over a small text
// protocol on TCP, records each match with the replay package, serves Prometheus metrics, and
// shuts down gracefully on SIGTERM.
//
//	go run ./cmd/matchserver -addr 127.0.0.1:7000 -metrics 127.0.0.1:9100 -record /tmp/matches
//
// The protocol, a line at a time:
//
//	START [seed]   start a match (an arena the seed decides); the server answers STARTED id hz
//	INPUT key      steer the match's player: left, right, up or down; applied before the next tick
//	END            end the match; the server answers ENDED id ticks checksum
//
// An INPUT that is taken gets no answer, so that a client can stream them; a command that
// cannot be carried out (a bad command or key, INPUT with no match or to a match that has
// ended, a START past the limit) gets a line ERR and why.
//
// A connection runs one match at a time, any number in turn; closing it ends its match. On
// SIGTERM or SIGINT the server stops accepting, ends every match (answering ENDED), closes
// every recording and exits. With -record DIR each match is recorded to DIR/match-ID.rec;
// replay it with -replay FILE, which prints whether it matched.
//
// Clients are not trusted: a START past -max-matches running matches is refused (ERR the
// server is full), as is an INPUT past -max-input inputs waiting for the match's next tick
// (ERR too much input), so that neither memory nor a recording grows without bound; a
// connection whose client does not read its answers is closed after -write-timeout, ending
// its match, so that it holds up neither the server nor its shutdown.
//
// The metrics, at /metrics: matchserver_matches (running now), matchserver_matches_started_total,
// matchserver_matches_ended_total, matchserver_ticks_total, matchserver_dropped_ticks_total,
// matchserver_dropped_seconds_total (game time dropped), matchserver_tick_lateness_seconds
// (a histogram of how late each update began) and matchserver_refused_total (commands refused,
// by reason: full or input).
//
// A server would rather catch up than drop time (its clients' clocks go on), so by default a
// match may run up to -catchup-ticks updates in one pass and account for up to -catchup-time of
// real time before anything is dropped.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "matchserver:", err)
		os.Exit(1)
	}
}

// options are the command's flags, parsed.
type options struct {
	addr, metricsAddr string
	hz                int
	record            string
	replay            string
	resolution        time.Duration
	catchupTicks      int
	catchupTime       time.Duration
	maxMatches        int
	maxInput          int
	writeTimeout      time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("matchserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:7000", "address to serve matches on")
	fs.StringVar(&o.metricsAddr, "metrics", "127.0.0.1:9100", "address to serve /metrics on")
	fs.IntVar(&o.hz, "hz", 20, "ticks per second of every match")
	fs.StringVar(&o.record, "record", "", "record every match to `DIR`/match-ID.rec")
	fs.StringVar(&o.replay, "replay", "", "replay a recording `FILE` and print whether it matched, instead of serving")
	fs.DurationVar(&o.resolution, "resolution", gameloop.DefaultResolution, "how far past a deadline a wake-up may gather others")
	fs.IntVar(&o.catchupTicks, "catchup-ticks", 100, "the most updates a match runs in one pass to catch up before it drops ticks")
	fs.DurationVar(&o.catchupTime, "catchup-time", 5*time.Second, "the most real time one pass accounts for before it drops ticks")
	fs.IntVar(&o.maxMatches, "max-matches", 10000, "the most matches running at once: a START past it is refused")
	fs.IntVar(&o.maxInput, "max-input", 64, "the most inputs a match holds for its next tick: an INPUT past it is refused")
	fs.DurationVar(&o.writeTimeout, "write-timeout", 10*time.Second, "how long an answer may wait for a client that does not read before its connection is closed")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: matchserver [flags]\n\nServes matches over TCP (START [seed], INPUT key, END), /metrics over HTTP; see go doc.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.hz < 1 || o.hz > gameloop.MaxRate:
		return o, fmt.Errorf("-hz: %d is not between 1 and %d", o.hz, gameloop.MaxRate)
	case o.catchupTicks < 1:
		return o, fmt.Errorf("-catchup-ticks: %d is less than 1", o.catchupTicks)
	case o.catchupTime <= 0:
		return o, fmt.Errorf("-catchup-time: %v is not positive", o.catchupTime)
	case o.maxMatches < 1:
		return o, fmt.Errorf("-max-matches: %d is less than 1", o.maxMatches)
	case o.maxInput < 1:
		return o, fmt.Errorf("-max-input: %d is less than 1", o.maxInput)
	case o.resolution < 0:
		return o, fmt.Errorf("-resolution: %v is negative", o.resolution)
	case o.writeTimeout <= 0:
		return o, fmt.Errorf("-write-timeout: %v is not positive", o.writeTimeout)
	}
	return o, nil
}

// run serves until ctx ends, then shuts down gracefully. ready, if not nil, is told the
// addresses it listens on once it does.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr, metricsAddr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.replay != "" {
		return replayFile(ctx, o.replay, stdout)
	}
	if o.record != "" {
		if err := os.MkdirAll(o.record, 0o755); err != nil {
			return fmt.Errorf("-record: %w", err)
		}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	mln, err := net.Listen("tcp", o.metricsAddr)
	if err != nil {
		return err
	}
	defer mln.Close()

	s := newServer(ctx, o)
	httpServer := &http.Server{Handler: s.metricsHandler(), ReadHeaderTimeout: 10 * time.Second}
	httpDone := make(chan error, 1)
	go func() { httpDone <- httpServer.Serve(mln) }()
	fmt.Fprintf(stderr, "matchserver: serving matches on %s, metrics on http://%s/metrics\n", ln.Addr(), mln.Addr())
	if ready != nil {
		ready(ln.Addr().String(), mln.Addr().String())
	}

	// Closing the listener ends the accept loop once ctx ends.
	stopAccept := context.AfterFunc(ctx, func() { ln.Close() })
	defer stopAccept()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			s.shutdown()
			return fmt.Errorf("accepting: %w", err)
		}
		s.conns.Add(1)
		go s.serve(conn)
	}
	// SIGTERM: every match ends with the context; each connection answers ENDED, closes its
	// recording and returns.
	s.shutdown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	if herr := <-httpDone; !errors.Is(herr, http.ErrServerClosed) {
		err = errors.Join(err, herr)
	}
	fmt.Fprintf(stderr, "matchserver: shut down after %d matches\n", s.started.Load())
	return err
}

// server runs the matches of every connection on one pool.
type server struct {
	ctx     context.Context
	o       options
	clock   *gameloop.SharedClock
	pool    *gameloop.Pool
	conns   sync.WaitGroup
	nextID  atomic.Uint64
	started atomic.Uint64
	// running counts the matches started and not yet ended, against -max-matches.
	running atomic.Int64

	metrics *metrics
}

func newServer(ctx context.Context, o options) *server {
	clock := gameloop.NewSharedClock(&gameloop.SharedClockOptions{Resolution: o.resolution})
	s := &server{ctx: ctx, o: o, clock: clock, pool: gameloop.NewPool(clock, nil)}
	s.metrics = newMetrics(s.pool)
	return s
}

// shutdown waits for every connection to end its match, then stops the pool and the clock.
func (s *server) shutdown() {
	s.conns.Wait()
	s.pool.Close()
	s.clock.Close()
}

// match is a match being played over a connection.
type match struct {
	id    uint64
	m     *gameloop.Match
	arena *arena
	rec   *replay.Recorder
	file  *os.File
	// queued counts the inputs pushed and not yet delivered, against -max-input.
	queued atomic.Int64
}

// serve runs the protocol on one connection until the client closes it or the server shuts
// down, ending its match either way.
func (s *server) serve(conn net.Conn) {
	defer s.conns.Done()
	defer conn.Close()
	// On shutdown the read below fails at once, and the match is ended and answered for.
	stop := context.AfterFunc(s.ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	out := bufio.NewWriter(conn)
	// A client that does not read its answers would block the write, and with it this
	// goroutine and the server's shutdown: after the write timeout the connection is given up.
	var broken error
	reply := func(format string, args ...any) {
		if broken != nil {
			return
		}
		conn.SetWriteDeadline(time.Now().Add(s.o.writeTimeout))
		fmt.Fprintf(out, format+"\n", args...)
		broken = out.Flush()
	}
	var cur *match
	sc := bufio.NewScanner(conn)
	for broken == nil && sc.Scan() {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch strings.ToUpper(cmd) {
		case "START":
			if cur != nil {
				reply("ERR a match is running: END it first")
				continue
			}
			seed, err := strconv.ParseUint(arg, 10, 64)
			if arg == "" {
				seed, err = uint64(time.Now().UnixNano()), nil
			}
			if err != nil {
				reply("ERR START takes a seed, a number: %v", err)
				continue
			}
			if cur, err = s.start(seed); err != nil {
				reply("ERR %v", err)
				continue
			}
			reply("STARTED %d %d", cur.id, s.o.hz)
		case "INPUT":
			key, ok := keys[strings.ToLower(arg)]
			if cur == nil || !ok {
				reply("ERR INPUT needs a running match and a key: left, right, up or down")
				continue
			}
			if cur.queued.Add(1) > int64(s.o.maxInput) {
				cur.queued.Add(-1)
				s.metrics.refused.WithLabelValues("input").Inc()
				reply("ERR too much input: %d inputs wait for the next tick", s.o.maxInput)
				continue
			}
			if !cur.m.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: key}) {
				cur.queued.Add(-1)
				reply("ERR the match has ended: END it")
			}
		case "END":
			if cur == nil {
				reply("ERR no match is running")
				continue
			}
			reply("%s", s.end(cur))
			cur = nil
		default:
			reply("ERR unknown command %q: START [seed], INPUT key or END", cmd)
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		reply("ERR a line is longer than %d bytes", bufio.MaxScanTokenSize)
	}
	if cur != nil {
		reply("%s", s.end(cur))
	}
}

var keys = map[string]gameloop.Key{
	"left": gameloop.KeyLeft, "right": gameloop.KeyRight, "up": gameloop.KeyUp, "down": gameloop.KeyDown,
}

// errFull is why a START is refused when -max-matches are running.
var errFull = errors.New("the server is full")

// start starts a match of the arena seed decides, recorded if the server records.
func (s *server) start(seed uint64) (_ *match, err error) {
	if s.running.Add(1) > int64(s.o.maxMatches) {
		s.running.Add(-1)
		s.metrics.refused.WithLabelValues("full").Inc()
		return nil, fmt.Errorf("%w: %d matches are running", errFull, s.o.maxMatches)
	}
	defer func() {
		if err != nil {
			s.running.Add(-1)
		}
	}()
	mt := &match{id: s.nextID.Add(1), arena: newArena(seed)}
	game := gameloop.Game(mt.arena)
	if s.o.record != "" {
		f, err := os.Create(filepath.Join(s.o.record, fmt.Sprintf("match-%d.rec", mt.id)))
		if err != nil {
			return nil, fmt.Errorf("recording: %w", err)
		}
		rec, err := replay.NewRecorder(f, s.o.hz, &replay.RecordOptions{Name: "matchserver", Meta: mt.arena.meta()})
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("recording: %w", err)
		}
		mt.file, mt.rec, game = f, rec, rec.Game(game)
	}
	timed := &timedGame{game: game, clock: s.clock, metrics: s.metrics, queued: &mt.queued}
	timed.input, _ = game.(gameloop.InputHandler)
	m, err := s.pool.NewMatch(s.ctx, timed, gameloop.Config{
		TickRate:         s.o.hz,
		MaxTicksPerFrame: s.o.catchupTicks,
		MaxFrameTime:     s.o.catchupTime,
	})
	if err != nil {
		if mt.file != nil {
			mt.file.Close()
		}
		return nil, err
	}
	timed.match, mt.m = m, m
	s.metrics.begun(m)
	m.Start()
	s.started.Add(1)
	s.metrics.started.Inc()
	return mt, nil
}

// end ends a match, closes its recording and returns the line that reports it.
func (s *server) end(mt *match) string {
	mt.m.Stop()
	err := mt.m.Wait()
	if errors.Is(err, gameloop.ErrStopped) || errors.Is(err, context.Canceled) {
		err = nil
	}
	if mt.rec != nil {
		err = errors.Join(err, mt.rec.Close(), mt.file.Close())
	}
	s.metrics.ended(mt.m)
	s.running.Add(-1)
	if err != nil {
		return fmt.Sprintf("ERR match %d: %v", mt.id, err)
	}
	// The match has ended: its arena is no longer touched by the pool.
	return fmt.Sprintf("ENDED %d %d %016x", mt.id, mt.m.Stats().Ticks, mt.arena.Checksum())
}

// timedGame passes a match's input and updates on to its game, and observes how late each
// update began.
type timedGame struct {
	game    gameloop.Game
	input   gameloop.InputHandler
	clock   *gameloop.SharedClock
	match   *gameloop.Match
	metrics *metrics
	queued  *atomic.Int64
}

func (g *timedGame) Input(in *gameloop.Input) error {
	g.queued.Add(-1)
	if g.input == nil {
		return nil
	}
	return g.input.Input(in)
}

func (g *timedGame) Update(u *gameloop.Update) error {
	g.metrics.lateness.Observe((g.clock.Now() - g.match.Due()).Seconds())
	g.metrics.ticks.Inc()
	return g.game.Update(u)
}

// replayFile replays a recording into a new arena and prints the result.
func replayFile(ctx context.Context, path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := replayRecording(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %v\n", path, res)
	if !res.Matched() {
		return errors.New("the replay did not match")
	}
	return nil
}

// replayRecording replays a recording of the server into the arena its meta starts.
func replayRecording(ctx context.Context, r io.Reader) (*replay.Result, error) {
	rec, err := replay.Decode(r)
	if err != nil {
		return nil, err
	}
	a, err := arenaFromMeta(rec.Meta)
	if err != nil {
		return nil, fmt.Errorf("not a recording of this server: %w", err)
	}
	return rec.Play(ctx, a, nil)
}

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	registry *prometheus.Registry
	started  prometheus.Counter
	refused  *prometheus.CounterVec
	ticks    prometheus.Counter
	lateness prometheus.Histogram

	mu           sync.Mutex
	live         map[*gameloop.Match]struct{}
	endedCount   uint64
	droppedTicks uint64
	droppedTime  time.Duration
}

func newMetrics(pool *gameloop.Pool) *metrics {
	m := &metrics{registry: prometheus.NewRegistry(), live: map[*gameloop.Match]struct{}{}}
	m.started = prometheus.NewCounter(prometheus.CounterOpts{Name: "matchserver_matches_started_total", Help: "Matches started."})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "matchserver_refused_total",
		Help: "Commands refused to protect the server: START when -max-matches are running (reason full), INPUT past -max-input (reason input).",
	}, []string{"reason"})
	m.refused.WithLabelValues("full")
	m.refused.WithLabelValues("input")
	m.ticks = prometheus.NewCounter(prometheus.CounterOpts{Name: "matchserver_ticks_total", Help: "Updates run, over all matches."})
	m.lateness = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "matchserver_tick_lateness_seconds",
		Help:    "How late each update began: when it began minus when it was due on its match's grid.",
		Buckets: prometheus.ExponentialBuckets(50e-6, 2, 12), // 50 µs to 100 ms
	})
	m.registry.MustRegister(m.started, m.refused, m.ticks, m.lateness,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "matchserver_matches", Help: "Matches running now."},
			func() float64 { return float64(pool.Len()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "matchserver_matches_ended_total", Help: "Matches ended."},
			func() float64 { return float64(m.snapshot().endedCount) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "matchserver_dropped_ticks_total", Help: "Ticks owed but never run, over all matches."},
			func() float64 { return float64(m.snapshot().droppedTicks) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "matchserver_dropped_seconds_total", Help: "Game time dropped, over all matches."},
			func() float64 { return m.snapshot().droppedTime.Seconds() }),
	)
	return m
}

// begun adds a match to those whose drops are counted.
func (m *metrics) begun(match *gameloop.Match) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.live[match] = struct{}{}
}

// ended adds an ended match's figures to the totals.
func (m *metrics) ended(match *gameloop.Match) {
	st := match.Stats()
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.live, match)
	m.endedCount++
	m.droppedTicks += st.DroppedTicks
	m.droppedTime += st.DroppedTime
}

// figures are the totals of the matches, ended and running.
type figures struct {
	endedCount, droppedTicks uint64
	droppedTime              time.Duration
}

func (m *metrics) snapshot() figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := figures{m.endedCount, m.droppedTicks, m.droppedTime}
	for match := range m.live {
		st := match.Stats()
		f.droppedTicks += st.DroppedTicks
		f.droppedTime += st.DroppedTime
	}
	return f
}

func (s *server) metricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	return mux
}
