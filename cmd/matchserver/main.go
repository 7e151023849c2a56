// Command matchserver is an example game server: it runs many matches in one process, on one
// gameloop.Pool (no goroutine per match), each started and ended by a client over a small text
// protocol on TCP, records each match with the replay package, serves Prometheus metrics, and
// shuts down gracefully on SIGTERM.
//
//	go build -o /tmp/matchserver ./cmd/matchserver
//	/tmp/matchserver -addr 127.0.0.1:7000 -metrics 127.0.0.1:9100 -record /tmp/matches
//
// (Signal the server itself, as a service manager does: a SIGTERM to `go run` ends the go
// command and leaves the server it built running.)
//
// The protocol, a line at a time:
//
//	START [seed]   start a match (an arena the seed decides); the server answers STARTED id hz
//	INPUT key      steer the match's player: left, right, up or down; applied before the next tick
//	END            end the match; the server answers ENDED id ticks checksum
//
// Commands and keys may be in any case. An INPUT that is taken gets no answer, so that a
// client can stream them; a line that cannot be carried out (a bad command or key, INPUT with
// no match or to a match that has ended, a START past the limit) gets a line ERR and why, which
// repeats at most 16 bytes of the client's text, made printable.
// A line may be at most 256 bytes long.
//
// A connection runs one match at a time, any number in turn; closing it ends its match. On
// SIGTERM or SIGINT the server stops accepting, ends every match (answering ENDED), closes
// every recording and exits. With -record DIR each match is recorded to DIR/match-ID.rec;
// replay it with -replay FILE, which prints whether it matched (reading the recording as it
// replays it, in bounded memory).
//
// Clients are not trusted: a START past -max-matches running matches is refused (ERR the
// server is full), as is an INPUT past -max-input inputs waiting for the match's next tick
// (ERR too much input), so that neither memory nor a recording grows without bound. A
// connection past -max-conns is answered ERR and closed; a connection that sends nothing for
// -idle-timeout, sends a line too long, or does not read its answers for -write-timeout is
// closed, ending its match, and the server logs why (a connection to /metrics idle for
// -idle-timeout is closed too). A client that does not read holds up
// shutdown for a second at most. If accepting fails (the process is out of file descriptors,
// say), the server logs it and tries again after a pause of 5 ms, doubling to 1 s, serving the
// connections it has meanwhile. A START whose recording cannot be written is refused, and
// leaves no file behind.
//
// The metrics, at /metrics: matchserver_matches (running now), matchserver_matches_started_total,
// matchserver_matches_ended_total, matchserver_ticks_total, matchserver_dropped_ticks_total,
// matchserver_dropped_seconds_total (game time dropped), matchserver_tick_lateness_seconds
// (a histogram of how late each update began) and matchserver_refused_total (commands refused,
// by reason: full, input, conns or draining).
//
// On Agones (where AGONES_SDK_HTTP_PORT is set, or with -agones URL) the server tells the SDK
// server beside it that it is Ready once it listens, pings its health, keeps the GameServer's
// rooms counter (-rooms-counter) to the matches running, and calls Shutdown as it exits. With
// -drain D, SIGTERM first stops it taking connections and STARTs (ERR, refused as "draining")
// and lets the matches running end for up to D (docs/agones.md).
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
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/agones"
	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/replay"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(exitStatus(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil), os.Stderr))
}

