//go:build !(js && wasm)

package main

// The browser test: bounce built for WebAssembly, served by this command's handler, played in
// headless Chromium driven with chromedp. It polls the page until what it waits for shows up;
// the timeouts only bound how long a failing test takes, and the figures it measures are
// printed, never asserted.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gameloop-go/gameloop/internal/chromiumtest"
	"github.com/gameloop-go/gameloop/replay"
)

var (
	screenshot = flag.String("screenshot", "", "write a screenshot of the page in the browser test to this `file` (PNG)")
	keep       = flag.String("recording", "", "copy the recording the browser test makes in the page to this `file`")
)

// waitTimeout bounds every wait for the page to show something.
const waitTimeout = 30 * time.Second

// chromiumFlags are the flags Chromium runs with: chromiumtest's, and no scroll bars, so that a
// screenshot of the page is the page.
func chromiumFlags() []chromedp.ExecAllocatorOption {
	return chromiumtest.Flags(chromedp.Flag("hide-scrollbars", true))
}

// browser is a tab of headless Chromium on the test's server.
type browser struct {
	t   *testing.T
	ctx context.Context
	url string
}

func startBrowser(t *testing.T, chromium, url string) *browser {
	t.Helper()
	opts := append(chromiumFlags(), chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelTab)
	// The first Run starts the browser, with the tab's context: no timeout on it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, url: url}
}

func do[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout+5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// open loads the page with a query and waits for the game's first frames.
func (b *browser) open(query string) {
	b.t.Helper()
	do(b, chromedp.Navigate(b.url+"/"+query))
	b.waitFor("the game to start", `typeof window.bounceweb?.status === "function" && bounceweb.status().startsWith("interpolate ")`)
}

// waitFor polls the page until the JavaScript expression is true.
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, waitTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		b.t.Fatalf("waiting for %s (%s): %v; the status line: %q; the message: %q", what, expr, err, b.status(), b.message())
	}
}

func (b *browser) status() string {
	s, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.bounceweb ? bounceweb.status() : ""`))
	return s
}

// save presses s, waits for the page to say it saved its recording, which the server writes to
// path, and returns the recording, read back and decoded.
func (b *browser) save(path string) ([]byte, *replay.Recording) {
	b.t.Helper()
	b.keys("s")
	b.waitFor("the recording to be saved", `document.getElementById("message").textContent.includes("saved the recording")`)
	b.t.Logf("the page: %s", b.message())
	data, err := os.ReadFile(path)
	if err != nil {
		b.t.Fatal(err)
	}
	rec, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		b.t.Fatal(err)
	}
	return data, rec
}

func (b *browser) message() string {
	s, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.getElementById("message").textContent`))
	return s
}

// pageStats is what window.bounceweb.stats() returns: see cmd/bounceweb/wasm.
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

func (b *browser) stats() pageStats {
	b.t.Helper()
	s := do(b, chromedp.Evaluate[string](`bounceweb.stats()`))
	var st pageStats
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		b.t.Fatalf("bounceweb.stats() = %q: %v", s, err)
	}
	return st
}

// waitFrames waits for n more frames to be drawn.
func (b *browser) waitFrames(n int) {
	b.t.Helper()
	f := b.stats().Frames
	b.waitFor(fmt.Sprintf("%d more frames", n), fmt.Sprintf(`JSON.parse(bounceweb.stats()).Frames >= %d`, f+uint64(n)))
}

func (b *browser) keys(keys string) {
	b.t.Helper()
	do(b, chromedp.KeyEvent(keys))
}

// capture returns what the canvas shows.
func (b *browser) capture() image.Image {
	b.t.Helper()
	url := do(b, chromedp.Evaluate[string](`document.getElementById("bounce").toDataURL("image/png")`))
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
	if err != nil {
		b.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		b.t.Fatal(err)
	}
	return img
}

// Regions of a capture of a game of 24 rows: the box (every row but the last) and the status
// line (the last).
func boxOf(img image.Image) image.Rectangle {
	r := img.Bounds()
	return image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+r.Dy()*23/24)
}

