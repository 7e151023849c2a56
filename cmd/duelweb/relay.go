package main

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

// maxRelayed is how many rooms the server's relay serves at once.
const maxRelayed = 100

// relayWait is how long the relay waits in a room for the players, and then for the match to
// begin.
const relayWait = 2 * time.Minute

// roomRelay joins rooms of the server's lobby as their relay when a page asks (POST
// /relay?room=NAME, a page with relay=1): a room of three, the relay and two players, who then
// play through it (netplay/relay over WebRTC data channels) rather than peer to peer: the
// relay decides every tick, and each page needs to reach only it. Its matches run on one pool.
type roomRelay struct {
	ctx   context.Context
	pool  *gameloop.Pool
	logf  func(format string, args ...any)
	mu    sync.Mutex
	rooms map[string]bool
	wg    sync.WaitGroup
}

func newRoomRelay(ctx context.Context, pool *gameloop.Pool, logf func(string, ...any)) *roomRelay {
	return &roomRelay{ctx: ctx, pool: pool, logf: logf, rooms: map[string]bool{}}
}

// ServeHTTP takes a page's ask for a relay in its room: 202 when the relay goes to join it,
// 200 when it is there already, 400 for a bad room name, 503 when it serves all the rooms it
// takes.
func (rr *roomRelay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	case len(rr.rooms) >= maxRelayed:
		rr.mu.Unlock()
		http.Error(w, "the relay serves all the rooms it takes", http.StatusServiceUnavailable)
		return
	}
	rr.rooms[room] = true
	rr.wg.Add(1)
	rr.mu.Unlock()
	go rr.serve(scheme+"://"+r.Host+"/ws", room)
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
func (rr *roomRelay) serve(lobbyURL, room string) {
	defer rr.wg.Done()
	defer func() {
		rr.mu.Lock()
		delete(rr.rooms, room)
		rr.mu.Unlock()
	}()
	dctx, cancel := context.WithTimeout(rr.ctx, relayWait)
	conn, err := rtc.Dial(dctx, lobbyURL, room, 3, nil)
	cancel()
	if err != nil {
		rr.logf("relay: room %q: %v", room, err)
		return
	}
	defer conn.Close()
	r, err := relay.New(conn, rr.pool, &relay.Options{MaxMatches: 1})
	if err != nil {
		rr.logf("relay: room %q: %v", room, err)
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
			case began || time.Since(start) > relayWait:
				stop()
				return
			}
		}
	}()
	if err := r.Serve(ctx); ctx.Err() == nil {
		rr.logf("relay: room %q: %v", room, err)
	}
}

// wait waits for the rooms being served to end (the server's context ended).
func (rr *roomRelay) wait() { rr.wg.Wait() }