// exitStatus prints err, unless the flag package has, and returns the exit status for it: 0
// for none or -h, 2 for a bad flag (as the flag package's ExitOnError), 1 for anything else.
func exitStatus(err error, stderr io.Writer) int { return cli.Report("matchserver", err, stderr) }

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
	maxConns          int
	writeTimeout      time.Duration
	idleTimeout       time.Duration
	drain             time.Duration
	agonesURL         string
	roomsCounter      string
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
	fs.IntVar(&o.maxConns, "max-conns", 20000, "the most connections open at once: one past it is answered ERR and closed")
	fs.DurationVar(&o.writeTimeout, "write-timeout", 10*time.Second, "how long an answer may wait for a client that does not read before its connection is closed")
	fs.DurationVar(&o.drain, "drain", 0, "on SIGTERM, refuse new matches and let those running end for up to this long before ending them")
	fs.StringVar(&o.agonesURL, "agones", "", "the `URL` of Agones' SDK server (http://HOST:PORT); by default AGONES_SDK_HTTP_PORT's on localhost, where Agones sets it, else none")
	fs.StringVar(&o.roomsCounter, "rooms-counter", "rooms", "with Agones, the GameServer's counter of the matches running (empty for none)")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", 5*time.Minute, "how long a client may send nothing before its connection is closed, ending its match")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: matchserver [flags]\n\nServes matches over TCP (START [seed], INPUT key, END), /metrics over HTTP; see go doc.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if err := checkFlags(o, fs.Args()); err != nil {
		return o, &cli.UsageError{Err: err}
	}
	return o, nil
}

// checkFlags reports a setting out of range, naming its flag, or arguments after the flags.
func checkFlags(o options, args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q", args)
	case o.hz < 1 || o.hz > gameloop.MaxRate:
		return fmt.Errorf("-hz: %d is not between 1 and %d", o.hz, gameloop.MaxRate)
	case o.catchupTicks < 1:
		return fmt.Errorf("-catchup-ticks: %d is less than 1", o.catchupTicks)
	case o.catchupTime <= 0:
		return fmt.Errorf("-catchup-time: %v is not positive", o.catchupTime)
	case o.maxMatches < 1:
		return fmt.Errorf("-max-matches: %d is less than 1", o.maxMatches)
	case o.maxInput < 1:
		return fmt.Errorf("-max-input: %d is less than 1", o.maxInput)
	case o.maxConns < 1:
		return fmt.Errorf("-max-conns: %d is less than 1", o.maxConns)
	case o.resolution < 0:
		return fmt.Errorf("-resolution: %v is negative", o.resolution)
	case o.writeTimeout <= 0:
		return fmt.Errorf("-write-timeout: %v is not positive", o.writeTimeout)
	case o.idleTimeout <= 0:
		return fmt.Errorf("-idle-timeout: %v is not positive", o.idleTimeout)
	case o.drain < 0:
		return fmt.Errorf("-drain: %v is negative", o.drain)
	}
	return nil
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

	sdk, err := agones.Locate(o.agonesURL)
	if err != nil {
		return err
	}
	// The matches run until the server's own context ends: on SIGTERM (ctx) it first drains.
	srvCtx, endMatches := context.WithCancel(context.Background())
	defer endMatches()
	logger := log.New(stderr, "matchserver: ", 0)
	s := newServer(srvCtx, o, logger)
	s.stop = ctx
	// The metrics' clients are not trusted either: a connection kept alive and idle is closed
	// after -idle-timeout, so that idle connections cannot use up the process's descriptors.
	httpServer := &http.Server{Handler: s.metricsHandler(), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: o.idleTimeout, WriteTimeout: time.Minute}
	httpDone := make(chan error, 1)
	go func() { httpDone <- httpServer.Serve(mln) }()
	fmt.Fprintf(stderr, "matchserver: serving matches on %s, metrics on http://%s/metrics\n", ln.Addr(), mln.Addr())
	var fleet *agones.Link
	if sdk != nil {
		fleet = agones.Start(sdk, o.roomsCounter, s.running.Load, logger.Printf)
		defer fleet.Stop()
	}
	// shutdownFleet tells Agones the game server is done, once its matches have ended.
	shutdownFleet := func() {
		if fleet == nil {
			return
		}
		actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if ferr := fleet.Shutdown(actx); ferr != nil {
			logger.Printf("agones: Shutdown: %v", ferr)
		}
	}
	if ready != nil {
		ready(ln.Addr().String(), mln.Addr().String())
	}

	// Closing the listener ends the accept loop once ctx ends.
	stopAccept := context.AfterFunc(ctx, func() { ln.Close() })
	defer stopAccept()
	if err := s.accept(ln); err != nil {
		endMatches()
		s.shutdown()
		shutdownFleet()
		return err
	}
	if o.drain > 0 {
		s.drain(o.drain)
	}
	endMatches()
	// SIGTERM: every match ends with the context; each connection answers ENDED, closes its
	// recording and returns.
	s.shutdown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	if herr := <-httpDone; !errors.Is(herr, http.ErrServerClosed) {
		err = errors.Join(err, herr)
	}
	shutdownFleet()
	fmt.Fprintf(stderr, "matchserver: shut down after %d matches\n", s.started.Load())
	return err
}

