// Package chromiumtest is what the browser tests share: finding Debian's Chromium, and the flags
// that run it headless and quiet.
package chromiumtest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Find returns the path of Chromium, or skips the test (fails it under GAMELOOP_REQUIRE_ALL=1)
// when there is none.
func Find(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("GAMELOOP_REQUIRE_ALL") == "1" {
		t.Fatal("chromium is not installed (scripts/packages/web.txt lists it), and GAMELOOP_REQUIRE_ALL=1")
	}
	t.Skip("chromium is not installed: skipping the browser test")
	return ""
}

// Flags returns the flags Chromium runs with, then more: headless, in a window of 800 by 600,
// and quiet (no first-run dialogs, no network of its own, no sound; --no-sandbox lets it run as
// root, as CI does).
func Flags(more ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	return append([]chromedp.ExecAllocatorOption{
		chromedp.Flag("headless", "new"),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.WindowSize(800, 600),
	}, more...)
}
