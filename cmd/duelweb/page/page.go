//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall/js"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
	"github.com/gameloop-go/gameloop/internal/duel"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay"
	"github.com/gameloop-go/gameloop/netplay/rtc"
)

// page is the game as the page runs it: waiting at the lobby for the other player, then the
// session's game, drawn on the canvas.
type page struct {
	q       query
	canvas  *web.Canvas
	driver  *web.Driver
	clock   gameloop.Clock
	cells   *cells
	painter *painter
	view    *duel.View
	game    *duelnet.Game

	dialed  chan dialResult // the lobby's answer; nil once the session has started
	cancel  context.CancelFunc
	conn    *rtc.Conn
	session *netplay.Session[duel.Input]
	inner   gameloop.Game // the session's loop adapter
	local   int
	rec     bytes.Buffer // the recording

	status  duel.Status
	events  []netplay.Event
	final   duelnet.Final
	heard   bool // the other player has answered the handshake
	peerOut bool // the other player left or was lost
	desync  *netplay.Event
	result  string // "tick N checksum HEX", once shown
	ended   string // how the game ended, once it has
	shown   string // the message shown under the canvas
}

// dialResult is what joining the room gave: through a relay, the slot it gave and its address.
type dialResult struct {
	conn  *rtc.Conn
	slot  int
	relay net.Addr
	err   error
}

// driverLoop is the Driver as netplay.NewLoopGame takes a loop: with the clock the session
// reads its time from.
type driverLoop struct {
	*web.Driver
	clock gameloop.Clock
}

func (d driverLoop) Clock() gameloop.Clock { return d.clock }

func newPage(q query) (*page, error) {
	canvas, err := web.OpenCanvas("duel")
	if err != nil {
		return nil, err
	}
	driver, err := web.NewDriver(gameloop.Config{TickRate: duel.TickRate})
	if err != nil {
		return nil, err
	}
	var bot *duel.Bot
	if q.bot {
		b := duel.NewBot(q.botSeed)
		bot = &b
	}
	c := &cells{}
	p := &page{
		q: q, canvas: canvas, driver: driver, clock: gameloop.NewSystemClock(),
		cells: c, painter: newPainter(c, canvas.Context2D()), view: duel.NewView(c),
		game:   duelnet.NewGame(q.seed, 0, bot), // with the slots its session asks for, once it starts
		events: make([]netplay.Event, 0, 16),
	}
	p.game.Source = duelnet.FromHeldKeys
	p.final.Want = q.ticks
	p.expose()
	p.onPageHide()
	return p, nil
}

// onPageHide says goodbye to the other player when the page goes (closed, reloaded or left):
// the page's pagehide handler closes the session at once, so that the other player hears that
// this one left rather than losing it for want of hearing from it. The handler must not block
// (no Go function called from JavaScript may), so the conn does not wait for its last datagrams
// to go out: the goodbye gets as far as the browser takes it before the page is gone.
func (p *page) onPageHide() {
	js.Global().Call("addEventListener", "pagehide", js.FuncOf(func(js.Value, []js.Value) any {
		switch {
		case p.ended != "":
		case p.session != nil:
			p.conn.SetFlushTimeout(0)
			err := p.session.Close()
			p.ended = "the page was left"
			if err != nil {
				p.ended += "; closing the session: " + err.Error()
			}
		case p.cancel != nil:
			p.cancel() // stops joining the room
		}
		return nil
	}))
}

// run joins the room, in the background, and runs the game on the page's frames until it
// ends: q or Escape, the tick asked for settled with the other player, or an error.
func (p *page) run(ctx context.Context) error {
	dctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	p.dialed = make(chan dialResult, 1)
	p.status.Message = fmt.Sprintf("joining room %q at %s: waiting for the other player", p.q.room, p.q.lobby)
	p.showMessage()
	go func() { p.dialed <- p.dial(dctx) }()
	return p.canvas.Run(ctx, p.driver, p)
}