// Backing off after a failed accept, as net/http's Server.Serve does: a process out of file
// descriptors (EMFILE) gets them back as connections close.
const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// shutdownGrace bounds how long an answer may wait for a client once the server is shutting
// down (or -write-timeout, if shorter): a client that does not read holds shutdown up no longer.
const shutdownGrace = time.Second

// accept serves each connection ln accepts, until the server stops (nil) or ln fails for good. A failed accept (out of file descriptors, say) is logged and retried after a back
// off of 5 ms, doubling to 1 s: the server goes on serving the connections it has.
func (s *server) accept(ln net.Listener) error {
	var backoff time.Duration
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.stop.Err() != nil || s.ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accepting: %w", err)
			}
			backoff = min(max(2*backoff, minAcceptBackoff), maxAcceptBackoff)
			s.log.Printf("accepting: %v; retrying in %v", err, backoff)
			select {
			case <-s.stop.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if s.open.Add(1) > int64(s.o.maxConns) {
			s.open.Add(-1)
			s.metrics.refused.WithLabelValues("conns").Inc()
			go s.refuse(conn)
			continue
		}
		s.conns.Add(1)
		go s.serve(conn)
	}
}

// refuse answers a connection past -max-conns and closes it.
func (s *server) refuse(conn net.Conn) {
	conn.SetWriteDeadline(time.Now().Add(min(s.o.writeTimeout, shutdownGrace)))
	fmt.Fprintf(conn, "ERR the server is full: %d connections are open\n", s.o.maxConns)
	conn.Close()
}

// server runs the matches of every connection on one pool.
type server struct {
	ctx     context.Context // ends the matches
	stop    context.Context // stops accepting (SIGTERM): the matches drain, then ctx ends
	o       options
	log     *log.Logger
	clock   *gameloop.SharedClock
	pool    *gameloop.Pool
	conns   sync.WaitGroup
	open    atomic.Int64 // connections being served, against -max-conns
	nextID  atomic.Uint64
	started atomic.Uint64
	// running counts the matches started and not yet ended, against -max-matches.
	running atomic.Int64
	// draining is set on SIGTERM with -drain: no new match.
	draining atomic.Bool

	metrics *metrics
}

func newServer(ctx context.Context, o options, logger *log.Logger) *server {
	clock := gameloop.NewSharedClock(&gameloop.SharedClockOptions{Resolution: o.resolution})
	s := &server{ctx: ctx, stop: ctx, o: o, log: logger, clock: clock, pool: gameloop.NewPool(clock, nil)}
	s.metrics = newMetrics(s.pool)
	return s
}

// drain refuses new matches and waits for those running to end, for up to d.
func (s *server) drain(d time.Duration) {
	s.draining.Store(true)
	s.log.Printf("draining: taking no new match, ending those left in %v", d)
	deadline := time.Now().Add(d)
	for s.running.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.running.Load(); n > 0 {
		s.log.Printf("drained for %v: ending the %d matches left", d, n)
	}
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
	// queued counts the inputs pushed and not yet followed by a tick, against -max-input:
	// an input handed to the game in a pass that runs no update (the match's first pass, or
	// one run early) still waits for the next tick, so it counts until that tick runs.
	queued atomic.Int64
}

