//go:build !(js && wasm)

package main

// The browser tests: the duel's page built for WebAssembly, served by this command's handler
// with a lobby on 127.0.0.1, played in headless Chromium driven with chromedp, against another
// page or a native duel -lobby. They poll the page until what they wait for shows up; the
// timeouts only bound how long a failing test takes.

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"github.com/gameloop-go/gameloop"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/chromedp"

	"github.com/gameloop-go/gameloop/internal/chromiumtest"
	"github.com/gameloop-go/gameloop/internal/duelnet"
	"github.com/gameloop-go/gameloop/netplay/relay/rooms"
	"github.com/gameloop-go/gameloop/netplay/rtc/lobby"
	"github.com/gameloop-go/gameloop/replay"
)

// waitTimeout bounds every wait for a page to show something: a game of 600 ticks takes 10 s.
const waitTimeout = 90 * time.Second

// chromiumFlags are the flags Chromium runs with: chromiumtest's, and two that a game between
// pages needs:
//
//   - --disable-features=WebRtcHideLocalIpsWithMdns: by default a page offers its host
//     candidates as mDNS names (NAME.local), which do not resolve in a sandbox without
//     multicast, so that no peer connection would connect; with it, the page offers its IP
//     addresses.
//   - --disable-background-timer-throttling, --disable-renderer-backgrounding and
//     --disable-backgrounding-occluded-windows: the two pages of a game are two tabs of one
//     browser, and a tab in the background would otherwise get its frames and timers slowed.
func chromiumFlags() []chromedp.ExecAllocatorOption {
	return chromiumtest.Flags(
		chromedp.Flag("disable-features", "WebRtcHideLocalIpsWithMdns"),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
	)
}

// tab is a tab of headless Chromium.
type tab struct {
	t    *testing.T
	ctx  context.Context
	name string
}

// startBrowser starts Chromium and returns its first tab.
func startBrowser(t *testing.T, chromium string) *tab {
	t.Helper()
	opts := append(chromiumFlags(), chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return &tab{t: t, ctx: ctx, name: "page 1"}
}

// newTab opens another tab of the same browser.
func (b *tab) newTab(name string) *tab {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		b.t.Fatalf("opening a tab: %v", err)
	}
	return &tab{t: b.t, ctx: ctx, name: name}
}

// open loads url in the tab, without waiting for the game.
func (b *tab) open(url string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("%s: loading %s: %v", b.name, url, err)
	}
}

// eval returns the value of a JavaScript expression of type string.
func (b *tab) eval(expr string) string {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

// waitFor polls the page until the JavaScript expression is true.
func (b *tab) waitFor(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		b.t.Fatalf("%s: waiting for %s (%s): %v; the status line: %q; the message: %q", b.name, what, expr, err,
			b.eval(`window.duelweb ? duelweb.status() : ""`), b.eval(`document.getElementById("message").textContent`))
	}
}

// ended waits for the game to end, and returns the checksum line it showed and its recording.
func (b *tab) ended() (result string, rec []byte) {
	b.t.Helper()
	b.waitFor("the game to end", `typeof window.duelweb?.ended === "function" && duelweb.ended() !== ""`)
	ended := b.eval(`duelweb.ended()`)
	b.t.Logf("%s: %s", b.name, ended)
	result = b.eval(`duelweb.result()`)
	if !checksumLine.MatchString(result) {
		b.t.Fatalf("%s: the game ended (%q) without showing tick 600's checksum: %q", b.name, ended, result)
	}
	rec, err := base64.StdEncoding.DecodeString(b.eval(`duelweb.recording()`))
	if err != nil {
		b.t.Fatalf("%s: the recording: %v", b.name, err)
	}
	return result, rec
}

var checksumLine = regexp.MustCompile(`^tick 600 checksum [0-9a-f]{16}$`)

