//go:build !(js && wasm)

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/internal/bouncegame"
	"github.com/gameloop-go/gameloop/internal/wasmsite"
	"github.com/gameloop-go/gameloop/replay"
)

// recording returns a recording of a few ticks of a game named name with meta.
func recording(t *testing.T, name string, meta []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, 10, &replay.RecordOptions{Name: name, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	for tick := uint64(1); tick <= 3; tick++ {
		if err := rec.Tick(&gameloop.Update{Tick: tick, Seconds: 0.1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The server serves the page, the game and wasm_exec.js, and writes a recording POSTed to
// /record to its -record file, once it has checked it is a whole recording of bounce.
func TestHandler(t *testing.T) {
	dir := t.TempDir()
	s := site{&wasmsite.Site{Wasm: filepath.Join(dir, "bounce.wasm"), WasmExec: filepath.Join(dir, "wasm_exec.js"), Name: "bounce.wasm", Page: indexHTML}}
	for _, f := range []string{s.Wasm, s.WasmExec} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record := filepath.Join(dir, "web.rec")
	var log syncBuffer
	ts := httptest.NewServer(s.handler(record, &log))
	defer ts.Close()
	for path, want := range map[string]string{"/": "text/html; charset=utf-8", "/bounce.wasm": "application/wasm", "/wasm_exec.js": "text/javascript; charset=utf-8"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("GET %s: Content-Type %q, want %q", path, got, want)
		}
	}
	if resp, err := http.Get(ts.URL + "/nothing"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing: %v %v, want 404", resp, err)
	}

	start := bouncegame.Start{Seed: 1, Balls: 5, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}
	good := recording(t, bouncegame.RecordingName, start.Encode())
	for _, tt := range []struct {
		name string
		body []byte
		code int
	}{
		{"not a recording", []byte("hello"), http.StatusBadRequest},
		{"cut short", good[:len(good)-4], http.StatusBadRequest},
		{"another game", recording(t, "colorfade", nil), http.StatusBadRequest},
		{"a bad start", recording(t, bouncegame.RecordingName, []byte("bounce-start/1 seed=1")), http.StatusBadRequest},
		{"bounce", good, http.StatusOK},
	} {
		resp, err := http.Post(ts.URL+"/record", "application/octet-stream", bytes.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("%s: %s, want %d", tt.name, resp.Status, tt.code)
		}
		written, err := os.ReadFile(record)
		switch {
		case tt.code != http.StatusOK && err == nil:
			t.Errorf("%s: refused, but %s was written", tt.name, record)
		case tt.code == http.StatusOK && !bytes.Equal(written, good):
			t.Errorf("%s: %s holds %d bytes, not the %d sent (%v)", tt.name, record, len(written), len(good), err)
		}
	}
	if !strings.Contains(log.String(), "saved the recording of 3 ticks, 0 inputs to "+record) {
		t.Errorf("the server's log:\n%s", log.String())
	}

	// Without -record, the page is told to download the recording instead.
	ts2 := httptest.NewServer(s.handler("", &log))
	defer ts2.Close()
	resp, err := http.Post(ts2.URL+"/record", "application/octet-stream", bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /record without -record: %s, want 404", resp.Status)
	}
}

// A bad flag or argument exits 2, as the flag package's ExitOnError does, with its error
// printed once (the flag package prints a bad flag's, with the usage); -h prints the usage and
// exits 0.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		once string
	}{
		{[]string{"-nosuchflag"}, 2, "flag provided but not defined: -nosuchflag"},
		{[]string{"-addr"}, 2, "flag needs an argument: -addr"},
		{[]string{"extra"}, 2, `bounceweb: unexpected arguments ["extra"]`},
		{[]string{"-h"}, 0, "-record file"},
	} {
		var stdout, stderr bytes.Buffer
		if code := realMain(tt.args, &stdout, &stderr); code != tt.code || strings.Count(stderr.String(), tt.once) != 1 {
			t.Errorf("bounceweb %q: exit status %d, stderr %q; want %d and %q once", tt.args, code, stderr.String(), tt.code, tt.once)
		}
	}
}

// testdata/chromium.rec was recorded in headless Chromium by TestBrowser (with -args
// -recording): bounce as WebAssembly, keys pressed in the page. It replays matched here, on
// whatever machine runs the tests, with every tick's checksum compared.
func TestChromiumRecordingReplays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "chromium.rec"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Checksums) != int(rec.Ticks) || len(rec.RateChanges) != 1 || len(rec.Inputs) < 10 {
		t.Fatalf("the recording has %d ticks, %d checksums, %d inputs, rate changes %v: not the one the browser test makes",
			rec.Ticks, len(rec.Checksums), len(rec.Inputs), rec.RateChanges)
	}
	res, err := bouncegame.Replay(t.Context(), rec.Header, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched() {
		t.Errorf("the recording made in Chromium: %v", res)
	}
}

// testdata/chromium-gamepad.rec was recorded in headless Chromium by TestBrowserGamepad (with
// -args -gamepad-recording): bounce as WebAssembly played with a scripted gamepad through the
// browser's Gamepad API. It holds the gamepad's inputs, its axes quantised, and replays matched
// here, every tick's checksum compared: a recording with gamepad input made in one backend
// replays on another.
func TestChromiumGamepadRecordingReplays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "chromium-gamepad.rec"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Checksums) != int(rec.Ticks) {
		t.Fatalf("the recording has %d ticks, %d checksums: want a checksum a tick", rec.Ticks, len(rec.Checksums))
	}
	checkGamepadInputs(t, rec)
	res, err := bouncegame.Replay(t.Context(), rec.Header, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matched() || res.Inputs != len(rec.Inputs) {
		t.Errorf("the recording made with a gamepad in Chromium: %v; want matched, all %d inputs", res, len(rec.Inputs))
	}
}

// The page's count of a recording's inputs is the replay's: inputs after the last tick (the q
// that ends a session) count in both, and both say how many came after it. The page used to say
// 37 inputs where the replay said 35.
func TestSaveCountsInputsAsReplay(t *testing.T) {
	start := bouncegame.Start{Seed: 1, Balls: 5, Width: 80, Height: 24, Glyphs: "braille", TickRate: 10}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder(&buf, 10, &replay.RecordOptions{Name: bouncegame.RecordingName, Meta: start.Encode()})
	if err != nil {
		t.Fatal(err)
	}
	g := bouncegame.New(start, nil, bouncegame.NewView(start.Glyphs, bouncegame.NewGrid(80, 24)))
	game := rec.Game(g)
	input := func(tick uint64, key gameloop.Key) {
		if err := game.(gameloop.InputHandler).Input(&gameloop.Input{Kind: gameloop.KeyPress, Key: key, Tick: tick}); err != nil {
			t.Fatal(err)
		}
	}
	for tick := uint64(1); tick <= 5; tick++ {
		input(tick, gameloop.KeySpace) // a ball more
		if err := game.Update(&gameloop.Update{Tick: tick, Seconds: 0.1, DT: 100 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	input(6, gameloop.KeySpace)
	input(6, gameloop.KeyBackspace)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "web.rec")
	msg, err := saveRecording(bytes.NewReader(buf.Bytes()), path)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := replay.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := bouncegame.Replay(t.Context(), decoded.Header, decoded)
	if err != nil || !res.Matched() {
		t.Fatalf("replay: %v, %v", res, err)
	}
	if want := "saved the recording of 5 ticks, 7 inputs, 2 of them after the last tick to " + path; msg != want || res.Inputs != 7 || res.Trailing != 2 {
		t.Errorf("saved: %q, want %q; the replay: %v", msg, want, res)
	}
}