// serve runs the protocol on one connection until the client closes it, sends nothing for
// -idle-timeout, sends a line too long, does not read its answers for -write-timeout, or the
// server shuts down, ending its match in every case. The server logs why it closed a
// connection, when it was the client's doing.
func (s *server) serve(conn net.Conn) {
	defer s.conns.Done()
	defer s.open.Add(-1)
	defer conn.Close()
	grace := min(s.o.writeTimeout, shutdownGrace)
	// On shutdown the read below fails at once, and the match is ended and answered for; an
	// answer then waits for the client for grace at most.
	stop := context.AfterFunc(s.ctx, func() {
		conn.SetReadDeadline(time.Now())
		conn.SetWriteDeadline(time.Now().Add(grace))
	})
	defer stop()
	// deadline sets a deadline d from now, or, once the server is shutting down, a short one:
	// ctx is checked after setting it, as the AfterFunc above may have run just before, and
	// been undone.
	deadline := func(set func(time.Time) error, d, shutdown time.Duration) {
		set(time.Now().Add(d))
		if s.ctx.Err() != nil {
			set(time.Now().Add(shutdown))
		}
	}
	out := bufio.NewWriter(conn)
	// A client that does not read its answers would block the write, and with it this
	// goroutine and the server's shutdown: after the write timeout the connection is given up.
	var broken error
	reply := func(format string, args ...any) {
		if broken != nil {
			return
		}
		deadline(conn.SetWriteDeadline, s.o.writeTimeout, grace)
		fmt.Fprintf(out, format+"\n", args...)
		var ne net.Error
		if broken = out.Flush(); broken != nil && s.ctx.Err() == nil && errors.As(broken, &ne) && ne.Timeout() {
			s.log.Printf("closed %v: it did not read its answers for %v", conn.RemoteAddr(), s.o.writeTimeout)
		}
	}
	var cur *match
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 0, maxLine), maxLine)
	for broken == nil && s.ctx.Err() == nil {
		deadline(conn.SetReadDeadline, s.o.idleTimeout, 0)
		if !sc.Scan() {
			break
		}
		c, err := parseLine(sc.Text())
		if err != nil {
			reply("ERR %v", err)
			continue
		}
		switch c.verb {
		case verbStart:
			if cur != nil {
				reply("ERR a match is running: END it first")
				continue
			}
			seed := c.seed
			if !c.hasSeed {
				seed = uint64(time.Now().UnixNano())
			}
			if cur, err = s.start(seed); err != nil {
				reply("ERR %v", err)
				continue
			}
			reply("STARTED %d %d", cur.id, s.o.hz)
		case verbInput:
			if cur == nil {
				reply("ERR INPUT needs a running match: START one")
				continue
			}
			if cur.queued.Add(1) > int64(s.o.maxInput) {
				cur.queued.Add(-1)
				s.metrics.refused.WithLabelValues("input").Inc()
				reply("ERR too much input: %d inputs wait for the next tick", s.o.maxInput)
				continue
			}
			if !cur.m.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: keys[c.key]}) {
				cur.queued.Add(-1)
				reply("ERR the match has ended: END it")
			}
		case verbEnd:
			if cur == nil {
				reply("ERR no match is running")
				continue
			}
			reply("%s", s.end(cur))
			cur = nil
		}
	}
	var ne net.Error
	switch err := sc.Err(); {
	case s.ctx.Err() != nil || broken != nil:
	case errors.Is(err, bufio.ErrTooLong):
		s.log.Printf("closed %v: it sent a line longer than %d bytes", conn.RemoteAddr(), maxLine)
		reply("ERR a line is longer than %d bytes: closing", maxLine)
	case errors.As(err, &ne) && ne.Timeout():
		s.log.Printf("closed %v: it sent nothing for %v", conn.RemoteAddr(), s.o.idleTimeout)
		reply("ERR nothing came for %v: closing", s.o.idleTimeout)
	}
	if cur != nil {
		reply("%s", s.end(cur))
	}
}

