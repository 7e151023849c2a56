// Command relay runs relayed netplay matches (package netplay/relay): players' sessions with
// netplay.Config.Relay set send it their inputs, and it decides, on its own clock, which input
// of each player counts for each tick, and sends every player and spectator everyone's.
//
//	go run ./cmd/relay -listen 127.0.0.1:7400 -metrics 127.0.0.1:7401 -open
//
// Players join matches by name. An open relay (-open) lets anyone create and join any match:
// for local play and tests. A relay given keys (-keys FILE) admits only players holding a
// token made with one of them for the match and the slot they join (relay.MakeToken, or this
// command's -token): whoever creates matches (a matchmaker, cmd/lobby) shares a key with the
// relay and hands each player its token. A key file holds one key a line, "ID HEX", ID 0 to
// 255 and HEX at least 16 bytes of key in hexadecimal; "-genkey FILE" adds a new one. Keys
// rotate by adding the new one (under the next id), then removing the old once its tokens have
// expired.
//
//	go run ./cmd/relay -genkey relay.keys
//	go run ./cmd/relay -keys relay.keys -token -match duel-42 -slot 0 -expiry 1h
//
// On SIGTERM or SIGINT the relay ends every match, telling its players (their sessions end
// with netplay.ErrEnded) and closing its recording, and exits. (Signal the relay itself, as a
// service manager does: a SIGTERM to `go run` ends the go command and leaves the relay it
// built running.)
//
// With -min-players N a match starts once N players have joined, and takes the others late,
// into the slots still free (each re-simulates the match from its start, within the minute of
// ticks the relay keeps); by default a match starts full and takes nobody late.
//
// With -snapshot-every TICKS each match gathers a state snapshot that often from its players
// whose sessions take them (netplay.Config.Snapshots): a player joining late or coming back
// starts from the latest, and can, even once the relay no longer keeps the match's first tick
// (-history).
//
// With -record DIR each match's confirmed inputs are recorded to DIR/NAME-TIME.rec (package
// replay's format, the same as a player's netplay.Config.Record, with the checksums players
// reported): any match replays, and a desync report from a player names the match and the
// tick that the recording settles.
//
// The -metrics address serves, over HTTP (bind it to a private address):
//
//	GET    /metrics                  Prometheus metrics, prefixed relay_ (see relay.WriteMetrics)
//	GET    /matches                  the matches running, as JSON
//	DELETE /matches/NAME             end a match
//	POST   /matches/NAME/drop?slot=N drop a player
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/agones"
	"github.com/gameloop-go/gameloop/internal/cli"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/relay"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(cli.Report("relay", run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil), os.Stderr))
}

