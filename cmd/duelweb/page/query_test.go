package main

import (
	"strings"
	"testing"
)

// The page's query: the lobby by default at the page's own host (wss for a page over https),
// the defaults of duel's flags, and bad values refused with the parameter named.
func TestParseQuery(t *testing.T) {
	q, err := parseQuery("", "http:", "127.0.0.1:8090")
	if err != nil || q.lobby != "ws://127.0.0.1:8090/ws" || q.room != "duel" || q.seed != 1 || q.delay != 2 || q.window != 8 || q.bot || q.ticks != 0 {
		t.Errorf("no query: %+v, %v; want the defaults", q, err)
	}
	if q, _ := parseQuery("", "https:", "example.com"); q.lobby != "wss://example.com/ws" {
		t.Errorf("a page over https: lobby %q, want wss://example.com/ws", q.lobby)
	}
	q, err = parseQuery("?room=r+1&lobby=ws://10.0.0.1:9/ws&bot=0&ticks=600&seed=7&delay=0&window=0", "http:", "h")
	if err != nil || q.room != "r 1" || q.lobby != "ws://10.0.0.1:9/ws" || !q.bot || q.botSeed != 0 || q.ticks != 600 || q.seed != 7 || q.delay != 0 || q.window != 0 {
		t.Errorf("a full query: %+v, %v", q, err)
	}
	for query, want := range map[string]string{
		"lobby=http://h/ws":  "lobby=http://h/ws: not a WebSocket URL",
		"bot=x":              "bot=x: not an unsigned integer",
		"ticks=-1":           "ticks=-1",
		"ticks=99999999999":  "ticks: at most",
		"delay=31":           "delay=31: want 0 to 30",
		"window=61":          "window=61: want 0 to 60",
		"seed=1&seed=%zz":    "invalid URL escape",
		"window=-1&delay=-1": "want 0 to",
	} {
		if _, err := parseQuery(query, "http:", "h"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("?%s: %v, want an error saying %q", query, err, want)
		}
	}
}