// errDraining is why a START is refused once the server drains.
var errDraining = errors.New("the server is shutting down: start the match on another")

// errFull is why a START is refused when -max-matches are running.
var errFull = errors.New("the server is full")

// errRecording is why a START is refused when its recording cannot be written; the server
// logs why, and tells the client no more (not its paths, nor the system's errors).
var errRecording = errors.New("the match could not be recorded")

// start starts a match of the arena seed decides, recorded if the server records.
func (s *server) start(seed uint64) (_ *match, err error) {
	// Counted before draining is looked at: a drain that begins meanwhile either sees this
	// match running and waits for it, or is seen here and the match refused.
	n := s.running.Add(1)
	if s.draining.Load() {
		s.running.Add(-1)
		s.metrics.refused.WithLabelValues("draining").Inc()
		return nil, errDraining
	}
	if n > int64(s.o.maxMatches) {
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
		path := filepath.Join(s.o.record, fmt.Sprintf("match-%d.rec", mt.id))
		f, err := os.Create(path)
		if err != nil {
			s.log.Printf("match %d: recording: %v", mt.id, err)
			return nil, errRecording
		}
		rec, err := replay.NewRecorder(f, s.o.hz, &replay.RecordOptions{Name: "matchserver", Meta: mt.arena.meta()})
		if err != nil {
			// A full disk, say: no recording is left behind, not even an empty one.
			s.log.Printf("match %d: recording: %v", mt.id, errors.Join(err, f.Close(), os.Remove(path)))
			return nil, errRecording
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
			err = errors.Join(err, mt.file.Close(), os.Remove(mt.file.Name()))
		}
		s.log.Printf("match %d: %v", mt.id, err)
		return nil, errors.New("the match could not start")
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
		s.log.Printf("match %d: %v", mt.id, err)
		return fmt.Sprintf("ERR match %d ended with an error", mt.id)
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
	// delivered counts the inputs handed to the game since its last update; only the
	// match's pass touches it.
	delivered int64
}

func (g *timedGame) Input(in *gameloop.Input) error {
	g.delivered++
	if g.input == nil {
		return nil
	}
	return g.input.Input(in)
}

func (g *timedGame) Update(u *gameloop.Update) error {
	g.metrics.lateness.Observe((g.clock.Now() - g.match.Due()).Seconds())
	g.metrics.ticks.Inc()
	if g.delivered > 0 {
		g.queued.Add(-g.delivered)
		g.delivered = 0
	}
	return g.game.Update(u)
}

// replayFile replays a recording into a new arena and prints the result.
func replayFile(ctx context.Context, path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := replayRecording(ctx, bufio.NewReader(f))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %v\n", path, res)
	if !res.Matched() {
		return errors.New("the replay did not match")
	}
	return nil
}

// replayRecording replays a recording of the server into the arena its meta starts. It reads
// the recording as it replays it (replay.Open), so a recording of any size replays in bounded
// memory.
func replayRecording(ctx context.Context, r io.Reader) (*replay.Result, error) {
	stream, err := replay.Open(r)
	if err != nil {
		return nil, err
	}
	a, err := arenaFromMeta(stream.Meta)
	if err != nil {
		return nil, fmt.Errorf("not a recording of this server: %w", err)
	}
	return stream.Play(ctx, a, nil)
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
		Help: "Commands refused to protect the server: START when -max-matches are running (reason full), INPUT past -max-input (reason input), a connection past -max-conns (reason conns).",
	}, []string{"reason"})
	m.refused.WithLabelValues("full")
	m.refused.WithLabelValues("input")
	m.refused.WithLabelValues("conns")
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
