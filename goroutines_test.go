package gameloop

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitGoroutines fails the test if, within a few seconds, the number of goroutines does not
// come back to n, or a goroutine of a shared clock, a pool or a loop is still running. (On
// js/wasm the runtime keeps goroutines of its own that come and go: only the second is checked.)
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	var dump string
	for range 300 {
		dump = string(buf[:runtime.Stack(buf, true)])
		ours := strings.Contains(dump, "gameloop.(*SharedClock)") || strings.Contains(dump, "gameloop.(*Pool)") ||
			strings.Contains(dump, "gameloop.(*Match)") || strings.Contains(dump, "gameloop.(*Loop)")
		if !ours && (runtime.GOOS == "js" || runtime.NumGoroutine() <= n) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), n, dump)
}
