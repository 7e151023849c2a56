// Command lobby is the signalling server where the peers of package netplay/rtc meet: a
// WebSocket server (package netplay/rtc/lobby) that puts peers in rooms by name, tells each
// member its index once its room is full, relays the SDP offers and answers and the ICE
// candidates between them, then steps aside: no game traffic goes through it.
//
//	go run ./cmd/lobby -listen 127.0.0.1:8089
//
// Peers connect to ws://ADDR/ws (-path). Prometheus metrics are at /metrics on the same
// listener, or on another with -metrics ADDR. -static DIR also serves the files of DIR at /,
// for a web page of peers to be loaded from the lobby's origin (pages of other origins may
// connect only if -origins lists them); a client that does not read a file for 30 s
// (-write-timeout) is cut off.
//
// With -relay the lobby also hands rooms to a relay when their players ask (POST
// /relay?room=NAME, before they join the room with a size of 3): the relay joins the room as
// its third member and the two players play through it (package netplay/relay/rooms), each
// finding it with netplay.FindRelay; the relay then decides every tick, and game traffic goes
// through this process.
//
// Clients are not trusted: every limit below is enforced, and a client that breaks the
// protocol or a limit is sent an error message saying why and closed; the server logs it. A
// client that does not read what it is sent is closed as slow once -max-queued bytes wait for
// it, or once -max-queued-total bytes wait for all the peers together. On SIGTERM or SIGINT
// it stops accepting, tells every peer still connected that it is shutting down, closes their
// sockets and exits.
//
// The metrics: lobby_peers (connected now), lobby_rooms (open now), lobby_rooms_waiting (open
// and not full), lobby_queued_bytes (waiting to be written to the peers now),
// lobby_joins_total, lobby_rooms_filled_total, lobby_rooms_connected_total (rooms whose every
// member connected with every other), lobby_signals_relayed_total, lobby_refused_total (peers
// closed, by reason: conns, rooms, roomfull, protocol, toobig, rate, timeout, slow, shutdown),
// and the Go runtime's and the process's own (go_goroutines, process_resident_memory_bytes,
// ...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/internal/wasmsite"
	"github.com/gameloop-go/gameloop/netplay/relay/rooms"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(cli.Report("lobby", run(ctx, os.Args[1:], os.Stderr, nil), os.Stderr))
}

// options are the command's flags, parsed.
type options struct {
	listen, path, metrics, static, origins string
	writeTimeout                           time.Duration
	relay                                  bool
	cfg                                    lobby.Config
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("lobby", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8089", "`address` to serve on")
	fs.StringVar(&o.path, "path", "/ws", "the WebSocket's path: a plain path, without wildcards")
	fs.StringVar(&o.metrics, "metrics", "", "serve /metrics on this `address` (by default on -listen's)")
	fs.StringVar(&o.static, "static", "", "also serve the files of `DIR` at /")
	fs.DurationVar(&o.writeTimeout, "write-timeout", wasmsite.DefaultWriteTimeout, "how long a write of an HTTP response (a -static file, the metrics) may wait for the client to read before it is cut off")
	fs.BoolVar(&o.relay, "relay", false, "also run a relay that joins a room when its players ask (POST /relay?room=NAME), for them to play through (netplay/relay/rooms)")
	fs.StringVar(&o.origins, "origins", "", "comma-separated origins (host patterns, such as *.example.com) of other sites whose pages may connect")
	fs.IntVar(&o.cfg.MaxRooms, "max-rooms", lobby.DefaultMaxRooms, "the most rooms open at once")
	fs.IntVar(&o.cfg.MaxRoomSize, "max-room-size", lobby.MaxRoomSize, "the largest room, 2 to 8 peers")
	fs.IntVar(&o.cfg.MaxConns, "max-conns", lobby.DefaultMaxConns, "the most peers connected at once")
	fs.IntVar(&o.cfg.MaxMessage, "max-message", lobby.DefaultMaxMessage, "the largest message a peer may send, in bytes")
	fs.Float64Var(&o.cfg.Rate, "rate", lobby.DefaultRate, "messages a second a peer may send, on average")
	fs.IntVar(&o.cfg.Burst, "burst", lobby.DefaultBurst, "messages a peer may send at once")
	fs.DurationVar(&o.cfg.WaitTimeout, "wait-timeout", lobby.DefaultWaitTimeout, "how long a peer may wait in a room that is not full")
	fs.DurationVar(&o.cfg.SignalTimeout, "signal-timeout", lobby.DefaultSignalTimeout, "how long a peer may take to join once connected, and to connect with its room once full")
	fs.IntVar(&o.cfg.MaxQueued, "max-queued", 0, fmt.Sprintf("the most bytes waiting to be written to one peer: one that does not read is closed as slow (0: %d, or 4 times -max-message if more)", lobby.DefaultMaxQueued))
	fs.IntVar(&o.cfg.MaxQueuedTotal, "max-queued-total", 0, fmt.Sprintf("the most bytes waiting to be written to all the peers together (0: %d, or -max-queued if more)", lobby.DefaultMaxQueuedTotal))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: lobby [flags]\n\nThe signalling server of netplay/rtc's peers: WebSocket at -path, /metrics; see go doc.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, &cli.UsageError{Err: fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if err := checkPath(o.path); err != nil {
		return o, &cli.UsageError{Err: fmt.Errorf("-path: %w", err)}
	}
	if o.writeTimeout <= 0 {
		return o, &cli.UsageError{Err: fmt.Errorf("-write-timeout %v is not positive", o.writeTimeout)}
	}
	if o.path == "/" && o.static != "" {
		return o, &cli.UsageError{Err: fmt.Errorf("-path: %q is where -static serves its files", o.path)}
	}
	if o.static != "" {
		if st, err := os.Stat(o.static); err != nil || !st.IsDir() {
			return o, &cli.UsageError{Err: fmt.Errorf("-static: %q is not a directory", o.static)}
		}
	}
	for _, p := range strings.Split(o.origins, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.cfg.OriginPatterns = append(o.cfg.OriginPatterns, p)
		}
	}
	return o, nil
}