// dial joins the room: with the other player, or with it and the server's relay, asked to
// join first, which then gives this page its slot.
func (p *page) dial(ctx context.Context) dialResult {
	if !p.q.relay {
		conn, err := rtc.Dial(ctx, p.q.lobby, p.q.room, 2, nil)
		return dialResult{conn: conn, err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.q.origin+"/relay?room="+url.QueryEscape(p.q.room), nil)
	if err != nil {
		return dialResult{err: err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return dialResult{err: fmt.Errorf("asking the server for a relay: %w", err)}
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return dialResult{err: fmt.Errorf("asking the server for a relay: %s", resp.Status)}
	}
	conn, err := rtc.Dial(ctx, p.q.lobby, p.q.room, 3, nil)
	if err != nil {
		return dialResult{err: err}
	}
	var others []net.Addr
	for i := range conn.Size() {
		if i != conn.Index() {
			others = append(others, conn.PeerAddr(i))
		}
	}
	// The room's order is the order of joining: which member is the relay, its answer says.
	slot, relay, err := netplay.FindRelay(ctx, conn, others, p.q.room, nil, 2, duel.Codec{}.Size(), duel.TickRate)
	if err != nil {
		return dialResult{err: errors.Join(err, conn.Close())}
	}
	return dialResult{conn: conn, slot: slot, relay: relay}
}

// end ends the session (telling the other player, ending the recording), or stops joining, and
// shows how the game ended, with the recording to download.
func (p *page) end(text string) {
	if p.ended != "" {
		return // ended when the page went
	}
	if p.cancel != nil {
		p.cancel()
	}
	var err error
	switch {
	case p.session != nil:
		err = p.session.Close()
	case p.dialed != nil:
		if r := <-p.dialed; r.conn != nil {
			err = r.conn.Close()
		}
	}
	if err != nil {
		text += "; closing the session: " + err.Error()
	}
	if p.desync != nil {
		text += "; " + duelnet.DesyncMessage(p.desync)
	}
	if p.result != "" {
		text = p.result + "; " + text
	}
	p.ended = text
	showMessage(text)
	if p.rec.Len() > 0 {
		offerDownload(p.rec.Bytes())
	}
}

// start starts the session with the other player, whose conn the lobby gave, or with the
// relay.
func (p *page) start(r dialResult) error {
	conn := r.conn
	p.conn, p.local = conn, conn.Index()
	var peer net.Addr = r.relay
	if r.relay != nil {
		p.local = r.slot // the room's order is not the match's
	} else {
		peer = conn.PeerAddr(1 - p.local)
	}
	cfg := duelnet.Config(p.local, peer, duelnet.Settings{
		Delay: p.q.delay, Window: p.q.window, Seed: p.q.seed, Record: &p.rec,
	})
	if r.relay != nil {
		cfg.Players[1-p.local].Addr = nil
		cfg.Relay, cfg.Match = r.relay, p.q.room
	}
	s, err := netplay.NewSession(conn, cfg)
	if err != nil {
		return errors.Join(fmt.Errorf("starting the session: %w", err), conn.Close())
	}
	p.game.Resize(s.Slots())
	p.session = s
	p.inner = netplay.NewLoopGame(s, p.game, driverLoop{p.driver, p.clock})
	p.status.Message = "connecting to the other player"
	p.showMessage()
	return nil
}

// Update runs one tick: while joining, a look for the lobby's answer; then a tick of the
// session.
func (p *page) Update(u *gameloop.Update) error {
	if p.session == nil {
		select {
		case r := <-p.dialed:
			p.dialed = nil
			if r.err != nil {
				return r.err
			}
			if err := p.start(r); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	if err := p.inner.Update(u); err != nil {
		return err
	}
	p.events = p.session.Events(p.events[:0])
	for i := range p.events {
		p.event(&p.events[i])
	}
	if err := p.final.Update(p.session.Stats(), p.session.Checksum, &p.status); err != nil {
		return err
	}
	if p.q.ticks == 0 {
		return nil
	}
	// Given ticks, the page plays as duel -headless does: it shows the tick's checksum once it is
	// final, and ends the game once the other player has it final too (or has gone).
	switch {
	case p.desync != nil:
		return fmt.Errorf("the game desynchronized at tick %d", p.desync.Tick)
	case p.result == "" && p.final.Done():
		p.result = p.final.Line()
	case p.result != "" && (p.peerOut || duelnet.Settled(p.session, p.local, p.q.ticks)):
		return gameloop.ErrStop
	case p.result == "" && p.peerOut:
		return fmt.Errorf("the other player went before tick %d was final", p.q.ticks)
	}
	return nil
}

// event shows what the session reports on the message row.
func (p *page) event(e *netplay.Event) {
	if e.Kind == netplay.EventDesync {
		if p.desync == nil {
			d := *e
			p.desync = &d
			p.status.Message = duelnet.DesyncMessage(e)
		}
		return
	}
	msg, ok := duelnet.Message(e, p.local)
	if !ok {
		return
	}
	p.status.Message = msg
	switch e.Kind {
	case netplay.EventSynchronizing, netplay.EventRunning:
		p.heard = true
	case netplay.EventDisconnected:
		p.peerOut = true
		p.status.Message += " (q quits)"
	}
}

// Input handles the keys and the gamepads: the paddle's, and q or Escape to quit.
func (p *page) Input(in *gameloop.Input) error {
	switch {
	case in.Kind == gameloop.KeyPress && (in.Key == gameloop.KeyQ || in.Key == gameloop.KeyEscape):
		return gameloop.ErrStop
	case in.Kind == gameloop.Resize:
		p.painter.invalidate()
	}
	p.game.Held.Apply(in)
	return nil
}

// Render draws the game with the session's figures on the status line, and shows the message
// under the canvas too, whole.
func (p *page) Render(r *gameloop.Render) error {
	st := &p.status
	st.Player = p.local
	st.NoPeer = p.session == nil || !p.heard || p.peerOut
	if p.session != nil {
		duelnet.ShowSession(st, p.session, p.local, st.NoPeer)
	}
	// The canvas's message row is as wide as the view: a longer message ends there with an
	// ellipsis, and is read whole under the canvas.
	row := *st
	row.Message = fitRow(st.Message, duel.ViewWidth)
	p.view.Draw(&p.game.State, &row)
	p.painter.paint(r.Width, r.Height)
	p.showMessage()
	return nil
}

// showMessage shows the message (with the checksum line, once shown) under the canvas, where it
// wraps, when it has changed.
func (p *page) showMessage() {
	text := p.status.Message
	if p.result != "" {
		text = p.result + "; " + text
	}
	if text != p.shown {
		showMessage(text)
		p.shown = text
	}
}

// expose gives the page (and its tests) window.duelweb: status() returns the status line,
// message() the message, whole (the canvas's row shows what fits of it), result() "tick N checksum HEX" once shown (given ticks), ended()
// how the game ended ("" while it runs), and recording() the recording, base64-encoded, once
// the game has ended ("" before).
func (p *page) expose() {
	obj := js.Global().Get("Object").New()
	obj.Set("status", js.FuncOf(func(js.Value, []js.Value) any { return p.cells.line(duel.ViewHeight - 1) }))
	obj.Set("message", js.FuncOf(func(js.Value, []js.Value) any { return p.status.Message }))
	obj.Set("result", js.FuncOf(func(js.Value, []js.Value) any { return p.result }))
	obj.Set("ended", js.FuncOf(func(js.Value, []js.Value) any { return p.ended }))
	obj.Set("recording", js.FuncOf(func(js.Value, []js.Value) any {
		if p.ended == "" {
			return ""
		}
		return base64.StdEncoding.EncodeToString(p.rec.Bytes())
	}))
	js.Global().Set("duelweb", obj)
}

// offerDownload adds a link under the canvas that saves the recording as duel.rec.
func offerDownload(data []byte) {
	win := js.Global()
	doc := win.Get("document")
	el := doc.Call("getElementById", "download")
	if el.IsNull() {
		return
	}
	arr := win.Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	opts := win.Get("Object").New()
	opts.Set("type", "application/octet-stream")
	url := win.Get("URL").Call("createObjectURL", win.Get("Blob").New(win.Get("Array").New(arr), opts))
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", "duel.rec")
	a.Set("textContent", fmt.Sprintf("download the recording (duel.rec, %d bytes)", len(data)))
	el.Call("replaceChildren", a)
	el.Call("append", " and replay it with go run ./cmd/duel -replay duel.rec")
}
