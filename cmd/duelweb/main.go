// Command duelweb serves the duel (cmd/duel) as a web page, with the lobby where its players
// meet: everything two people need to play in two browsers, or one in a browser and one in a
// terminal. At start-up it builds the page's game for WebAssembly (GOOS=js GOARCH=wasm, from
// ./cmd/duelweb/page, within the gameloop module), then serves the page, the game and the Go
// installation's wasm_exec.js at /, and the lobby (package netplay/rtc/lobby) at /ws:
//
//	go run ./cmd/duelweb -listen 127.0.0.1:8090
//	duelweb: open http://127.0.0.1:8090/?room=duel in two browsers to play, or one browser and
//	duelweb: go run ./cmd/duel -lobby ws://127.0.0.1:8090/ws -room duel
//
// Two pages that open the same room play each other over WebRTC data channels; the first to
// join plays the left paddle. A duel in a terminal joins a room with -lobby and -room. The
// page's query: room, lobby (another lobby's WebSocket URL), seed, delay and window (as duel's
// flags), bot=SEED and ticks=N (a bot plays until tick N is final, as duel -headless -bot does),
// and relay=1: the two pages of the room play through a relay that the server runs, which
// joins the room at the page's ask (POST /relay?room=NAME) as its third member and decides
// every tick (netplay/relay over WebRTC data channels): each page needs to reach only it.
//
// The server listens on 127.0.0.1:8090 (-listen) until interrupted (Ctrl-C, SIGTERM), and
// exits 0 then; it exits 1 if it cannot build the game or listen, 2 on a bad flag. A client
// that does not read a response for 30 s (-write-timeout) is cut off; one that reads slowly
// still gets the whole game. Peers
// behind NAT on different networks need STUN or TURN servers, which the page does not set:
// see docs/web-netplay.md.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/internal/wasmsite"
	"github.com/gameloop-go/gameloop/netplay/relay/rooms"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

//go:embed index.html
var indexHTML []byte

// options are the command's flags.
type options struct {
	listen       string
	writeTimeout time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("duelweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8090", "the `address` to serve the page and the lobby on")
	fs.DurationVar(&o.writeTimeout, "write-timeout", wasmsite.DefaultWriteTimeout, "how long a write of a response may wait for the client to read before it is cut off")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, &cli.UsageError{Err: fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if o.writeTimeout <= 0 {
		return o, &cli.UsageError{Err: fmt.Errorf("-write-timeout %v is not positive", o.writeTimeout)}
	}
	return o, nil
}

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return cli.Report("duelweb", err, stderr) // 0 for -h, 2 for a bad flag
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "duelweb:", err)
		return 1
	}
	return 0
}

// run builds the game, serves it and the lobby until ctx ends, and returns nil then.
func run(ctx context.Context, opts options, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "duelweb")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(stdout, "duelweb: building the game for the browser (GOOS=js GOARCH=wasm)...")
	s, err := build(ctx, dir)
	if err != nil {
		return err
	}
	l, err := lobby.New(lobby.Config{Logf: log.New(stderr, "duelweb: lobby: ", 0).Printf})
	if err != nil {
		return err
	}
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	relayCtx, stopRelay := context.WithCancel(ctx)
	defer stopRelay()
	rr := rooms.New(relayCtx, pool, &rooms.Options{Logf: log.New(stderr, "duelweb: relay: ", 0).Printf})
	defer rr.Wait()
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return err
	}
	srv := newServer(s, l, rr, opts)
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "duelweb: open http://%s/?room=duel in two browsers to play, or one browser and\n", addr)
	fmt.Fprintf(stdout, "duelweb: go run ./cmd/duel -lobby ws://%s/ws -room duel\n", addr)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var serveErr error
	select {
	case err := <-served:
		serveErr = fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	// Stop accepting, then close the peers' sockets (http.Server leaves WebSockets, being
	// hijacked, to their handlers).
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	errs := []error{serveErr, l.Close(shutdown)}
	if err := srv.Shutdown(shutdown); err != nil && serveErr == nil {
		errs = append(errs, fmt.Errorf("stopping the server: %w", err))
	}
	fmt.Fprintln(stdout, "duelweb: stopped")
	return errors.Join(errs...)
}

// newServer returns the server of s and the lobby l, with timeouts for clients that send or
// read too slowly (the lobby's WebSockets, hijacked, are not bound by them).
func newServer(s site, l, rr http.Handler, opts options) *http.Server {
	s.WriteTimeout = opts.writeTimeout
	return wasmsite.NewServer(s.handler(l, rr), opts.writeTimeout)
}

// site is what the server serves: the game, built, with its page and wasm_exec.js.
type site struct{ *wasmsite.Site }

// build builds the game into dir (see wasmsite.Build).
func build(ctx context.Context, dir string) (site, error) {
	s, err := wasmsite.Build(ctx, dir, "github.com/gameloop-go/gameloop/cmd/duelweb/page", "duel.wasm", "go run ./cmd/duelweb", indexHTML)
	return site{s}, err
}

// handler serves the page, the game, wasm_exec.js, at /ws the lobby l, and at /relay the
// relay rr that joins rooms when pages ask.
func (s site) handler(l, rr http.Handler) http.Handler {
	mux := http.NewServeMux()
	s.Handle(mux)
	mux.Handle("/ws", l)
	mux.Handle("/relay", rr)
	return mux
}
