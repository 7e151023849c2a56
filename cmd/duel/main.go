// Command duel is a two-player game in the terminal, played over a network with rollback
// (package netplay): a paddle each, one ball, the score running on until a player quits. One
// player listens, the other connects, over UDP:
//
//	duel -listen :7000               # the left paddle: waits for the other player
//	duel -connect 192.0.2.1:7000     # the right paddle (:7000 alone: this machine)
//
// Until the other player answers, -connect says that it waits and how many handshakes it has
// sent, and gives up after -connect-timeout (30s; 0 waits for ever). A player who is already
// playing refuses a third: the third is told that the other side's game is full.
//
// Or both join a room of a lobby (cmd/lobby, or cmd/duelweb, which serves the game's web page
// with one) and play over WebRTC data channels (package netplay/rtc), with each other or with a
// player in a web page:
//
//	duel -lobby ws://192.0.2.1:8090/ws -room NAME   # the first to join plays the left paddle
//
// -lobby is a WebSocket URL (ws:// or wss://) and needs -room; it takes no -listen, -connect or
// -spectate. Until the other player has joined and connected, it waits, for -connect-timeout.
// -netsim PRESET puts what this side sends through one of netsim's named conditions (poor,
// terrible, mobile, intercontinental; none), to try the game over WebRTC on a bad network:
// give it on both sides to make both directions bad.
//
// Keys: w and s, the arrows, or k and j move your paddle; q or Escape quits (Ctrl-C too). Each
// machine runs the whole game: your input counts at once, the other player's is predicted until
// it arrives, and when a prediction was wrong the game goes back and plays the ticks since
// again. The status line shows the round-trip time, how many ticks this machine runs ahead of
// the other ("-" while there is no other player to measure: not yet answered, or gone), the
// depth of the last rollback, the tick, and, once a second, a confirmed tick with its checksum,
// which both players' screens show alike. A player who quits has left; one whose machine stopped
// answering (for the session's timeout) was lost.
//
// Others may watch: -spectate HOST:PORT joins the listener's game as a spectator, within its
// first 10 minutes (it starts from the first tick and catches up), and shows it as the players
// see it, a little behind them: the status line says it spectates, how many ticks it has
// received but not shown yet, the tick and the confirmed checksum; q quits. The listener takes
// up to -spectators of them (4; 0 refuses them, at most 16); a spectator refused, or whose host
// is lost, says so and exits 1; one whose host leaves says the game is over and exits 0. A
// spectator gives the players' -seed, and takes no -bot, -delay or -window: it plays nothing.
//
// -delay and -window set the session's input delay and prediction window; -seed the game's
// seed (both players must give the same). -record FILE records the confirmed inputs and the
// checksum of every confirmed tick; -replay FILE replays such a recording, prints "matched" and
// exits 0, or prints the first tick whose checksum differs and exits 1 (a recording that claims
// ticks it holds no checksum for is refused as damaged). When the two machines' checksums of a
// confirmed tick differ (a desync), each says so and keeps a recording to replay: -record's, or
// one in the temporary directory. That one is a convenience: where it cannot be made or written,
// duel warns once and plays on without it.
//
// -gui plays in an Ebitengine window rather than the terminal, with the keys held from press to
// release or a gamepad (the d-pad or the left stick); with -ticks N (and -bot) it ends as
// -headless does. The window needs cgo and a display, so it is only in a duel built with
// -tags ebiten:
//
//	go run -tags ebiten ./cmd/duel -gui -listen :7000
//
// -headless runs with no terminal: with -bot SEED a seeded bot plays the local paddle (it can
// in the terminal too), and once tick -ticks N is confirmed the command prints "tick N checksum
// HEX", and exits 0 once the other player has the tick confirmed too; both players print the
// same line, and so does a headless spectator, which exits once it has run the tick. At a desync it stops instead, and exits 1 once it has said so. Messages, and at
// the end what the session did, go to stderr. -synctest runs the game under netplay's sync test
// (no network: every tick is played again two ticks later, and the checksums compared) for
// -ticks ticks with two bots.
//
// docs/duel.md shows how to play on one machine, across two and through netsim.
//
// The exit status is 0 when the game ends as asked, 1 on an error, a mismatch or a desync, 2 for
// a bad flag (nothing has started), and 128 plus the signal's number when a signal ends it.
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
	"github.com/gameloop-go/gameloop/netsim"
)