func statusOf(img image.Image) image.Rectangle {
	r := img.Bounds()
	return image.Rect(r.Min.X, r.Min.Y+r.Dy()*23/24+1, r.Max.X, r.Max.Y)
}

// samePixels reports whether a and b are the same in r.
func samePixels(a, b image.Image, r image.Rectangle) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

// The site is built once for all the tests.
var (
	siteOnce sync.Once
	siteDir  string
	siteErr  error
	built    site
)

func buildSite(t *testing.T) site {
	t.Helper()
	siteOnce.Do(func() {
		siteDir, siteErr = os.MkdirTemp("", "bounceweb-test")
		if siteErr == nil {
			built, siteErr = build(context.Background(), siteDir)
		}
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return built
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if siteDir != "" {
		os.RemoveAll(siteDir)
	}
	os.Exit(code)
}

// buildBounce builds the terminal demo, natively, to replay the browser's recordings.
func buildBounce(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bounce")
	out, err := exec.Command("go", "build", "-o", bin, "../bounce").CombinedOutput()
	if err != nil {
		t.Fatalf("building bounce: %v\n%s", err, out)
	}
	return bin
}

func TestBrowser(t *testing.T) {
	chromium := chromiumtest.Find(t)
	s := buildSite(t)
	dir := t.TempDir()
	recordPath := filepath.Join(dir, "web.rec")
	var log syncBuffer
	ts := httptest.NewServer(s.handler(recordPath, &log))
	defer ts.Close()
	b := startBrowser(t, chromium, ts.URL)

	t.Run("play", func(t *testing.T) {
		b.t = t
		b.open("")
		b.waitFrames(5)
		first := b.capture()
		b.waitFrames(10)
		moved := b.capture()
		if samePixels(first, moved, boxOf(first)) {
			t.Error("the balls did not move in 10 frames")
		}

		b.keys("p")
		b.waitFor("the status line to say PAUSED", `bounceweb.status().startsWith("interpolate PAUSED ")`)
		b.waitFrames(2) // the frame that shows PAUSED may have been drawn as the pause began
		before, beforeStats := b.capture(), b.stats()
		b.waitFrames(10)
		after, afterStats := b.capture(), b.stats()
		if !samePixels(before, after, boxOf(before)) {
			t.Error("the balls moved while paused")
		}
		if samePixels(before, after, statusOf(before)) {
			t.Error("the status line stood still while paused: the frames should go on")
		}
		if !afterStats.Paused || afterStats.Ticks != beforeStats.Ticks {
			t.Errorf("paused: %d ticks then %d, paused %v", beforeStats.Ticks, afterStats.Ticks, afterStats.Paused)
		}
		b.keys("p")
		b.waitFor("the game to go on", `!bounceweb.status().includes("PAUSED")`)

		// The game's speed against the page's own clock (requestAnimationFrame's time), before
		// and after +.
		rate := func() (ticksPerSecond float64, dropped uint64) {
			a := b.stats()
			b.waitFrames(60)
			z := b.stats()
			return float64(z.Ticks-a.Ticks) / (z.RealTimeMs - a.RealTimeMs) * 1000, z.DroppedTicks - a.DroppedTicks
		}
		x1, drop1 := rate()
		b.keys("+")
		b.waitFor("the time scale to double", `bounceweb.status().includes(" x2 ")`)
		x2, drop2 := rate()
		t.Logf("ticks per second at x1: %.1f, at x2: %.1f", x1, x2)
		if st := b.stats(); st.TimeScale != 2 {
			t.Errorf("time scale %g after +, want 2", st.TimeScale)
		}
		if drop1+drop2 == 0 && x2 < 1.5*x1 {
			t.Errorf("the game ran %.1f ticks a second at x2, %.1f at x1: want about twice as many", x2, x1)
		}
	})

	t.Run("record-and-replay", func(t *testing.T) {
		b.t = t
		b.open("?seed=7&balls=3")
		b.keys(" ")
		b.waitFor("a fourth ball", `bounceweb.status().endsWith(" 4 balls")`)
		b.keys("]")
		b.waitFor("the tick rate to rise to 15", `bounceweb.status().includes(" 15Hz ")`)
		b.keys("p")
		b.waitFor("the pause", `bounceweb.status().includes(" PAUSED ")`)
		b.keys(" ") // while paused: the ball is added before the next tick
		b.waitFor("a fifth ball", `bounceweb.status().endsWith(" 5 balls")`)
		b.keys("p")
		b.keys("+")
		b.waitFor("the time scale to double, unpaused", `bounceweb.status().includes(" x2 ") && !bounceweb.status().includes("PAUSED")`)
		b.keys(kb.ArrowUp + kb.ArrowLeft + "g")
		b.waitFor("gravity", `bounceweb.status().endsWith(" gravity")`)
		b.waitFrames(120)
		data, rec := b.save(recordPath)
		if len(rec.Inputs) < 10 || len(rec.RateChanges) != 1 || rec.RateChanges[0].Rate != 15 || rec.Ticks < 10 ||
			string(rec.Meta) != "bounce-start/1 seed=7 balls=3 width=80 height=24 glyphs=braille tps=10" {
			t.Fatalf("recorded %d ticks, %d inputs, rate changes %v, meta %q: want the keys sent, a change to 15 Hz, the start",
				rec.Ticks, len(rec.Inputs), rec.RateChanges, rec.Meta)
		}
		if *keep != "" {
			if err := os.WriteFile(*keep, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(buildBounce(t), "-replay", recordPath).CombinedOutput()
		t.Logf("recorded in the browser: %d ticks, %d inputs, %d bytes; bounce -replay (%s): %s", rec.Ticks, len(rec.Inputs), len(data), "native", out)
		if want := fmt.Sprintf("replay: %d ticks, matched (", rec.Ticks); err != nil || !strings.HasPrefix(string(out), want) {
			t.Fatalf("bounce -replay: %v, output %q; want %q", err, out, want)
		}

		// q ends the game, and saves what was played.
		b.keys("q")
		b.waitFor("the game to end, saved", `document.getElementById("message").textContent.startsWith("bounce has ended; save 2: saved the recording")`)
		out, err = exec.Command(buildBounce(t), "-replay", recordPath).CombinedOutput()
		if err != nil || !regexp.MustCompile(`^replay: \d+ ticks, matched \(`).Match(out) {
			t.Errorf("the recording saved by q: bounce -replay: %v, output %q", err, out)
		}
	})

	// A hidden page gets no frames. Headless Chromium hides no page, so the test makes the
	// page say it is hidden (document.hidden and a visibilitychange event), stalls it for as
	// long as it would be away (a busy loop: no frame comes), and shows it again. The time away
	// is paused: the game time that passes (the ticks run and dropped) is the page's time less
	// the time away. The page then stalls for 400 ms more, shown, as a loaded machine stalls it
	// at any time: that time is game time like any other, and its ticks over MaxFrameTime and
	// MaxTicksPerFrame are dropped. The same stall without the page hidden is all game time.
	//
	// Counting the ticks dropped alone would not tell the time away from a stall: at 60 Hz
	// any gap of more than five ticks between frames drops some.
	t.Run("hidden", func(t *testing.T) {
		b.t = t
		const tps = 60
		b.open(fmt.Sprintf("?tps=%d", tps))
		b.waitFrames(10)
		// It returns how long the page was hidden at most: from before the page said it
		// was hidden to after it said it was shown (the driver's own time away lies within);
		// 0 when it was not hidden.
		const away = `(hide) => {
			const set = (hidden) => {
				Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
				document.dispatchEvent(new Event("visibilitychange"));
			};
			const busy = (ms) => { const t = performance.now(); while (performance.now() - t < ms) {} };
			if (!hide) {
				busy(1900);
				return 0;
			}
			const start = performance.now();
			set(true);
			busy(1500);
			set(false);
			const away = performance.now() - start;
			busy(400);
			return away;
		}`
		step := 1000.0 / tps // ms
		for _, hide := range []bool{true, false} {
			before := b.stats()
			hidden := do(b, chromedp.Evaluate[float64](fmt.Sprintf("(%s)(%v)", away, hide)))
			b.waitFrames(10)
			after := b.stats()
			ticks, dropped := after.Ticks-before.Ticks, after.DroppedTicks-before.DroppedTicks
			elapsed := after.RealTimeMs - before.RealTimeMs
			// The game time that passed, in ticks: a tick's time is either run or dropped.
			game := float64(ticks + dropped)
			t.Logf("stalled 1.9 s, hidden for %.0f ms of it: %d ticks, %d dropped (%.0f ms), in %.0f ms of the page's time",
				hidden, ticks, dropped, after.DroppedMs-before.DroppedMs, elapsed)
			if after.Paused || after.TimeScale != 1 {
				t.Fatalf("paused %v, time scale %g: want the game running at x1", after.Paused, after.TimeScale)
			}
			if hide {
				// Game time passed for the page's time outside the time away (at least
				// elapsed-hidden, at most elapsed-1500 ms), give or take the grid's
				// rounding; the 400 ms stall after it dropped ticks.
				lo, hi := (elapsed-hidden)/step-2, (elapsed-1500)/step+2
				if game < lo || game > hi || dropped == 0 {
					t.Errorf("hidden for %.0f ms in %.0f ms of the page's time: %d ticks ran and %d were dropped, want %.0f to %.0f in all, some dropped: the time away is paused, the stall after it is not",
						hidden, elapsed, ticks, dropped, lo, hi)
				}
				continue
			}
			// Not hidden: all of the page's time is game time, and the stall's beyond the
			// frame's bound is dropped.
			if lo, hi := elapsed/step-2, elapsed/step+2; game < lo || game > hi || dropped == 0 {
				t.Errorf("stalled 1.9 s, not hidden, in %.0f ms of the page's time: %d ticks ran and %d were dropped, want %.0f to %.0f in all, some dropped",
					elapsed, ticks, dropped, lo, hi)
			}
		}
	})

	t.Run("measure", func(t *testing.T) {
		b.t = t
		for _, tps := range []int{10, 25, 60} {
			b.open(fmt.Sprintf("?tps=%d", tps))
			b.waitFrames(300)
			st := b.stats()
			t.Logf("tick rate %3d Hz: %.1f fps, %.1f tps over the last second; frame interval p50 %.2f ms, p99 %.2f ms, max %.2f ms; "+
				"ticks late against the grid p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d ticks); dropped %d ticks, %.1f ms, in %d frames",
				tps, st.FPS, st.TPS, st.FrameP50Ms, st.FrameP99Ms, st.FrameMaxMs, st.LateP50Ms, st.LateP99Ms, st.LateMaxMs,
				st.LateTicks, st.DroppedTicks, st.DroppedMs, st.Frames)
		}
		if *screenshot != "" {
			b.open("?seed=3&balls=9")
			b.keys("g")
			b.waitFrames(90)
			shot := do(b, chromedp.CaptureScreenshot())
			if err := os.WriteFile(*screenshot, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	// The whole program of docs/web.md, backend/web/example, served as the document says: its
	// canvas fades.
	t.Run("example", func(t *testing.T) {
		b.t = t
		dir := t.TempDir()
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "game.wasm"), "../../backend/web/example")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the example: %v\n%s", err, out)
		}
		for _, f := range []string{s.WasmExec, "../../backend/web/example/index.html"} {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		files := httptest.NewServer(http.FileServer(http.Dir(dir)))
		defer files.Close()
		do(b, chromedp.Navigate(files.URL+"/"))
		// A pixel of the canvas, as the sum of its color's components, once it is lit.
		const pixel = `(() => {
			const c = document.getElementById("game");
			if (c.width === 0) return 0;
			const d = c.getContext("2d").getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
			return d[0] + d[1] + d[2];
		})()`
		b.waitFor("the canvas to light up", pixel+" > 0")
		first := do(b, chromedp.Evaluate[int](pixel))
		b.waitFor("the canvas to fade on", fmt.Sprintf("%s !== %d", pixel, first))
		b.keys(kb.Escape)
		b.waitFor("the game to end", `document.body.textContent === "the game has ended"`)
	})

	if t.Failed() {
		t.Logf("the server's log:\n%s", log.String())
	}
}

// syncBuffer is a buffer that the server's handlers may write to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
