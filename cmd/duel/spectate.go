package main

// Spectating (-spectate): a netplay spectator session of the game hosted by the player who
// listens. It runs every tick the players have settled, behind them, and is shown as they see
// it, with what a spectator has to say on the message row and the status line.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
)

// startSpectator starts the spectator's session of the game hosted at host.
func (a *app) startSpectator(host net.Addr) error {
	cfg := netplay.Config[duel.Input]{
		Codec:          duel.Codec{},
		TickRate:       duel.TickRate,
		DesyncInterval: duel.SyncEvery,
		Record:         a.rec.writer(),
		RecordName:     duelnet.RecordName,
		RecordMeta:     duelnet.StartMeta(a.opts.seed),
	}
	if a.opts.relay != "" {
		cfg.Relay, cfg.Match, cfg.Token = host, a.opts.match, a.opts.tokenBytes
		cfg.Snapshots = true // a match older than the relay keeps: from its latest state
	}
	s, err := netplay.NewSpectator(a.conn, host, 2, cfg)
	if err != nil {
		return fmt.Errorf("starting the session: %w", err)
	}
	a.game.Resize(s.Slots())
	a.session = s
	a.peer = host.String()
	a.status.Message = "connecting to the game at " + a.peer
	return nil
}

// spectatorEvent shows what a spectator's session reports.
func (a *app) spectatorEvent(e *netplay.Event) {
	switch e.Kind {
	case netplay.EventSynchronizing:
		a.heard = true
		a.status.Message = fmt.Sprintf("synchronizing with the game's host: %d of %d", e.Count, e.Total)
	case netplay.EventRunning:
		a.heard, a.running = true, true
		a.status.Message = "spectating the game at " + a.peer
	case netplay.EventInterrupted:
		a.status.Message = fmt.Sprintf("the game's host is not heard from: disconnecting in %v", e.Timeout.Round(100*time.Millisecond))
	case netplay.EventResumed:
		a.status.Message = "the game's host is back"
	case netplay.EventDisconnected:
		// The host dropped a player: it left, or the host lost it. The game goes on without it.
		a.status.Message = fmt.Sprintf("%s player is out of the game after tick %d", strings.ToUpper(duelnet.SideName(e.Handle)[:1])+duelnet.SideName(e.Handle)[1:], e.Tick)
	case netplay.EventDesync:
		a.noteDesync(e)
		return // printed at the end, headless
	default:
		return
	}
	if a.logs() && e.Kind != netplay.EventSynchronizing {
		fmt.Fprintf(a.stderr, "duel: %s\n", a.status.Message)
	}
}

// hostGone takes the spectator session's end, err, once its host has gone: it said goodbye
// (its game is over), or it went unheard for the timeout (lost: an error). Headless, a host
// gone before the tick asked for has run is an error either way.
func (a *app) hostGone(err error) error {
	tick := a.session.Tick()
	reason := hostReason(err)
	left := reason == netplay.ReasonLeft
	switch {
	case a.ends() && left:
		return fmt.Errorf("the game's host at %s left after tick %d, before tick %d", a.peer, tick, a.opts.ticks)
	case a.ends():
		return fmt.Errorf("the game's host at %s was lost after tick %d (%s), before tick %d", a.peer, tick, reason, a.opts.ticks)
	case left:
		a.over = fmt.Sprintf("the game is over: its host at %s left after tick %d", a.peer, tick)
		return nil
	}
	return fmt.Errorf("the game's host at %s was lost after tick %d (%s)", a.peer, tick, reason)
}

// hostReason returns why netplay's spectator session lost its host, from its error:
// netplay.ReasonLeft when it said goodbye, "unheard for 2s" when it stopped answering; the
// error's text for any other error.
func hostReason(err error) string {
	var lost *netplay.HostLostError
	if errors.As(err, &lost) {
		return lost.Reason
	}
	return err.Error()
}

// spectatorEnd ends a headless spectator's run: once tick opts.ticks has run, it prints its
// checksum and stops. A spectator leaving changes nothing for the players: it need not wait.
func (a *app) spectatorEnd() error {
	if !a.final.Done() {
		return nil
	}
	if _, err := fmt.Fprintln(a.stdout, a.final.Line()); err != nil {
		return fmt.Errorf("printing the checksum: %w", err)
	}
	a.printed = true
	return gameloop.ErrStop
}

// printSpectatorStats prints what the spectator's session did, on one line: the ticks run, how
// many it was behind what it had received at the end, the round trip to the host and the
// traffic (UDP payload) each way.
func (a *app) printSpectatorStats(w io.Writer) {
	st := a.session.Stats()
	ps := a.session.PeerStats(0)
	secs := a.loop.Stats().RealTime.Seconds()
	perSecond := func(n uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	fmt.Fprintf(w, "duel: spectated %d ticks in %.1fs, %d behind at the end; ping %v; "+
		"received %d packets (%.0f/s), %d bytes (%.0f B/s); sent %d packets, %d bytes (%.0f B/s); dropped %d\n",
		st.Tick, secs, st.Behind, ps.Ping.Round(time.Millisecond),
		st.PacketsReceived, perSecond(st.PacketsReceived), st.BytesReceived, perSecond(st.BytesReceived),
		st.PacketsSent, st.BytesSent, perSecond(st.BytesSent), st.Dropped)
}