// options are the command's flags, parsed.
type options struct {
	listen, metrics string
	open            bool
	keys            string
	record          string
	maxMatches      int
	maxSpectators   int
	packetRate      int
	timeout         time.Duration
	spectatorDelay  int
	atDeadline      bool
	minPlayers      int
	snapshotEvery   int
	maxSnapshot     int
	history         int
	drain           time.Duration
	agonesURL       string
	roomsCounter    string
	genkey          string
	token           bool
	match           string
	slot            int
	expiry          time.Duration
	keyID           int
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("relay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:7400", "UDP address to serve matches on")
	fs.StringVar(&o.metrics, "metrics", "127.0.0.1:7401", "address to serve /metrics and /matches on over HTTP; empty for none")
	fs.BoolVar(&o.open, "open", false, "take any player into any match, with no token (local play, tests)")
	fs.StringVar(&o.keys, "keys", "", "take players holding tokens made with a key of `FILE` (lines \"ID HEX\")")
	fs.StringVar(&o.record, "record", "", "record every match to `DIR`/NAME-TIME.rec")
	fs.IntVar(&o.maxMatches, "max-matches", relay.DefaultMaxMatches, "the most matches at once")
	fs.IntVar(&o.maxSpectators, "max-spectators", relay.DefaultMaxSpectators, "the most spectators of one match")
	fs.IntVar(&o.packetRate, "packet-rate", relay.DefaultPacketRate, "the most packets a second one address may send")
	fs.DurationVar(&o.timeout, "timeout", relay.DefaultTimeout, "how long a player may go unheard before it is dropped")
	fs.IntVar(&o.spectatorDelay, "spectator-delay", 0, "how many ticks behind the players spectators are fed")
	fs.DurationVar(&o.drain, "drain", 0, "on SIGTERM, take no new match and let those running finish for up to this long before ending them")
	fs.StringVar(&o.agonesURL, "agones", "", "the `URL` of Agones' SDK server (http://HOST:PORT); by default AGONES_SDK_HTTP_PORT's on localhost, where Agones sets it, else none")
	fs.StringVar(&o.roomsCounter, "rooms-counter", "rooms", "with Agones, the GameServer's counter of the matches running (empty for none)")
	fs.IntVar(&o.minPlayers, "min-players", 0, "start a match once this many players have joined and take the others late, into the slots still free (0: start full, take nobody late)")
	fs.IntVar(&o.snapshotEvery, "snapshot-every", 0, "gather a state snapshot of each match every this many ticks, for late and returning players to start from (0: none)")
	fs.IntVar(&o.maxSnapshot, "max-snapshot", relay.DefaultMaxSnapshot, "the largest state snapshot a match takes, in bytes")
	fs.IntVar(&o.history, "history", 0, "how many confirmed ticks each match keeps for players catching up and spectators (0: a minute's)")
	fs.BoolVar(&o.atDeadline, "at-deadline", false, "confirm each tick at its deadline only, even when every input is in before (the same delay for every player)")
	fs.StringVar(&o.genkey, "genkey", "", "add a new key to the key `FILE` (made if need be), under the next id, and exit")
	fs.BoolVar(&o.token, "token", false, "print a token for -match and -slot, made with -keys' key -key-id, and exit")
	fs.StringVar(&o.match, "match", "", "the match of -token")
	fs.IntVar(&o.slot, "slot", 0, "the slot of -token: 0 to 7, or -1 for a spectator")
	fs.DurationVar(&o.expiry, "expiry", time.Hour, "how long a -token is good for")
	fs.IntVar(&o.keyID, "key-id", -1, "the id of the key -token uses; -1: the greatest in -keys")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: relay [flags]\n\nServes relayed netplay matches over UDP; see go doc ./cmd/relay.\n\nflags:")
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
	case o.genkey != "":
		return nil
	case o.token && o.keys == "":
		return errors.New("-token needs -keys")
	case o.token && (o.match == "" || len(o.match) > relay.MaxMatchName):
		return fmt.Errorf("-match: %q: a match name has 1 to %d bytes", o.match, relay.MaxMatchName)
	case o.token && (o.slot < -1 || o.slot > 7):
		return fmt.Errorf("-slot: %d is not 0 to 7, or -1 for a spectator", o.slot)
	case o.token && o.expiry <= 0:
		return fmt.Errorf("-expiry: %v is not positive", o.expiry)
	case o.token:
		return nil
	case o.open && o.keys != "":
		return errors.New("-open and -keys: a relay takes tokens or it is open, not both")
	case !o.open && o.keys == "":
		return errors.New("no -keys: give a key file, or -open to take any player (local play only)")
	case o.maxMatches < 1:
		return fmt.Errorf("-max-matches: %d is less than 1", o.maxMatches)
	case o.maxSpectators < 1:
		return fmt.Errorf("-max-spectators: %d is less than 1", o.maxSpectators)
	case o.packetRate < 1:
		return fmt.Errorf("-packet-rate: %d is less than 1", o.packetRate)
	case o.timeout <= 0:
		return fmt.Errorf("-timeout: %v is not positive", o.timeout)
	case o.spectatorDelay < 0:
		return fmt.Errorf("-spectator-delay: %d is negative", o.spectatorDelay)
	case o.minPlayers < 0 || o.minPlayers > netplay.MaxPlayers:
		return fmt.Errorf("-min-players: %d, want 0 to %d", o.minPlayers, netplay.MaxPlayers)
	case o.snapshotEvery < 0:
		return fmt.Errorf("-snapshot-every: %d is negative", o.snapshotEvery)
	case o.maxSnapshot < 1 || o.maxSnapshot > relay.MaxSnapshot:
		return fmt.Errorf("-max-snapshot: %d, want 1 to %d", o.maxSnapshot, relay.MaxSnapshot)
	case o.history < 0:
		return fmt.Errorf("-history: %d is negative", o.history)
	case o.drain < 0:
		return fmt.Errorf("-drain: %v is negative", o.drain)
	}
	return nil
}