// options are the command's flags.
type options struct {
	listen, connect string
	spectate        string
	spectateBare    bool // -spectate given (with an address or without)
	relay, match    string
	lobbyRelay      bool // -lobby-relay
	token           string
	tokenBytes      []byte
	lobby, room     string
	netsimPreset    string            // -netsim: a preset's name
	conditions      netsim.Conditions // -netsim's conditions
	spectators      int
	connectTimeout  time.Duration
	delay, window   int
	seed            uint64
	record          string
	replayPath      string
	synctest        bool
	headless        bool
	gui             bool
	ticks           uint64
	bot             botFlag
	// set holds the names of the flags given on the command line.
	set map[string]bool
}

// botFlag is -bot's value, and whether it was given.
type botFlag struct {
	set  bool
	seed uint64
}

func (b *botFlag) String() string {
	if !b.set {
		return ""
	}
	return strconv.FormatUint(b.seed, 10)
}

func (b *botFlag) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return errors.New("not a seed (an unsigned integer)")
	}
	b.set, b.seed = true, v
	return nil
}

// maxTicks bounds -ticks: a day of play at 60 ticks a second.
const maxTicks = 24 * 60 * 60 * 60

// Defaults of the session's settings.
const (
	defaultDelay          = 2
	defaultWindow         = netplay.DefaultPredictionWindow
	defaultConnectTimeout = 30 * time.Second
	defaultSpectators     = 4
)

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("duel", flag.ContinueOnError)
	// The flag package's own messages are dropped: a bad flag is reported in one line, by
	// realMain; -h prints the flags.
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.listen, "listen", "", "wait for the other player on this UDP `address` (host:port, or :port); you play the left paddle")
	fs.StringVar(&o.connect, "connect", "", "join the player listening at this UDP `address` (:port for this machine); you play the right paddle")
	fs.StringVar(&o.lobby, "lobby", "", "play through the lobby at this WebSocket `URL` (ws://HOST:PORT/ws, as lobby and duelweb serve it), over WebRTC: with a player in a web page or another duel -lobby")
	fs.StringVar(&o.room, "room", "", "with -lobby, the `name` of the room to meet the other player in; the first to join plays the left paddle")
	fs.StringVar(&o.netsimPreset, "netsim", "", "with -lobby, put what this side sends through netsim's `preset` conditions ("+strings.Join(netsim.PresetNames(), ", ")+"): a bad network under WebRTC")
	fs.Var(&spectateFlag{&o}, "spectate", "watch the game of the player listening at this UDP `address` (:port for this machine); with -relay, give no address")
	fs.StringVar(&o.relay, "relay", "", "play through the relay at this UDP `address` (cmd/relay), in the match -match: the first to join plays the left paddle")
	fs.StringVar(&o.match, "match", "", "with -relay, the `name` of the match to play or watch")
	fs.StringVar(&o.token, "token", "", "with -relay, the `token` (hexadecimal) that admits you to the match, from whoever made it; none for an open relay")
	fs.BoolVar(&o.lobbyRelay, "lobby-relay", false, "with -lobby, play through the relay of the lobby's server (cmd/duelweb), as pages with relay=1 do")
	fs.IntVar(&o.spectators, "spectators", defaultSpectators, "with -listen, how many spectators may watch your game (0 refuses them; at most 16)")
	fs.DurationVar(&o.connectTimeout, "connect-timeout", defaultConnectTimeout, "with -connect, -spectate or -lobby, give up if the game has not started after this long (0 waits for ever)")
	fs.IntVar(&o.delay, "delay", defaultDelay, "input delay in ticks: your input counts this many ticks after you give it (0 to 30)")
	fs.IntVar(&o.window, "window", defaultWindow, "prediction window in ticks: how far the game may run ahead of the other player's input (1 to 60; 0 for lockstep)")
	fs.Uint64Var(&o.seed, "seed", 1, "the game's seed; both players (and spectators) must give the same")
	fs.StringVar(&o.record, "record", "", "record the confirmed inputs and checksums to this `file`")
	fs.StringVar(&o.replayPath, "replay", "", "replay the recording in this `file` and say whether it matched")
	fs.BoolVar(&o.synctest, "synctest", false, "run the game under netplay's sync test with two bots for -ticks ticks")
	fs.BoolVar(&o.headless, "headless", false, "play without a terminal until tick -ticks is confirmed, and print its checksum")
	fs.BoolVar(&o.gui, "gui", false, "play in a window (Ebitengine) rather than the terminal; with -ticks, until tick -ticks is confirmed, printing its checksum (needs a duel built with -tags ebiten)")
	fs.Uint64Var(&o.ticks, "ticks", 0, "with -headless, -gui or -synctest, the number of ticks to play (-synctest: 600 if not given)")
	fs.Var(&o.bot, "bot", "a bot seeded with this `seed` plays your paddle")
	err := fs.Parse(args)
	// A bare -spectate (with -relay) is a boolean flag: "-spectate ADDR" leaves ADDR as an
	// argument, and the flags after it to parse.
	for err == nil && o.spectateBare && o.spectate == "" && fs.NArg() > 0 && !strings.HasPrefix(fs.Arg(0), "-") {
		o.spectate = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprintln(stderr, "usage: duel -listen ADDR | -connect ADDR | -lobby URL -room NAME [-netsim PRESET] | -relay ADDR -match NAME [-token HEX] [-spectate] | -spectate ADDR | -replay FILE | -synctest [flags]")
		fs.PrintDefaults()
		return o, err
	} else if err != nil {
		return o, fmt.Errorf("%w (duel -h lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	return o, checkOptions(&o)
}

func checkOptions(o *options) error {
	modes := 0
	for _, on := range []bool{o.listen != "", o.connect != "", o.lobby != "", o.spectate != "" && o.relay == "", o.relay != "", o.replayPath != "", o.synctest} {
		if on {
			modes++
		}
	}
	switch {
	case o.delay < 0 || o.delay > netplay.MaxInputDelay:
		return fmt.Errorf("-delay %d: must be 0 to %d", o.delay, netplay.MaxInputDelay)
	case o.window < 0 || o.window > netplay.MaxPredictionWindow:
		return fmt.Errorf("-window %d: must be 0 (lockstep) to %d", o.window, netplay.MaxPredictionWindow)
	case o.spectators < 0 || o.spectators > netplay.MaxSpectators:
		return fmt.Errorf("-spectators %d: must be 0 (none) to %d", o.spectators, netplay.MaxSpectators)
	case o.connectTimeout < 0:
		return fmt.Errorf("-connect-timeout %v: must not be negative (0 waits for ever)", o.connectTimeout)
	case o.ticks > maxTicks:
		return fmt.Errorf("-ticks %d: at most %d (a day)", o.ticks, maxTicks)
	case o.room != "" && o.lobby == "":
		return errors.New("-room is a room at a lobby: give -lobby URL too")
	case o.set["netsim"] && o.lobby == "":
		return errors.New("-netsim is for -lobby, over WebRTC; over UDP, run cmd/netsim between the players (docs/duel.md)")
	case modes == 0:
		return errors.New("give -listen ADDR or -connect ADDR to play, or -lobby URL -room NAME, or -relay ADDR -match NAME; -spectate ADDR to watch, -replay FILE or -synctest")
	case o.spectateBare && o.spectate == "" && o.relay == "":
		return errors.New("-spectate needs the address of the game to watch, or -relay ADDR -match NAME")
	case o.relay != "" && o.spectate != "":
		return fmt.Errorf("-spectate %s with -relay: a relayed match is watched at the relay: give -spectate alone", o.spectate)
	case o.relay != "" && o.match == "":
		return errors.New("-relay needs -match NAME: the match to play or watch")
	case o.match != "" && o.relay == "":
		return errors.New("-match is a match at a relay: give -relay ADDR too")
	case o.token != "" && o.relay == "":
		return errors.New("-token admits you to a match at a relay: give -relay ADDR too")
	case len(o.match) > netplay.MaxMatch:
		return fmt.Errorf("-match: a name of %d bytes, at most %d", len(o.match), netplay.MaxMatch)
	case o.lobbyRelay && o.lobby == "":
		return errors.New("-lobby-relay plays through the relay of a lobby's server: give -lobby URL -room NAME")
	case o.relay != "" && o.set["spectators"]:
		return errors.New("-spectators is for the player who listens (-listen): a relayed match's spectators join the relay")
	case modes > 1 && o.relay != "":
		return errors.New("-relay plays through a relay: not with -listen, -connect, -lobby, -replay or -synctest")
	case modes > 1 && o.lobby != "" && (o.listen != "" || o.connect != "" || o.spectate != ""):
		return errors.New("-lobby meets the other player at a lobby: not with -listen, -connect or -spectate, which play over UDP")
	case modes > 1:
		return errors.New("-listen, -connect, -lobby, -spectate, -replay and -synctest: one of them")
	case o.headless && o.ticks == 0:
		return errors.New("-headless needs -ticks N: the tick whose checksum to print")
	case o.headless && !o.network():
		return errors.New("-headless plays over the network: give -listen, -connect, -lobby or -spectate")
	case o.gui && o.headless:
		return errors.New("-gui and -headless: one of them")
	case o.gui && !o.network():
		return errors.New("-gui plays over the network: give -listen, -connect, -lobby or -spectate")
	case o.gui && !windowBuilt:
		return errors.New("-gui: this duel was built without its window; build it with -tags ebiten " +
			"(cgo and the X11 and OpenGL development packages: see docs/duel.md)")
	case o.set["spectators"] && o.listen == "":
		return errors.New("-spectators is for the player who listens (-listen): the host of the spectators")
	case o.record != "" && (o.replayPath != "" || o.synctest):
		return errors.New("-record records a game played over the network, not a -replay or -synctest")
	}
	if o.lobby != "" {
		if err := checkLobby(o.lobby, o.room); err != nil {
			return err
		}
	}
	if o.set["netsim"] {
		c, err := netsim.Preset(o.netsimPreset)
		if err != nil {
			return fmt.Errorf("-netsim %q: no such preset; netsim's are %s (docs/netsim.md)", o.netsimPreset, strings.Join(netsim.PresetNames(), ", "))
		}
		o.conditions = c
	}
	if o.token != "" {
		tok, err := hex.DecodeString(o.token)
		if err != nil || len(tok) > netplay.MaxToken {
			return fmt.Errorf("-token: not a token in hexadecimal of at most %d bytes", netplay.MaxToken)
		}
		o.tokenBytes = tok
	}
	if o.relay != "" {
		if err := checkConnect("relay", o.relay); err != nil {
			return err
		}
	}
	if (o.relay != "" || o.lobbyRelay) && !o.set["window"] {
		o.window = netplay.DefaultRelayPredictionWindow // a round trip to the relay
	}
	if o.spectating() {
		// A spectator plays no paddle and runs only the ticks the players have settled.
		for _, name := range []string{"bot", "delay", "window"} {
			if o.set[name] {
				return fmt.Errorf("-%s is for a player: a spectator (-spectate) plays no paddle", name)
			}
		}
	}
	for name, addr := range map[string]string{"connect": o.connect, "spectate": o.spectate} {
		if addr == "" || o.relay != "" {
			continue
		}
		if err := checkConnect(name, addr); err != nil {
			return err
		}
	}
	if o.synctest && o.ticks == 0 {
		o.ticks = 600
	}
	return nil
}

// network reports whether the options play (or watch) over the network.
func (o *options) network() bool {
	return o.listen != "" || o.connect != "" || o.lobby != "" || o.spectate != "" || o.relay != ""
}

// spectating reports whether the options watch a game rather than play it.
func (o *options) spectating() bool { return o.spectate != "" || o.spectateBare }

// spectateFlag is -spectate: an address, or bare (a boolean flag) with -relay.
type spectateFlag struct{ o *options }

func (f *spectateFlag) String() string {
	if f.o == nil {
		return ""
	}
	return f.o.spectate
}

func (f *spectateFlag) Set(s string) error {
	switch s {
	case "true":
		f.o.spectateBare = true
	case "false":
		f.o.spectateBare, f.o.spectate = false, ""
	default:
		f.o.spectateBare, f.o.spectate = true, s
	}
	return nil
}

// IsBoolFlag lets -spectate be given bare.
func (f *spectateFlag) IsBoolFlag() bool { return true }

// checkLobby refuses a -lobby that is not a WebSocket URL, and a missing or bad -room.
func checkLobby(lobbyURL, room string) error {
	u, err := url.Parse(lobbyURL)
	switch {
	case err != nil || u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "":
		return fmt.Errorf("-lobby %s: not a WebSocket URL (want ws://HOST:PORT/ws, or wss://)", lobbyURL)
	case room == "":
		return errors.New("-lobby needs -room NAME: the room to meet the other player in")
	case len(room) > lobby.MaxRoomName:
		return fmt.Errorf("-room: a name of %d bytes, at most %d", len(room), lobby.MaxRoomName)
	case !utf8.ValidString(room):
		return errors.New("-room: the name is not UTF-8")
	}
	for _, r := range room {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("-room %q: the name has the character %U, which a lobby refuses", room, r)
		}
	}
	return nil
}

