package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/term"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
)

// runNetwork plays a game over UDP or through a lobby over WebRTC (-lobby), or watches one
// (-spectate): in the terminal, or headless until tick opts.ticks is confirmed. The terminal,
// if one was opened, is restored before it returns.
func runNetwork(ctx context.Context, opts options, stdout, stderr io.Writer) error {
	var conn net.PacketConn
	var peer net.Addr
	var sim *simConn
	local := 0
	if opts.lobby != "" {
		c, err := joinLobby(ctx, opts, stderr)
		if err != nil {
			return err
		}
		conn, local = c, c.Index()
		if opts.lobbyRelay {
			if local, peer, err = findLobbyRelay(ctx, c, opts, stderr); err != nil {
				c.Close()
				return err
			}
		} else {
			peer = c.PeerAddr(1 - c.Index())
		}
		if opts.set["netsim"] {
			sim = newSimConn(c, opts.netsimPreset, opts.conditions, uint64(local)+1)
			conn = sim
			fmt.Fprintf(stderr, "duel: -netsim %s: what this side sends goes through %v\n", opts.netsimPreset, opts.conditions)
		}
	} else {
		var err error
		conn, peer, err = openConn(opts)
		if err != nil {
			return err
		}
		if opts.connect != "" {
			local = 1
		}
		if opts.relay != "" && !opts.spectating() {
			if local, err = relaySlot(ctx, conn, peer, opts, stderr); err != nil {
				conn.Close()
				return err
			}
		}
	}
	var bot *duel.Bot
	if opts.bot.set {
		b := duel.NewBot(opts.bot.seed)
		bot = &b
	}
	a := &app{
		opts:       opts,
		conn:       conn,
		sim:        sim,
		local:      local,
		spectating: opts.spectating(),
		stdout:     stdout,
		stderr:     stderr,
		events:     make([]netplay.Event, 0, 16),
	}
	if a.ends() {
		a.final.Want = opts.ticks
	}
	var rec *recording
	var err error
	if opts.relay != "" && opts.record == "" {
		// Through a relay, no temporary recording: the relay's own (relay -record) settles
		// a desync, and a session that records cannot start from the relay's state snapshot
		// when it joins late or comes back.
		rec = &recording{temp: true}
	} else {
		rec, err = openRecording(opts.record, a.warn)
	}
	if err != nil {
		conn.Close()
		return err
	}
	a.rec = rec
	a.game = duelnet.NewGame(opts.seed, 0, bot) // with the slots its session asks for, once it starts
	if opts.gui {
		a.game.Source = duelnet.FromHeldKeys
	}
	if peer != nil {
		if err := a.startSession(peer); err != nil {
			conn.Close()
			_, cerr := rec.close(false)
			return errors.Join(err, cerr)
		}
	} else {
		a.waitForPeer()
		if a.logs() {
			fmt.Fprintf(stderr, "duel: %s\n", a.status.Message)
		}
	}

	err = a.play(ctx)
	if err == nil {
		err = a.failed
	}
	desync := a.desync != nil
	if desync {
		fmt.Fprintf(stderr, "duel: %v\n", a.desync)
	}
	switch {
	case a.ends() && a.running && a.loop != nil && a.spectating:
		a.printSpectatorStats(stderr)
	case a.ends() && a.running && a.loop != nil:
		a.printStats(stderr)
	}
	err = errors.Join(err, a.close())
	if a.over != "" {
		fmt.Fprintf(stderr, "duel: %s\n", a.over)
	}
	if !a.logs() {
		// Told on the message row as they came, and again now that the terminal is back.
		for _, w := range a.warnings {
			fmt.Fprintf(stderr, "duel: %s\n", w)
		}
	}
	kept, cerr := rec.close(desync)
	switch {
	case cerr != nil:
		err = errors.Join(err, cerr)
	case desync && kept:
		fmt.Fprintf(stderr, "duel: this machine's confirmed inputs are recorded in %s: duel -replay %s replays them\n", rec.path, rec.path)
	case desync:
		fmt.Fprintln(stderr, "duel: this machine's confirmed inputs are not recorded: the recording could not be written")
	}
	if err == nil && desync {
		err = fmt.Errorf("the game desynchronized at tick %d", a.desync.Tick)
	}
	return err
}