// readKeys reads a key file: one key a line, "ID HEX"; blank lines and lines starting with #
// are skipped.
func readKeys(path string) (map[byte][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keys := map[byte][]byte{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idText, keyText, ok := strings.Cut(line, " ")
		id, err := strconv.ParseUint(strings.TrimSpace(idText), 10, 8)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: not \"ID HEX\" with ID 0 to 255", path, n)
		}
		key, err := hex.DecodeString(strings.TrimSpace(keyText))
		if err != nil || len(key) < 16 {
			return nil, fmt.Errorf("%s:%d: the key is not at least 16 bytes in hexadecimal", path, n)
		}
		if _, dup := keys[byte(id)]; dup {
			return nil, fmt.Errorf("%s:%d: key %d given twice", path, n, id)
		}
		keys[byte(id)] = key
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no key", path)
	}
	return keys, nil
}

// genKey adds a new random key of 32 bytes to the key file at path, under the id after the
// greatest there (1 in a new file): a relay given the file takes tokens of the new key and of
// the old ones, until they are removed.
func genKey(path string, stdout io.Writer) error {
	id := 1
	if keys, err := readKeys(path); err == nil {
		id = 0
		for k := range keys {
			id = max(id, int(k)+1)
		}
		if id > 255 {
			return fmt.Errorf("-genkey: %s has a key under id 255: remove old keys first", path)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-genkey: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("-genkey: %w", err)
	}
	if _, err := fmt.Fprintf(f, "%d %s\n", id, hex.EncodeToString(key)); err != nil {
		f.Close()
		return fmt.Errorf("-genkey: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("-genkey: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "relay: key %d added to %s\n", id, path)
	return err
}

// makeToken prints the token o asks for, in hexadecimal.
func makeToken(o options, stdout io.Writer) error {
	keys, err := readKeys(o.keys)
	if err != nil {
		return fmt.Errorf("-keys: %w", err)
	}
	id := o.keyID
	if id < 0 {
		for k := range keys {
			id = max(id, int(k))
		}
	}
	key, ok := keys[byte(id)]
	if id > 255 || !ok {
		return fmt.Errorf("-key-id: no key %d in %s", id, o.keys)
	}
	tok, err := relay.MakeToken(key, byte(id), o.match, o.slot, time.Now().Add(o.expiry))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, hex.EncodeToString(tok))
	return err
}

// run serves until ctx ends, then ends every match and returns. ready, if not nil, is told the
// addresses it serves on.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr, metricsAddr string)) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.genkey != "" {
		return genKey(o.genkey, stdout)
	}
	if o.token {
		return makeToken(o, stdout)
	}
	opts := &relay.Options{MaxMatches: o.maxMatches, MaxSpectators: o.maxSpectators, PacketRate: o.packetRate,
		OpenMatch: relay.MatchConfig{Timeout: o.timeout, SpectatorDelay: o.spectatorDelay, AtDeadline: o.atDeadline,
			MinPlayers: o.minPlayers, SnapshotEvery: o.snapshotEvery, MaxSnapshot: o.maxSnapshot, History: o.history}}
	if o.keys != "" {
		if opts.Keys, err = readKeys(o.keys); err != nil {
			return fmt.Errorf("-keys: %w", err)
		}
	}
	logger := log.New(stderr, "relay: ", 0)
	if o.record != "" {
		if err := os.MkdirAll(o.record, 0o755); err != nil {
			return fmt.Errorf("-record: %w", err)
		}
		opts.Record = func(name string) (io.WriteCloser, error) {
			path := filepath.Join(o.record, fmt.Sprintf("%s-%d.rec", fileName(name), time.Now().UnixNano()))
			return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	laddr, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	conn, err := netplay.ListenUDP("udp", laddr)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Room for a burst of every player's packets between two reads.
	_ = conn.SetReadBuffer(4 << 20)
	_ = conn.SetWriteBuffer(4 << 20)
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	r, err := relay.New(conn, pool, opts)
	if err != nil {
		return err
	}
	metricsAddr := ""
	var httpServer *http.Server
	httpDone := make(chan error, 1)
	if o.metrics != "" {
		mln, err := net.Listen("tcp", o.metrics)
		if err != nil {
			return fmt.Errorf("-metrics: %w", err)
		}
		defer mln.Close()
		metricsAddr = mln.Addr().String()
		httpServer = &http.Server{Handler: handler(r), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, WriteTimeout: time.Minute}
		go func() { httpDone <- httpServer.Serve(mln) }()
	}
	mode := "open: anyone may create and join matches"
	if !r.Open() {
		mode = fmt.Sprintf("taking tokens of %d key(s)", len(opts.Keys))
	}
	logger.Printf("serving matches on udp %s (%s)", conn.LocalAddr(), mode)
	if metricsAddr != "" {
		logger.Printf("metrics on http://%s/metrics, matches on http://%s/matches", metricsAddr, metricsAddr)
	}
	sdk, err := agones.Locate(o.agonesURL)
	if err != nil {
		return err
	}
	serveCtx, stopServe := context.WithCancel(context.Background())
	defer stopServe()
	served := make(chan error, 1)
	go func() { served <- r.Serve(serveCtx) }()
	var fleet *agones.Link
	if sdk != nil {
		fleet = agones.Start(sdk, o.roomsCounter, func() int64 { return int64(len(r.Matches())) }, logger.Printf)
		defer fleet.Stop()
	}
	if ready != nil {
		ready(conn.LocalAddr().String(), metricsAddr)
	}
	select {
	case err = <-served: // the conn failed
	case <-ctx.Done():
		// SIGTERM: no new match; those running finish within -drain, then end, their
		// players told.
		if o.drain > 0 {
			logger.Printf("draining: taking no new match, ending those left in %v", o.drain)
			dctx, cancel := context.WithTimeout(context.Background(), o.drain)
			if r.Drain(dctx) != nil {
				logger.Printf("drained for %v: ending the %d matches left", o.drain, len(r.Matches()))
			}
			cancel()
		}
		stopServe()
		if err = <-served; errors.Is(err, context.Canceled) {
			err = nil
		}
	}
	if fleet != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := fleet.Shutdown(sctx); err != nil {
			logger.Printf("agones: Shutdown: %v", err)
		}
		cancel()
	}
	if httpServer != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = errors.Join(err, httpServer.Shutdown(shutdownCtx))
		if herr := <-httpDone; !errors.Is(herr, http.ErrServerClosed) {
			err = errors.Join(err, herr)
		}
	}
	m := r.Metrics()
	logger.Printf("shut down: %d packets in, %d out, %d ticks confirmed, %d inputs replaced", m.PacketsIn, m.PacketsOut, m.Ticks, m.Replaced)
	return err
}