// checkConnect refuses a -connect (or -spectate, the flag named) address that names no port to
// send to: none, or port 0 (a port of the system's choosing, which only a listener can ask
// for). The host is looked up later: a name that does not resolve may be the network's fault,
// not the command line's.
func checkConnect(flagName, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		var addrErr *net.AddrError
		if errors.As(err, &addrErr) {
			err = errors.New(addrErr.Err)
		}
		return fmt.Errorf("-%s %s: %w (want host:port, or :port for this machine)", flagName, addr, err)
	}
	n, err := net.LookupPort("udp", port)
	switch {
	case err != nil:
		return fmt.Errorf("-%s %s: %q is not a port (1 to 65535)", flagName, addr, port)
	case n == 0:
		return fmt.Errorf("-%s %s: port 0 is not one to connect to: give the port the player listens on", flagName, addr)
	}
	return nil
}

// Exit statuses.
const (
	exitError = 1
	exitUsage = 2
)

// signalError is the cause of the context's cancellation when a signal arrives.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "terminated by " + unix.SignalName(e.sig) }

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "duel:", err)
		return exitUsage
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalError{sig.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()

	err = run(ctx, opts, stdout, stderr)
	var sigErr signalError
	switch {
	case err == nil:
		return 0
	case errors.As(context.Cause(ctx), &sigErr):
		fmt.Fprintln(stderr, "duel:", sigErr)
		return 128 + int(sigErr.sig)
	default:
		fmt.Fprintln(stderr, "duel:", err)
		return exitError
	}
}

// run does what opts ask until it is done (nil), ctx is cancelled, or something fails.
func run(ctx context.Context, opts options, stdout, stderr io.Writer) error {
	switch {
	case opts.replayPath != "":
		return runReplay(ctx, opts.replayPath, opts.seed, stdout)
	case opts.synctest:
		return runSyncTest(ctx, opts, stdout)
	}
	return runNetwork(ctx, opts, stdout, stderr)
}