// printStats prints what the session did, on one line: the ticks, the rollbacks, the ticks
// skipped for running too far ahead, the round trip and the traffic (UDP payload) each way.
func (a *app) printStats(w io.Writer) {
	st := a.session.Stats()
	ps := a.session.PeerStats(1 - a.local)
	secs := a.loop.Stats().RealTime.Seconds()
	perSecond := func(n uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	// What is no longer measured once the other player is gone reads "-".
	ping, ahead := ps.Ping.Round(time.Millisecond).String(), strconv.FormatFloat(ps.TicksAhead, 'f', 1, 64)
	if ps.Status == netplay.Disconnected {
		ping, ahead = "-", "-"
	}
	fmt.Fprintf(w, "duel: %d ticks in %.1fs, %d confirmed; %d rollbacks, at most %d ticks deep; %d skipped; "+
		"ping %s, %s ticks ahead; sent %d packets (%.0f/s), %d bytes (%.0f B/s); received %d packets, %d bytes (%.0f B/s); dropped %d\n",
		st.Tick, secs, st.Confirmed, st.Rollbacks, st.MaxRollback, st.Skipped,
		ping, ahead,
		st.PacketsSent, perSecond(st.PacketsSent), st.BytesSent, perSecond(st.BytesSent),
		st.PacketsReceived, st.BytesReceived, perSecond(st.BytesReceived), st.Dropped)
	if a.sim != nil {
		a.sim.printStats(w)
	}
}

// joinLobby joins -room at -lobby and returns the conn to the other player once it has joined
// too and their data channel is open, within -connect-timeout. It says on stderr that it waits:
// before the terminal is opened, where the player sees it.
func joinLobby(ctx context.Context, opts options, stderr io.Writer) (*rtc.Conn, error) {
	fmt.Fprintf(stderr, "duel: joining room %q at %s: waiting for the other player\n", opts.room, opts.lobby)
	dctx, cancel := ctx, context.CancelFunc(func() {})
	if opts.connectTimeout > 0 {
		dctx, cancel = context.WithTimeoutCause(ctx, opts.connectTimeout, errLobbyTimeout)
	}
	defer cancel()
	size := 2
	if opts.lobbyRelay {
		size = 3 // and the relay
		if err := askRelay(dctx, opts); err != nil {
			return nil, err
		}
	}
	conn, err := rtc.Dial(dctx, opts.lobby, opts.room, size, nil)
	switch {
	case err == nil:
		return conn, nil
	case ctx.Err() == nil && errors.Is(context.Cause(dctx), errLobbyTimeout):
		return nil, fmt.Errorf("no game in room %q at %s after %v: did the other player join the same room of the same lobby? (-connect-timeout waits longer): %w",
			opts.room, opts.lobby, opts.connectTimeout, err)
	}
	return nil, fmt.Errorf("-lobby %s -room %q: %w", opts.lobby, opts.room, err)
}

// askRelay asks the lobby's server (cmd/duelweb) to have its relay join -room, as a page with
// relay=1 does.
func askRelay(ctx context.Context, opts options) error {
	u, err := url.Parse(opts.lobby)
	if err != nil {
		return err
	}
	scheme := "http"
	if u.Scheme == "wss" {
		scheme = "https"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, scheme+"://"+u.Host+"/relay?room="+url.QueryEscape(opts.room), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("-lobby-relay: asking %s for a relay: %w", u.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("-lobby-relay: asking %s for a relay: %s (does it serve one? cmd/duelweb does)", u.Host, resp.Status)
	}
	return nil
}

// findLobbyRelay finds which member of the room is the relay, and the slot it gives this
// player: the room's order is the order of joining, not the match's.
func findLobbyRelay(ctx context.Context, c *rtc.Conn, opts options, stderr io.Writer) (int, net.Addr, error) {
	var others []net.Addr
	for i := range c.Size() {
		if i != c.Index() {
			others = append(others, c.PeerAddr(i))
		}
	}
	if opts.connectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.connectTimeout)
		defer cancel()
	}
	slot, relay, err := netplay.FindRelay(ctx, c, others, opts.room, opts.tokenBytes, 2, duel.Codec{}.Size(), duel.TickRate)
	if err != nil {
		return 0, nil, fmt.Errorf("-lobby-relay: %w", err)
	}
	if opts.headless || opts.gui {
		fmt.Fprintf(stderr, "duel: joined match %q at the lobby's relay: %s paddle is yours\n", opts.room, duelnet.SideName(slot))
	}
	return slot, relay, nil
}