// buildDuel builds cmd/duel, natively, to play against the page and to replay its recordings.
func buildDuel(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "duel")
	out, err := exec.Command("go", "build", "-o", bin, "../duel").CombinedOutput()
	if err != nil {
		t.Fatalf("building duel: %v\n%s", err, out)
	}
	return bin
}

// checkReplay writes a recording to a file, replays it with duel -replay, and checks that it
// matched and holds the checksum of tick 600 that its side showed.
func checkReplay(t *testing.T, duel, who string, data []byte, result string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "duel.rec")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(duel, "-replay", path).CombinedOutput()
	t.Logf("duel -replay of %s's recording (%d bytes): %s", who, len(data), bytes.TrimSpace(out))
	if err != nil || !regexp.MustCompile(`(?m)^replay: \d+ ticks, matched \(`).Match(out) {
		t.Fatalf("duel -replay of %s's recording: %v, output %q; want exit 0 and matched", who, err, out)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if seed, err := duelnet.ParseStart(rec.Header); err != nil || seed != 1 {
		t.Errorf("%s's recording starts %q, seed %d (%v): want duel's, seed 1", who, rec.Meta, seed, err)
	}
	for _, c := range rec.Checksums {
		if c.Tick == 600 {
			if got := fmt.Sprintf("tick 600 checksum %016x", c.Sum); got != result {
				t.Errorf("%s's recording holds %q, where it showed %q", who, got, result)
			}
			return
		}
	}
	t.Errorf("%s's recording of %d ticks holds no checksum of tick 600", who, rec.Ticks)
}

