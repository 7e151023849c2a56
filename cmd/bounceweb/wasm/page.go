//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"syscall/js"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
	"github.com/gameloop-go/gameloop/internal/bounce"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/replay"
)

// page is the game as the page runs it: bounce, recorded from its start, painted on the canvas.
type page struct {
	game    *bouncegame.Game
	driver  *web.Driver
	played  gameloop.Game // game, recorded
	rec     *replay.Recorder
	recBuf  bytes.Buffer
	painter *painter
	saves   int
	// pads is each gamepad as the game's input left it, for the page's tests to read.
	pads [gameloop.MaxGamepads]gameloop.GamepadState
}

func newPage(s bouncegame.Start, g *bouncegame.Game, d *web.Driver, grid *bouncegame.Grid, ctx2d js.Value) (*page, error) {
	p := &page{game: g, driver: d, painter: newPainter(grid, ctx2d)}
	rec, err := replay.NewRecorder(&p.recBuf, s.TickRate, s.RecordOptions())
	if err != nil {
		return nil, fmt.Errorf("starting the recording: %w", err)
	}
	p.rec, p.played = rec, rec.Game(g)
	return p, nil
}

// Input hands the game its input, through the recorder. The canvas's size in pixels is the
// painter's business, not the game's: the game is a fixed grid of cells, painted at whatever
// size the canvas has, so a Resize is neither applied nor recorded (a replay would take its
// pixels for cells). s saves the recording.
func (p *page) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.Resize {
		p.painter.invalidate()
		return nil
	}
	if err := p.played.(gameloop.InputHandler).Input(in); err != nil {
		return err
	}
	if int(in.Gamepad) < len(p.pads) {
		p.pads[in.Gamepad].Apply(in) // only a gamepad's input changes it
	}
	if in.Kind == gameloop.Char && (in.Rune == 's' || in.Rune == 'S') {
		_, err := p.save()
		return err
	}
	return nil
}

// Update runs a tick of the game, through the recorder.
func (p *page) Update(u *gameloop.Update) error { return p.played.Update(u) }

// Render draws the frame into the grid and paints what changed on the canvas.
func (p *page) Render(r *gameloop.Render) error {
	if err := p.game.Render(r); err != nil {
		return err
	}
	p.painter.paint(r.Width, r.Height)
	return nil
}

// snapshot returns the recording so far as a complete recording, leaving the recorder going:
// the chunks written so far, read back, with an end after the last tick recorded.
func (p *page) snapshot() ([]byte, uint64, error) {
	if err := p.rec.Flush(); err != nil {
		return nil, 0, err
	}
	rec, err := replay.Decode(bytes.NewReader(p.recBuf.Bytes()))
	if err != nil && !errors.Is(err, replay.ErrTruncated) {
		return nil, 0, fmt.Errorf("reading the recording back: %w", err)
	}
	var out bytes.Buffer
	if err := rec.Encode(&out); err != nil {
		return nil, 0, fmt.Errorf("ending the recording: %w", err)
	}
	return out.Bytes(), rec.Ticks, nil
}

// save sends the recording so far to the server, which writes it to its -record file; if the
// server takes none, the browser downloads it as bounce.rec. The channel is closed once it is
// saved: the page's event loop must run meanwhile, so only a goroutine that is not handling an
// event (main) may wait for it.
func (p *page) save() (<-chan struct{}, error) {
	data, ticks, err := p.snapshot()
	if err != nil {
		return nil, fmt.Errorf("saving the recording: %w", err)
	}
	saved := make(chan struct{})
	p.saves++
	n := p.saves
	arr := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(arr, data)
	showMessage(fmt.Sprintf("saving the recording of %d ticks...", ticks))
	var then, fail, text js.Func
	release := func() {
		then.Release()
		fail.Release()
		text.Release()
		close(saved)
	}
	text = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		showMessage(fmt.Sprintf("save %d: %s", n, args[0].String()))
		return nil
	})
	then = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resp := args[0]
		if resp.Get("ok").Bool() {
			resp.Call("text").Call("then", text, fail)
			return nil
		}
		defer release()
		download(arr)
		showMessage(fmt.Sprintf("save %d: the recording of %d ticks is downloaded as bounce.rec (the server takes recordings with -record FILE)", n, ticks))
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		download(arr)
		showMessage(fmt.Sprintf("save %d: the server is unreachable: the recording of %d ticks is downloaded as bounce.rec", n, ticks))
		return nil
	})
	opts := js.Global().Get("Object").New()
	opts.Set("method", "POST")
	opts.Set("body", arr)
	js.Global().Call("fetch", "record", opts).Call("then", then, fail)
	return saved, nil
}