// errLobbyTimeout ends the wait at the lobby after -connect-timeout.
var errLobbyTimeout = errors.New("-connect-timeout passed")

// openConn opens the UDP socket: on -listen's address, or on a port of the system's choosing
// to reach -connect's (or -spectate's), which it returns.
func openConn(opts options) (net.PacketConn, net.Addr, error) {
	if opts.listen != "" {
		laddr, err := net.ResolveUDPAddr("udp", opts.listen)
		if err != nil {
			return nil, nil, fmt.Errorf("-listen: %w", err)
		}
		conn, err := netplay.ListenUDP("udp", laddr)
		if err != nil {
			return nil, nil, fmt.Errorf("-listen: %w", err)
		}
		return conn, nil, nil
	}
	flagName, addr := "-connect", opts.connect
	switch {
	case opts.relay != "":
		flagName, addr = "-relay", opts.relay
	case opts.spectate != "":
		flagName, addr = "-spectate", opts.spectate
	}
	peer, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", flagName, err)
	}
	if peer.IP == nil || peer.IP.IsUnspecified() {
		// ":7000" means this machine, as it does to net.Dial; the session needs the address
		// the replies come from.
		peer.IP = net.IPv4(127, 0, 0, 1)
	}
	// The same family as the peer's, so that its replies come from the address it was sent to
	// as the session compares it (not an IPv4 address mapped into IPv6).
	network := "udp4"
	if peer.IP.To4() == nil {
		network = "udp6"
	}
	conn, err := netplay.ListenUDP(network, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", flagName, err)
	}
	return conn, peer, nil
}

// relaySlot asks the relay at relay for a paddle in -match: the first player to ask plays the
// left one (or, with -token, the token's). It waits for the relay's answer for
// -connect-timeout.
func relaySlot(ctx context.Context, conn net.PacketConn, relay net.Addr, opts options, stderr io.Writer) (int, error) {
	if opts.connectTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.connectTimeout)
		defer cancel()
	}
	slot, err := netplay.RelaySlot(ctx, conn, relay, opts.match, opts.tokenBytes, 2, duel.Codec{}.Size(), duel.TickRate)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return 0, fmt.Errorf("no answer from the relay at %v in %v: is cmd/relay running there, and can this machine reach its port? (-connect-timeout waits longer)", relay, opts.connectTimeout)
	case err != nil:
		return 0, err
	case slot > 1:
		return 0, fmt.Errorf("the relay gave slot %d of match %q: a duel has two", slot, opts.match)
	}
	if opts.headless || opts.gui {
		fmt.Fprintf(stderr, "duel: joined match %q at the relay %v: %s paddle is yours\n", opts.match, relay, duelnet.SideName(slot))
	}
	return slot, nil
}

// recording is the file the session records to: -record's, or a temporary one kept only if
// the game desynchronizes. The temporary one is a convenience, not a condition of the game:
// when it cannot be made or written, the game goes on without it (see openRecording).
type recording struct {
	f    *os.File // nil: no recording
	path string
	temp bool
	// failed is the write to the temporary file that failed: what came after was dropped.
	failed error
	warn   func(string)
}

// openRecording opens -record's file, or if path is "" a temporary one. Where the temporary
// one cannot be made, warn says so, and the game is played without a recording.
func openRecording(path string, warn func(string)) (*recording, error) {
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("-record: %w", err)
		}
		return &recording{f: f, path: path}, nil
	}
	f, err := os.CreateTemp("", "duel-*.rec")
	if err != nil {
		warn(fmt.Sprintf("no recording to keep in case of a desync (%v): playing on without one", err))
		return &recording{temp: true}, nil
	}
	return &recording{f: f, path: f.Name(), temp: true, warn: warn}, nil
}