// checkPath reports a -path that is not a plain path of its own: one that starts with /, has no
// wildcard ({...}), no character a URL would escape, no . or .. and no // (which ServeMux
// redirects), and is not /metrics.
func checkPath(p string) error {
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && p != "/" {
		clean += "/"
	}
	switch {
	case !strings.HasPrefix(p, "/") || p == "/metrics":
		return fmt.Errorf("%q is not a path of its own starting with /", p)
	case strings.ContainsAny(p, "{}") || (&url.URL{Path: p}).EscapedPath() != p || clean != p:
		return fmt.Errorf("%q is not a plain path, such as /ws: no wildcards ({}), no characters a URL escapes, no . or .. or //", p)
	}
	return nil
}

// routes returns the mux of the main listener: the lobby l at o.path, the files of -static at
// / (each write bounded by -write-timeout), and metrics unless they have a listener of their
// own. It returns an error for a path the mux refuses (which parseFlags' checks are meant to
// have refused already).
func (o options) routes(l, metrics, relay http.Handler) (mux *http.ServeMux, err error) {
	defer func() {
		// ServeMux panics on a pattern it refuses, with no other way to ask it.
		if r := recover(); r != nil {
			mux, err = nil, fmt.Errorf("-path: %q: %v", o.path, r)
		}
	}()
	mux = http.NewServeMux()
	mux.Handle(o.path, l)
	if o.static != "" {
		mux.Handle("/", wasmsite.WriteTimeouts(http.FileServer(http.Dir(o.static)), o.writeTimeout))
	}
	if o.metrics == "" {
		mux.Handle("/metrics", metrics)
	}
	if relay != nil {
		mux.Handle("/relay", relay)
	}
	return mux, nil
}

// server returns the server of h, with timeouts for clients that send or read too slowly (the
// peers' WebSockets, hijacked, are not bound by them).
func (o options) server(h http.Handler) *http.Server {
	return wasmsite.NewServer(h, o.writeTimeout)
}