// download makes the browser save data as bounce.rec.
func download(data js.Value) {
	win := js.Global()
	parts := win.Get("Array").New(data)
	opts := win.Get("Object").New()
	opts.Set("type", "application/octet-stream")
	url := win.Get("URL").Call("createObjectURL", win.Get("Blob").New(parts, opts))
	a := win.Get("document").Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", "bounce.rec")
	a.Call("click")
	win.Get("URL").Call("revokeObjectURL", url)
}

// expose gives the page (and its tests) window.bounceweb: status() returns the status line,
// stats() the loop's statistics as JSON, gamepad(i) gamepad i as the game's input left it (a
// gameloop.GamepadState as JSON: Connected, Buttons, Axes), and sim() the simulation's ticks and
// balls as JSON ({"Ticks": n, "Balls": [bounce.Ball...]}, in its fixed-point units).
func (p *page) expose() {
	obj := js.Global().Get("Object").New()
	obj.Set("status", js.FuncOf(func(js.Value, []js.Value) any {
		return string(p.game.View.Status())
	}))
	obj.Set("gamepad", js.FuncOf(func(_ js.Value, args []js.Value) any {
		i := 0
		if len(args) > 0 && args[0].Type() == js.TypeNumber {
			i = args[0].Int()
		}
		if i < 0 || i >= len(p.pads) {
			return "gamepad " + strconv.Itoa(i) + " is not a slot"
		}
		return jsonOf(p.pads[i])
	}))
	obj.Set("sim", js.FuncOf(func(js.Value, []js.Value) any {
		return jsonOf(struct {
			Ticks uint64
			Balls []bounce.Ball
		}{p.game.Sim.Ticks(), p.game.Sim.Balls()})
	}))
	obj.Set("stats", js.FuncOf(func(js.Value, []js.Value) any {
		return jsonOf(statsOf(p.driver))
	}))
	js.Global().Set("bounceweb", obj)
}

// jsonOf returns v as JSON, or the error's text if it cannot be.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// pageStats is what window.bounceweb.stats() returns.
type pageStats struct {
	Ticks, Frames, DroppedTicks uint64
	FPS, TPS                    float64
	DroppedMs                   float64
	FrameP50Ms, FrameP99Ms      float64
	FrameMaxMs                  float64
	LateP50Ms, LateP99Ms        float64
	LateMaxMs                   float64
	LateTicks                   int
	Paused                      bool
	TimeScale                   float64
	TickRate                    int
	RealTimeMs                  float64
}

func statsOf(d *web.Driver) pageStats {
	st, late := d.Stats(), d.TickLateness()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	return pageStats{
		Ticks: st.Ticks, Frames: st.Frames, DroppedTicks: st.DroppedTicks, FPS: st.FPS, TPS: st.TPS,
		DroppedMs: ms(st.DroppedTime), FrameP50Ms: ms(st.FrameTimeP50), FrameP99Ms: ms(st.FrameTimeP99),
		FrameMaxMs: ms(st.FrameTimeMax), LateP50Ms: ms(late.P50), LateP99Ms: ms(late.P99), LateMaxMs: ms(late.Max),
		LateTicks: late.Ticks, Paused: st.Paused, TimeScale: st.TimeScale, TickRate: st.TickRate, RealTimeMs: ms(st.RealTime),
	}
}