// writer returns what the session is to record to: nil for no recording. -record's file is
// the file itself, whose failure ends the game, as asked for; the temporary file is written
// as long as it takes the writes, and dropped at the first that fails (a full disk, a file
// size limit), with a warning, once.
func (r *recording) writer() io.Writer {
	switch {
	case r.f == nil:
		return nil
	case !r.temp:
		return r.f
	}
	return optionalWriter{r}
}

// optionalWriter writes to a temporary recording until a write fails, and then drops the rest.
type optionalWriter struct{ r *recording }

func (w optionalWriter) Write(p []byte) (int, error) {
	if w.r.failed != nil {
		return len(p), nil
	}
	if _, err := w.r.f.Write(p); err != nil {
		w.r.failed = err
		w.r.warn(fmt.Sprintf("the recording to keep in case of a desync stopped (%v): playing on without one", err))
	}
	return len(p), nil
}

// close closes the file, and removes a temporary one unless keep is set and it holds the
// whole game. It reports whether a recording is kept: -record's, or the temporary one.
func (r *recording) close(keep bool) (kept bool, err error) {
	if r.f == nil {
		return false, nil
	}
	err = r.f.Close()
	if r.temp {
		if keep && r.failed == nil && err == nil {
			return true, nil
		}
		return false, errors.Join(err, os.Remove(r.path))
	}
	if err != nil {
		return false, fmt.Errorf("recording to %s: %w", r.path, err)
	}
	return true, nil
}

// app is what the loop runs: waiting for the other player (with -listen), then the session's
// game, with the keys, the view and the ending of a headless run around it.
type app struct {
	opts   options
	conn   net.PacketConn
	sim    *simConn // conn, under -netsim; nil without
	local  int
	stdout io.Writer
	stderr io.Writer // headless, the events go there
	rec    *recording
	game   *duelnet.Game
	// spectating: this side watches the game (-spectate) of the player at peer, its host;
	// local is then no one's.
	spectating bool

	// found delivers the address of the first packet that arrives while waiting for the other
	// player (-listen); nil once the session has started.
	found   chan net.Addr
	waiting chan struct{} // closed when the goroutine reading the first packet is done

	loop    hostLoop
	session *netplay.Session[duel.Input]
	peer    string        // the other player's address, once the session has started
	inner   gameloop.Game // the session's loop adapter

	view     *duel.View
	status   duel.Status
	events   []netplay.Event
	heard    bool           // the other player has answered the handshake
	running  bool           // the handshake is done: the game runs
	peerOut  bool           // the other player left or was disconnected
	peerLost bool           // peerOut, for want of hearing from it (it did not say goodbye)
	failed   error          // why the game ended, told as it is (the loop's errors name the tick)
	desync   *netplay.Event // the first desync seen
	// over says, for stderr once the terminal is restored, how a watched game ended when its
	// host left it: the end of the game, not a failure.
	over string
	// warnings are what went wrong without ending the game, for stderr once the terminal is
	// restored (headless, they go there at once).
	warnings []string

	// waitStart is when the loop first ran while connecting (-connect), by its clock;
	// nextNotice, how long after it the next line saying so is due (-headless).
	waitStart, nextNotice time.Duration
	waitStarted           bool

	// final tracks the ticks that become final, and the checksum of tick opts.ticks once it
	// is (-headless); printed says it has been printed.
	final   duelnet.Final
	printed bool
}

// hostLoop is the loop that runs the game: a *gameloop.Loop, or in a window (-gui) the
// Ebitengine adapter.
type hostLoop interface {
	netplay.Loop
	Stats() gameloop.Stats
}

// logs reports whether messages go to stderr as they come: headless, and in a window (which
// shows them too), where stderr is not a terminal the game draws on.
func (a *app) logs() bool { return a.opts.headless || a.opts.gui }

// ends reports whether the run ends by itself once tick -ticks is confirmed, printing its
// checksum: headless, and in a window given -ticks.
func (a *app) ends() bool { return a.opts.headless || (a.opts.gui && a.opts.ticks > 0) }

