// Package rooms has a relay join rooms of a lobby (package netplay/rtc/lobby) when their
// players ask: a room of three, the relay and two players, who then play through it
// (package netplay/relay, over WebRTC data channels) rather than peer to peer, finding which
// member the relay is with netplay.FindRelay. A page or a program asks with POST
// /relay?room=NAME at the lobby's server before it joins the room; cmd/duelweb and cmd/lobby
// -relay serve it.
package rooms

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/netplay/relay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
)

// Defaults of Options.
const (
	DefaultMaxRooms = 100
	DefaultWait     = 2 * time.Minute
)

// Size is the size of a relayed room: the relay and two players.
const Size = 3

// Options configure a Relay; zero fields take the defaults.
type Options struct {
	// MaxRooms is how many rooms the relay serves at once: DefaultMaxRooms if 0.
	MaxRooms int
	// Wait is how long the relay waits in a room for the players, and then for the match
	// to begin: DefaultWait if 0.
	Wait time.Duration
	// Logf, if set, is told of rooms that failed.
	Logf func(format string, args ...any)
	// Path is the lobby's WebSocket path at the host the ask came to: "/ws" if empty.
	Path string
}

// Relay joins rooms of the lobby served at the same host as itself when asked (POST
// /relay?room=NAME), and serves each room's match (netplay/relay) until it has come and gone,
// its matches on one pool. It is an http.Handler; it is safe for concurrent use.
type Relay struct {
	ctx   context.Context
	pool  *gameloop.Pool
	opts  Options
	mu    sync.Mutex
	rooms map[string]bool
	wg    sync.WaitGroup
}

// New returns a Relay whose matches run on pool until ctx ends.
func New(ctx context.Context, pool *gameloop.Pool, opts *Options) *Relay {
	rr := &Relay{ctx: ctx, pool: pool, rooms: map[string]bool{}}
	if opts != nil {
		rr.opts = *opts
	}
	if rr.opts.MaxRooms <= 0 {
		rr.opts.MaxRooms = DefaultMaxRooms
	}
	if rr.opts.Wait <= 0 {
		rr.opts.Wait = DefaultWait
	}
	if rr.opts.Path == "" {
		rr.opts.Path = "/ws"
	}
	if rr.opts.Logf == nil {
		rr.opts.Logf = func(string, ...any) {}
	}
	return rr
}

// ServeHTTP takes a player's ask for a relay in its room: 202 when the relay goes to join it,
// 200 when it is there already, 400 for a bad room name, 503 when it serves all the rooms it
// takes.
func (rr *Relay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST /relay?room=NAME", http.StatusMethodNotAllowed)
		return
	}
	room := r.URL.Query().Get("room")
	if !validRoom(room) {
		http.Error(w, fmt.Sprintf("room: a name of 1 to %d printable characters", lobby.MaxRoomName), http.StatusBadRequest)
		return
	}
	scheme := "ws"
	if r.TLS != nil {
		scheme = "wss"
	}
	rr.mu.Lock()
	switch {
	case rr.rooms[room]:
		rr.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case len(rr.rooms) >= rr.opts.MaxRooms:
		rr.mu.Unlock()
		http.Error(w, "the relay serves all the rooms it takes", http.StatusServiceUnavailable)
		return
	}
	rr.rooms[room] = true
	rr.wg.Add(1)
	rr.mu.Unlock()
	go rr.serve(scheme+"://"+r.Host+rr.opts.Path, room)
	w.WriteHeader(http.StatusAccepted)
}

// validRoom reports whether name is a room name the lobby takes.
func validRoom(name string) bool {
	if name == "" || len(name) > lobby.MaxRoomName || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// serve joins room at the lobby as its relay and serves its match until the match has ended
// (or has not begun within relayWait), or the server stops.
func (rr *Relay) serve(lobbyURL, room string) {
	defer rr.wg.Done()
	defer func() {
		rr.mu.Lock()
		delete(rr.rooms, room)
		rr.mu.Unlock()
	}()
	dctx, cancel := context.WithTimeout(rr.ctx, rr.opts.Wait)
	conn, err := rtc.Dial(dctx, lobbyURL, room, Size, nil)
	cancel()
	if err != nil {
		rr.opts.Logf("relay: room %q: %v", room, err)
		return
	}
	defer conn.Close()
	r, err := relay.New(conn, rr.pool, &relay.Options{MaxMatches: 1})
	if err != nil {
		rr.opts.Logf("relay: room %q: %v", room, err)
		return
	}
	ctx, stop := context.WithCancel(rr.ctx)
	defer stop()
	go func() {
		// Until the match has come and gone.
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		began, start := false, time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			switch n := len(r.Matches()); {
			case n > 0:
				began = true
			case began || time.Since(start) > rr.opts.Wait:
				stop()
				return
			}
		}
	}()
	if err := r.Serve(ctx); ctx.Err() == nil {
		rr.opts.Logf("relay: room %q: %v", room, err)
	}
}

// Wait waits for the rooms being served to end (after the context given to New ends).
func (rr *Relay) Wait() { rr.wg.Wait() }