// fileName returns name made safe for a file name: letters, digits, '-', '_' and '.' kept, the
// rest '_', and a leading '.' too.
func fileName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// matchInfo is a match as GET /matches lists it.
type matchInfo struct {
	Name string `json:"name"`
	relay.MatchStats
}

// handler serves the relay's metrics and its matches' API.
func handler(r *relay.Relay) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		r.WriteMetrics(w)
	})
	mux.HandleFunc("GET /matches", func(w http.ResponseWriter, _ *http.Request) {
		names := r.Matches()
		sort.Strings(names)
		list := make([]matchInfo, 0, len(names))
		for _, name := range names {
			if st, err := r.MatchStats(name); err == nil {
				list = append(list, matchInfo{Name: name, MatchStats: st})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	})
	mux.HandleFunc("DELETE /matches/{name}", func(w http.ResponseWriter, req *http.Request) {
		if err := r.EndMatch(req.PathValue("name")); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /matches/{name}/drop", func(w http.ResponseWriter, req *http.Request) {
		slot, err := strconv.Atoi(req.URL.Query().Get("slot"))
		if err != nil {
			http.Error(w, "slot: not a number", http.StatusBadRequest)
			return
		}
		if err := r.Drop(req.PathValue("name"), slot); err != nil {
			code := http.StatusBadRequest
			if errors.Is(err, relay.ErrNoMatch) {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}