// warn tells of something that went wrong without ending the game: on stderr, or in the
// terminal on the message row, and on stderr once the terminal is restored; in a window, on
// the message row and on stderr.
func (a *app) warn(msg string) {
	if a.logs() {
		fmt.Fprintf(a.stderr, "duel: %s\n", msg)
	}
	if a.opts.headless {
		return
	}
	a.status.Message = msg
	if !a.logs() {
		a.warnings = append(a.warnings, msg)
	}
}

// waitForPeer starts reading the first handshake to arrive, from whoever will be the other
// player: any other packet (a port scan, a stray packet of an earlier game) is not a player's,
// and taking its sender for the other player would leave the real one unable to join.
func (a *app) waitForPeer() {
	a.found = make(chan net.Addr, 1)
	a.waiting = make(chan struct{})
	a.status.Message = "waiting for the other player on " + a.conn.LocalAddr().String()
	go func() {
		defer close(a.waiting)
		var buf [2048]byte
		for {
			n, addr, err := a.conn.ReadFrom(buf[:])
			if err != nil {
				return
			}
			if netplay.IsHandshake(buf[:n]) {
				a.found <- addr
				return
			}
		}
	}()
}

// startSession starts the session with the other player at peer, or, spectating, with the
// game's host there.
func (a *app) startSession(peer net.Addr) error {
	if a.spectating {
		return a.startSpectator(peer)
	}
	cfg := duelnet.Config(a.local, peer, duelnet.Settings{
		Delay: a.opts.delay, Window: a.opts.window, Seed: a.opts.seed, Record: a.rec.writer(),
	})
	if a.opts.listen != "" {
		cfg.Spectators = a.opts.spectators
	}
	switch {
	case a.opts.relay != "":
		cfg.Players[1-a.local].Addr = nil
		cfg.Relay, cfg.Match, cfg.Token = peer, a.opts.match, a.opts.tokenBytes
		cfg.Snapshots = true // the duel's state encodes: a relay with -snapshot-every takes it
	case a.opts.lobbyRelay:
		cfg.Players[1-a.local].Addr = nil
		cfg.Relay, cfg.Match = peer, a.opts.room
		cfg.Snapshots = true
	}
	s, err := netplay.NewSession(a.conn, cfg)
	if err != nil {
		return fmt.Errorf("starting the session: %w", err)
	}
	a.game.Resize(s.Slots())
	a.session = s
	a.peer = peer.String()
	a.status.Message = "connecting to " + peer.String()
	if a.loop != nil {
		a.inner = netplay.NewLoopGame(s, a.game, a.loop)
	}
	return nil
}

// play runs the loop, in the terminal, in a window or headless, until the game ends.
func (a *app) play(ctx context.Context) error {
	if a.opts.gui {
		return a.playWindow(ctx)
	}
	// A netplay peer's ticks wait on the network anyway: a sleep to each deadline (no spin)
	// starts them late by tens of µs, at the least CPU a Go process can pace with.
	cfg := gameloop.Config{TickRate: duel.TickRate, LowPower: true}
	var win *term.Window
	if a.opts.headless {
		cfg.NoFrames = true
	} else {
		var err error
		win, err = term.Open(term.Options{})
		if err != nil {
			return fmt.Errorf("%w (-headless runs without a terminal)", err)
		}
		defer win.Close()
		cfg.Window, cfg.MaxFPS = win, 60
		a.view = duel.NewView(win)
	}
	loop, err := gameloop.New(cfg)
	if err != nil {
		return fmt.Errorf("creating the loop: %w", err)
	}
	a.loop = loop
	if a.session != nil {
		a.inner = netplay.NewLoopGame(a.session, a.game, loop)
	}
	err = loop.Run(ctx, a)
	if win != nil {
		if cerr := win.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("restoring the terminal: %w", cerr)
		}
	}
	return err
}

// close ends the session (telling the other player, ending the recording) or stops waiting
// for the other player, and closes the socket.
func (a *app) close() error {
	if a.session != nil {
		return a.session.Close()
	}
	if a.waiting != nil {
		// Wake the read of the first packet, and wait for it to end before closing.
		_ = a.conn.SetReadDeadline(time.Now())
		<-a.waiting
	}
	return a.conn.Close()
}

