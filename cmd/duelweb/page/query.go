package main

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gameloop-go/gameloop/netplay"
)

// query is what the page's query asks for.
type query struct {
	lobby, room   string
	origin        string // the page's server, as http(s)://HOST
	relay         bool   // play through the server's relay
	windowSet     bool   // window was given
	seed          uint64
	delay, window int
	bot           bool
	botSeed       uint64
	ticks         uint64
}

// maxTicks bounds ticks: a day at 60 ticks a second.
const maxTicks = 24 * 60 * 60 * 60

// parseQuery reads the query of a page loaded over protocol ("http:" or "https:") from host:
// the lobby is by default the host's, at /ws.
func parseQuery(search, protocol, host string) (query, error) {
	v, err := url.ParseQuery(trimQuestion(search))
	if err != nil {
		return query{}, err
	}
	scheme := "ws"
	if protocol == "https:" {
		scheme = "wss"
	}
	q := query{lobby: scheme + "://" + host + "/ws", room: "duel", seed: 1, delay: 2, window: netplay.DefaultPredictionWindow,
		origin: strings.TrimSuffix(protocol, ":") + "://" + host}
	switch r := v.Get("relay"); r {
	case "", "0", "false":
	case "1", "true":
		q.relay = true
	default:
		return q, fmt.Errorf("relay=%s: want 1 or 0", r)
	}
	if s := v.Get("lobby"); s != "" {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return q, fmt.Errorf("lobby=%s: not a WebSocket URL (ws://HOST:PORT/ws)", s)
		}
		q.lobby = s
	}
	if s := v.Get("room"); s != "" {
		q.room = s
	}
	for _, f := range []struct {
		name string
		to   *uint64
		set  *bool
	}{{"seed", &q.seed, nil}, {"bot", &q.botSeed, &q.bot}, {"ticks", &q.ticks, nil}} {
		s := v.Get(f.name)
		if s == "" {
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return q, fmt.Errorf("%s=%s: not an unsigned integer", f.name, s)
		}
		*f.to = n
		if f.set != nil {
			*f.set = true
		}
	}
	for _, f := range []struct {
		name     string
		to       *int
		min, max int
	}{{"delay", &q.delay, 0, netplay.MaxInputDelay}, {"window", &q.window, 0, netplay.MaxPredictionWindow}} {
		s := v.Get(f.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < f.min || n > f.max {
			return q, fmt.Errorf("%s=%s: want %d to %d", f.name, s, f.min, f.max)
		}
		*f.to = n
		q.windowSet = q.windowSet || f.name == "window"
	}
	if q.relay && !q.windowSet {
		q.window = netplay.DefaultRelayPredictionWindow // a round trip to the relay
	}
	if q.ticks > maxTicks {
		return q, errors.New("ticks: at most a day's (5184000)")
	}
	return q, nil
}

func trimQuestion(s string) string {
	if len(s) > 0 && s[0] == '?' {
		return s[1:]
	}
	return s
}