// run serves until ctx ends, then shuts down. ready, if not nil, is told the addresses it
// listens on (the main one, then the metrics').
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr, metricsAddr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := log.New(stderr, "", 0)
	o.cfg.Logf = logger.Printf
	l, err := lobby.New(o.cfg)
	if err != nil {
		return &cli.UsageError{Err: err}
	}
	metrics := promhttp.HandlerFor(registry(l), promhttp.HandlerOpts{})
	var relay http.Handler
	if o.relay {
		clock := gameloop.NewSharedClock(nil)
		defer clock.Close()
		pool := gameloop.NewPool(clock, nil)
		defer pool.Close()
		relayCtx, stopRelay := context.WithCancel(context.Background())
		rr := rooms.New(relayCtx, pool, &rooms.Options{Path: o.path, Logf: log.New(stderr, "lobby: relay: ", 0).Printf})
		defer rr.Wait()
		defer stopRelay()
		relay = rr
	}
	mux, err := o.routes(l, metrics, relay)
	if err != nil {
		return &cli.UsageError{Err: err}
	}

	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	servers := []*http.Server{o.server(mux)}
	listeners := []net.Listener{ln}
	metricsAddr := ln.Addr().String()
	if o.metrics != "" {
		mln, err := net.Listen("tcp", o.metrics)
		if err != nil {
			return err
		}
		defer mln.Close()
		mmux := http.NewServeMux()
		mmux.Handle("/metrics", metrics)
		servers = append(servers, o.server(mmux))
		listeners = append(listeners, mln)
		metricsAddr = mln.Addr().String()
	}
	served := make(chan error, len(servers))
	for i, s := range servers {
		go func() { served <- s.Serve(listeners[i]) }()
	}
	fmt.Fprintf(stderr, "lobby: peers at ws://%s%s, metrics at http://%s/metrics\n", ln.Addr(), o.path, metricsAddr)
	if o.static != "" {
		fmt.Fprintf(stderr, "lobby: serving %s at http://%s/\n", o.static, ln.Addr())
	}
	if ready != nil {
		ready(ln.Addr().String(), metricsAddr)
	}

	var serveErr error
	remaining := len(servers)
	select {
	case <-ctx.Done():
	case err := <-served:
		remaining--
		serveErr = fmt.Errorf("serving: %w", err)
	}
	// Stop accepting, then close the peers' sockets (http.Server.Close leaves WebSockets, being
	// hijacked, to their handlers), within a few seconds.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := []error{serveErr}
	for _, s := range servers {
		s.Close()
	}
	errs = append(errs, l.Close(shutdownCtx))
	for range remaining {
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	st := l.Stats()
	fmt.Fprintf(stderr, "lobby: shut down: %d rooms connected, %d joins\n", st.Connected, st.Joins)
	return errors.Join(errs...)
}

// registry returns the lobby's metrics, and the Go runtime's and the process's.
func registry(l *lobby.Server) *prometheus.Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(statsCollector{l}, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// statsCollector reads the lobby's Stats once a scrape.
type statsCollector struct{ l *lobby.Server }

var (
	descPeers     = prometheus.NewDesc("lobby_peers", "Peers connected now.", nil, nil)
	descRooms     = prometheus.NewDesc("lobby_rooms", "Rooms open now (waiting for members or signalling).", nil, nil)
	descWaiting   = prometheus.NewDesc("lobby_rooms_waiting", "Rooms open now and not full.", nil, nil)
	descQueued    = prometheus.NewDesc("lobby_queued_bytes", "Bytes of messages waiting to be written to the peers now.", nil, nil)
	descJoins     = prometheus.NewDesc("lobby_joins_total", "Joins accepted.", nil, nil)
	descFilled    = prometheus.NewDesc("lobby_rooms_filled_total", "Rooms that filled.", nil, nil)
	descConnected = prometheus.NewDesc("lobby_rooms_connected_total", "Rooms whose every member connected with every other.", nil, nil)
	descRelayed   = prometheus.NewDesc("lobby_signals_relayed_total", "Signals (descriptions, candidates) relayed between members.", nil, nil)
	descRefused   = prometheus.NewDesc("lobby_refused_total", "Peers closed for breaking a limit or the protocol, by reason.", []string{"reason"}, nil)
)

func (statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPeers, descRooms, descWaiting, descQueued, descJoins, descFilled, descConnected, descRelayed, descRefused} {
		ch <- d
	}
}

func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.l.Stats()
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v uint64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(descPeers, float64(st.Peers))
	gauge(descRooms, float64(st.Rooms))
	gauge(descWaiting, float64(st.Waiting))
	gauge(descQueued, float64(st.Queued))
	counter(descJoins, st.Joins)
	counter(descFilled, st.Filled)
	counter(descConnected, st.Connected)
	counter(descRelayed, st.Relayed)
	for _, reason := range lobby.RefusalReasons() {
		ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(st.Refused[reason]), reason)
	}
}
