//go:build linux

package gameloop

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The Go runtime preempts a goroutine that has run for 10 ms with a signal (SIGURG), and a
// signal ends clock_nanosleep early with EINTR. A precise sleep must sleep again, to its
// absolute target, however many signals arrive: this sends its thread a hundred of them.
func TestPreciseSleepIsNotEndedBySignals(t *testing.T) {
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	sleep, _ := newPreciseSleep(now)

	runtime.LockOSThread() // sleep locks it too; this one only makes the thread id hold
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	const signals = 100
	sent := make(chan int)
	go func() {
		n := 0
		for ; n < signals; n++ {
			if unix.Tgkill(unix.Getpid(), tid, unix.SIGURG) != nil {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		sent <- n
	}()
	// Long enough that the signals all arrive during the sleep, on any machine that isn't stalled.
	target := now() + time.Second
	sleep(target)
	woke := now()
	n := <-sent
	if woke < target {
		t.Errorf("the sleep to %v ended at %v, %v early, with %d signals sent", target, woke, target-woke, n)
	}
	if n != signals {
		t.Errorf("sent %d signals, want %d", n, signals)
	}
}