// Update runs one tick of the loop: while waiting, a look for the other player; then a tick of
// the session.
func (a *app) Update(u *gameloop.Update) error {
	if a.session == nil {
		select {
		case peer := <-a.found:
			<-a.waiting
			a.waiting = nil
			if err := a.conn.SetReadDeadline(time.Time{}); err != nil {
				return err
			}
			if err := a.startSession(peer); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	if err := a.inner.Update(u); errors.Is(err, netplay.ErrRefused) {
		a.failed = refusedError{peer: a.peer, spectator: a.spectating, err: err}
		return gameloop.ErrStop
	} else if a.spectating && errors.Is(err, netplay.ErrDisconnected) {
		a.failed = a.hostGone(err)
		return gameloop.ErrStop
	} else if err != nil {
		return err
	}
	a.events = a.session.Events(a.events[:0])
	for i := range a.events {
		a.event(&a.events[i])
	}
	if (a.opts.connect != "" || a.spectating) && !a.running {
		if err := a.connecting(); err != nil {
			a.failed = err
			return gameloop.ErrStop
		}
	}
	if err := a.finalize(); err != nil {
		return err
	}
	if a.ends() {
		if a.desync != nil {
			// The games went apart: playing on would only print a checksum of one of them.
			return gameloop.ErrStop
		}
		return a.headlessEnd()
	}
	return nil
}

// connecting tells, while the game has not started, that this side waits for the other player
// (-connect) and how many handshakes it sent; past -connect-timeout it gives up. With no one
// listening at the address, or a firewall in the way, nothing comes back to say so: without
// this the wait would be silent and endless.
func (a *app) connecting() error {
	now := a.loop.Clock().Now()
	if !a.waitStarted {
		a.waitStart, a.nextNotice, a.waitStarted = now, firstNotice, true
	}
	waited := now - a.waitStart
	tries := a.session.PeerStats(1 - a.local).PacketsSent
	peer := a.peer
	who := "the other player"
	if a.spectating {
		who = "the game's host"
	}
	if timeout := a.opts.connectTimeout; timeout > 0 && waited >= timeout {
		if a.heard {
			return fmt.Errorf("the handshake with %s at %s did not finish in %v (-connect-timeout waits longer)", who, peer, timeout)
		}
		return fmt.Errorf("no answer from %s at %s in %v (%d handshake tries): is duel -listen running there, "+
			"and can this machine reach its port? (-connect-timeout waits longer)", who, peer, timeout, tries)
	}
	if a.heard {
		return nil // the events say how the handshake goes
	}
	// Short enough for the message row of an 80-column terminal with an IPv4 address.
	triesWord := "tries"
	if tries == 1 {
		triesWord = "try"
	}
	a.status.Message = fmt.Sprintf("waiting for %s at %s: %d %s in %v", who, peer, tries, triesWord, waited.Truncate(time.Second))
	if timeout := a.opts.connectTimeout; timeout > 0 {
		a.status.Message += fmt.Sprintf(" of %v", timeout)
	}
	if a.logs() && waited >= a.nextNotice {
		fmt.Fprintf(a.stderr, "duel: %s\n", a.status.Message)
		a.nextNotice = waited.Truncate(time.Second) + noticeEvery
	}
	return nil
}

// refusedError is the session's ErrRefused, told as a player would: the listener at peer plays
// with someone else already; or, to a spectator, it takes no more spectators.
type refusedError struct {
	peer      string
	spectator bool
	err       error
}

func (e refusedError) Error() string {
	if e.spectator {
		return "the game at " + e.peer + " refuses spectators: it takes none (-spectators 0), has all it takes, " +
			"or has been under way too long (a spectator joins in its first 10 minutes)"
	}
	return "the other side's game is full: the player at " + e.peer + " plays with someone else"
}

func (e refusedError) Unwrap() error { return e.err }

// firstNotice is how long -headless waits for an answer before it says that it waits;
// noticeEvery, how often it says so again.
const (
	firstNotice = time.Second
	noticeEvery = 5 * time.Second
)

// finalize takes the checksums of the ticks that have become final since the last tick: those
// the status line shows and the one -headless prints (see duelnet.Final).
func (a *app) finalize() error {
	return a.final.Update(a.session.Stats(), a.checksum, &a.status)
}

// checksum returns the checksum of final tick t, if still held: the session keeps those of the
// last few hundred final ticks (a tick becomes final once the other peer has acknowledged this
// one's input for it, by when the game's slots may hold later ticks).
func (a *app) checksum(t uint64) (uint64, bool) { return a.session.Checksum(t) }

// event shows what the session reports.
func (a *app) event(e *netplay.Event) {
	if a.spectating {
		a.spectatorEvent(e)
		return
	}
	if e.Kind == netplay.EventDesync {
		a.noteDesync(e)
		return // printed at the end, headless
	}
	msg, ok := duelnet.Message(e, a.local)
	if !ok {
		return
	}
	a.status.Message = msg
	switch e.Kind {
	case netplay.EventSynchronizing, netplay.EventSynchronized:
		a.heard = true
	case netplay.EventRunning:
		a.heard, a.running = true, true
	case netplay.EventDisconnected:
		a.peerOut = true
		// It said goodbye, or it went unheard: its machine or the network between failed.
		a.peerLost = e.Reason != netplay.ReasonLeft
		if !a.opts.headless {
			a.status.Message += " (q quits)"
		}
	}
	if a.logs() && e.Kind != netplay.EventSynchronizing {
		fmt.Fprintf(a.stderr, "duel: %s\n", a.status.Message)
	}
}

// noteDesync keeps the first desync, and says it on the message row; a later one changes
// nothing: the games went apart at the first.
func (a *app) noteDesync(e *netplay.Event) {
	if a.desync != nil {
		return
	}
	d := *e
	a.desync = &d
	a.status.Message = duelnet.DesyncMessage(e)
}

// headlessEnd ends a headless run: once tick opts.ticks is confirmed it prints its checksum,
// and once the other player has it confirmed too (or has gone), it stops the loop. Leaving
// sooner could leave the other player without this one's last inputs, which would then be
// marked disconnected there: another game. The other player has every input of this one up to
// the tick once an input of its own for duelnet.SettleTicks ticks later has arrived: it adds its input
// its delay ahead of the tick it runs, and runs no more than its window past the inputs it has.
func (a *app) headlessEnd() error {
	want := a.opts.ticks
	if a.spectating {
		return a.spectatorEnd()
	}
	if !a.printed && a.final.Done() {
		if _, err := fmt.Fprintln(a.stdout, a.final.Line()); err != nil {
			return fmt.Errorf("printing the checksum: %w", err)
		}
		a.printed = true
	}
	switch {
	case a.printed && a.peerOut:
		return gameloop.ErrStop
	case a.printed:
		if duelnet.Settled(a.session, a.local, want) {
			return gameloop.ErrStop
		}
	case a.peerOut && a.peerLost:
		return fmt.Errorf("the other player was lost before tick %d was confirmed", want)
	case a.peerOut:
		return fmt.Errorf("the other player left before tick %d was confirmed", want)
	}
	return nil
}

// Input handles the keys: the paddle's, and q or Escape to quit; in a window, the keys'
// releases and the gamepads too.
func (a *app) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && (in.Key == gameloop.KeyQ || in.Key == gameloop.KeyEscape) {
		return gameloop.ErrStop
	}
	switch {
	case a.spectating:
	case a.opts.gui:
		a.game.Held.Apply(in)
	case in.Kind == gameloop.KeyPress:
		a.game.Keys.Press(in)
	}
	return nil
}

// Render draws the game with the session's figures on the status line.
func (a *app) Render(*gameloop.Render) error {
	if a.view == nil {
		return nil
	}
	st := &a.status
	st.Player = a.local
	st.Spectating = a.spectating
	// Before the other player answers, and once it has gone, nothing measures the round trip
	// or the ticks ahead: the last figures would stay on, frozen.
	st.NoPeer = a.session == nil || !a.heard || a.peerOut
	if a.session != nil {
		duelnet.ShowSession(st, a.session, a.local, st.NoPeer)
	}
	a.view.Draw(&a.game.State, st)
	return nil
}