func TestBrowserDuel(t *testing.T) {
	chromium := chromiumtest.Find(t)
	dir := t.TempDir()
	s, err := build(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	duel := buildDuel(t)
	var lobbyLog syncBuffer
	l, err := lobby.New(lobby.Config{Logf: func(format string, args ...any) { fmt.Fprintf(&lobbyLog, format+"\n", args...) }})
	if err != nil {
		t.Fatal(err)
	}
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()
	relayCtx, stopRelay := context.WithCancel(context.Background())
	rr := rooms.New(relayCtx, pool, &rooms.Options{Logf: t.Logf})
	defer rr.Wait()
	defer stopRelay()
	ts := httptest.NewServer(s.handler(l, rr))
	defer ts.Close()
	defer l.Close(context.Background())
	lobbyURL := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"
	first := startBrowser(t, chromium)
	second := first.newTab("page 2")

	// Two pages, each a seeded bot, play 600 ticks in a room: both show the same checksum,
	// and each recording replays matched natively.
	twoPages := func(t *testing.T, query string) {
		first.t, second.t = t, t
		first.open(ts.URL + query + "&bot=1&ticks=600")
		second.open(ts.URL + query + "&bot=2&ticks=600")
		first.waitFor("the game to run", `typeof window.duelweb?.status === "function" && / tick [1-9]/.test(duelweb.status())`)
		r1, rec1 := first.ended()
		r2, rec2 := second.ended()
		if r1 != r2 {
			t.Fatalf("the pages showed %q and %q: want the same", r1, r2)
		}
		checkReplay(t, duel, "page 1", rec1, r1)
		checkReplay(t, duel, "page 2", rec2, r2)
	}
	// Peer to peer, through the lobby.
	t.Run("two-pages", func(t *testing.T) { twoPages(t, "/?room=pages") })
	// Through the server's relay, which joins their room at their ask.
	t.Run("two-pages-through-relay", func(t *testing.T) { twoPages(t, "/?room=relayed&relay=1") })

	// A page plays a native duel -lobby, headless: both show the same checksum line, and
	// both recordings replay matched.
	pageAgainstTerminal := func(t *testing.T, room string, relay bool) {
		first.t = t
		nativeRec := filepath.Join(t.TempDir(), "native.rec")
		var stdout, stderr syncBuffer
		args := []string{"-lobby", lobbyURL, "-room", room, "-headless", "-ticks", "600", "-bot", "2", "-record", nativeRec}
		query := "/?room=" + room + "&bot=1&ticks=600"
		if relay {
			args = append(args, "-lobby-relay")
			query += "&relay=1"
		}
		cmd := exec.Command(duel, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var waitErr error
		exited := make(chan struct{})
		go func() {
			waitErr = cmd.Wait()
			close(exited)
		}()
		defer func() {
			select {
			case <-exited:
			default:
				_ = cmd.Process.Kill()
				<-exited
			}
			t.Logf("duel -lobby's stderr:\n%s", stderr.String())
		}()
		first.open(ts.URL + query)
		r, rec := first.ended()
		select {
		case <-exited:
			if waitErr != nil {
				t.Fatalf("duel -lobby: %v", waitErr)
			}
		case <-time.After(waitTimeout):
			t.Fatal("duel -lobby has not exited")
		}
		if got := strings.TrimSpace(stdout.String()); got != r {
			t.Fatalf("duel -lobby printed %q, the page showed %q: want the same", got, r)
		}
		checkReplay(t, duel, "the page", rec, r)
		data, err := os.ReadFile(nativeRec)
		if err != nil {
			t.Fatal(err)
		}
		checkReplay(t, duel, "duel -lobby", data, r)
	}
	t.Run("page-against-terminal", func(t *testing.T) { pageAgainstTerminal(t, "mixed", false) })
	// The same through the server's relay: the page with relay=1, duel -lobby -lobby-relay.
	t.Run("page-against-terminal-through-relay", func(t *testing.T) { pageAgainstTerminal(t, "mixed-relayed", true) })

	// A duel -lobby that ends its game says goodbye: the page, playing on, says that the
	// other player left, not that it was lost for want of hearing from it.
	t.Run("terminal-leaves", func(t *testing.T) {
		first.t = t
		first.open(ts.URL + "/?room=leave1&bot=1")
		native := startDuel(t, duel, "-lobby", lobbyURL, "-room", "leave1", "-headless", "-ticks", "1", "-bot", "2")
		if err := native.wait(); err != nil {
			t.Fatalf("duel -lobby: %v", err)
		}
		first.waitFor("the other player gone", `/the other player (left|was lost)/.test(duelweb.message())`)
		if msg := first.eval(`duelweb.message()`); !strings.Contains(msg, "the other player left after tick ") {
			t.Fatalf("the page says %q: want that the other player left", msg)
		}
		if msg := first.eval(`document.getElementById("message").textContent`); !strings.Contains(msg, "the other player left after tick ") {
			t.Errorf("under the canvas: %q, want the message row's", msg)
		}
	})

	// A page that goes (closed, reloaded, left for another) says goodbye in its pagehide
	// handler: duel -lobby, which joined first and plays on, says that the other player left.
	// The test fires the event in the page: a browser that unloads the page may end it before
	// the goodbye leaves (it did in 1 of 34 navigations to about:blank here), which no page can
	// prevent.
	t.Run("page-leaves", func(t *testing.T) {
		first.t = t
		native := startDuel(t, duel, "-lobby", lobbyURL, "-room", "leave2", "-headless", "-ticks", "100000", "-bot", "2")
		first.open(ts.URL + "/?room=leave2&bot=1")
		first.waitFor("the game to run", `typeof window.duelweb?.status === "function" && / tick [1-9][0-9]/.test(duelweb.status())`)
		if msg := first.eval(`document.getElementById("message").textContent`); !strings.HasPrefix(msg, "playing: the right paddle is yours") {
			t.Errorf("under the canvas while playing: %q, want the message row's", msg)
		}
		first.eval(`window.dispatchEvent(new PageTransitionEvent("pagehide")), ""`)
		if ended := first.eval(`duelweb.ended()`); ended != "the page was left" {
			t.Errorf("after pagehide the page says it ended %q", ended)
		}
		err := native.wait()
		errOut := native.stderr.String()
		if err == nil || !strings.Contains(errOut, "the other player left after tick ") {
			t.Fatalf("duel -lobby: %v, stderr:\n%s\nwant exit 1, and that the other player left", err, errOut)
		}
	})

	// A page stopped for 5 s (what a debugger, or a browser's background tab, does to it: no
	// frames, no timers) is dropped by duel -lobby; the page, back, ends saying it was dropped,
	// having made final no tick the other ran without it: never a split game.
	t.Run("page-stalled", func(t *testing.T) {
		first.t = t
		native := startDuel(t, duel, "-lobby", lobbyURL, "-room", "stalled", "-headless", "-ticks", "900", "-bot", "2")
		first.open(ts.URL + "/?room=stalled&bot=1")
		first.waitFor("the game to run", `typeof window.duelweb?.status === "function" && / tick [1-9][0-9]/.test(duelweb.status())`)
		if _, err := chromedp.Call(first.ctx, debugger.Enable, debugger.EnableParams{}); err != nil {
			t.Fatalf("the page's debugger: %v", err)
		}
		if _, err := chromedp.Call(first.ctx, debugger.Pause, cdp.Empty{}); err != nil {
			t.Fatalf("stopping the page: %v", err)
		}
		time.Sleep(5 * time.Second) // the stall itself, longer than the 2 s disconnect timeout
		if _, err := chromedp.Call(first.ctx, debugger.Resume, debugger.ResumeParams{}); err != nil {
			t.Fatalf("resuming the page: %v", err)
		}
		first.waitFor("the page to end", `duelweb.ended() !== ""`)
		ended := first.eval(`duelweb.ended()`)
		if !strings.Contains(ended, "dropped by the other peers") {
			t.Fatalf("the page, back, ended %q: want that it was dropped", ended)
		}
		err := native.wait()
		errOut := native.stderr.String()
		m := regexp.MustCompile(`the other player was lost after tick (\d+)`).FindStringSubmatch(errOut)
		if m == nil {
			t.Fatalf("duel -lobby: %v, stderr:\n%s\nwant that the other player was lost", err, errOut)
		}
		// The page's recording holds the ticks it made final: none past the cutoff duel -lobby
		// printed.
		cutoff, _ := strconv.ParseUint(m[1], 10, 64)
		data, err := base64.StdEncoding.DecodeString(first.eval(`duelweb.recording()`))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := replay.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("the page's recording: %v", err)
		}
		if rec.Ticks > cutoff {
			t.Fatalf("the page made %d ticks final; duel -lobby dropped it after tick %d", rec.Ticks, cutoff)
		}
		t.Logf("the page: %s; duel -lobby dropped it after tick %d, the page's recording holds %d ticks", ended, cutoff, rec.Ticks)
	})
	if t.Failed() {
		t.Logf("the lobby's log:\n%s", lobbyLog.String())
	}
}

// nativeDuel is a duel -lobby started by a test.
type nativeDuel struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	exited         chan struct{}
	err            error
}

// startDuel starts the duel at bin with args; it is killed when the test ends, if it has not
// exited by then.
func startDuel(t *testing.T, bin string, args ...string) *nativeDuel {
	t.Helper()
	d := &nativeDuel{t: t, cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	d.cmd.Stdout, d.cmd.Stderr = &d.stdout, &d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-d.exited:
		default:
			_ = d.cmd.Process.Kill()
			<-d.exited
		}
		t.Logf("duel %s: stderr:\n%s", strings.Join(args, " "), d.stderr.String())
	})
	return d
}

// wait waits for the duel to exit, and returns how it did.
func (d *nativeDuel) wait() error {
	d.t.Helper()
	select {
	case <-d.exited:
		return d.err
	case <-time.After(waitTimeout):
		d.t.Fatal("duel -lobby has not exited")
		return nil
	}
}
