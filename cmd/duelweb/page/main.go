//go:build js && wasm

// Command page is the duel (cmd/duel) in a web page: the same game, played over WebRTC data
// channels (netplay/rtc) with a player in another page or in a terminal, who joined the same
// room at the same lobby; the first to join plays the left paddle. It runs on
// requestAnimationFrame through backend/web and draws the terminal's view, status line
// included, on a canvas. Keys are held from press to release (w/s, the arrows, k/j), a
// gamepad plays with its d-pad or left stick, and q or Escape leaves the game. The session is
// recorded in memory; once the game ends the page offers the recording for download, for
// duel -replay. go run ./cmd/duelweb builds it and serves it with its page and a lobby.
//
// The page's query: lobby (the lobby's WebSocket URL; by default ws://HOST/ws of the page's
// own host), room (duel), seed (1; both players must give the same), delay and window (the
// session's input delay and prediction window, 2 and 8), bot=SEED (a seeded bot plays) and
// ticks=N (once tick N is final, the page shows "tick N checksum HEX" and ends the game, as
// duel -headless does), and relay=1 (the two pages play through the relay of the page's
// server, which joins the room as its third member: the window is then 16 by default).
package main

import (
	"context"
	"fmt"
	"syscall/js"
)

func main() {
	p, err := start()
	if err == nil {
		err = p.run(context.Background())
	}
	text := "the game has ended"
	if err != nil {
		js.Global().Get("console").Call("error", "duel: "+err.Error())
		text = "duel stopped: " + err.Error()
	}
	if p != nil {
		p.end(text)
	} else {
		showMessage(text)
	}
	select {} // the page's functions go on answering
}

// showMessage shows text under the canvas.
func showMessage(text string) {
	if el := js.Global().Get("document").Call("getElementById", "message"); !el.IsNull() {
		el.Set("textContent", text)
	}
}

// start reads the page's query and opens the canvas.
func start() (*page, error) {
	win := js.Global()
	loc := win.Get("location")
	q, err := parseQuery(loc.Get("search").String(), loc.Get("protocol").String(), loc.Get("host").String())
	if err != nil {
		return nil, fmt.Errorf("the page's query: %w", err)
	}
	return newPage(q)
}
