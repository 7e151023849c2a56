//go:build linux

package gameloop

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestBurstWaitWakes: an armed worker's wait keeps its thread off the waiter's processor until
// release, and ends when wakeArmed is called on its word; it returns at once if the word has
// changed.
func TestBurstWaitWakes(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Fatal(err)
	}
	if allowed.Count() < 2 {
		t.Skip("one processor: no other to keep the thread on")
	}
	away := 0
	for !allowed.IsSet(away) {
		away++
	}
	type result struct {
		woken     bool
		set, back unix.CPUSet // the thread's affinity after the wait, and after release
	}
	// Each try waits at most 100 ms: the raw wait holds a processor of the runtime, and a stop
	// of the world would wait for it, with this goroutine, which is to end the wait, stopped.
	// A try whose wait ended before the wake (or was never seen) is made again.
	for try := 0; ; try++ {
		if try == 50 {
			t.Fatal("50 tries: the wait was never seen, or never woken")
		}
		var word atomic.Uint32
		word.Store(armWaiting)
		tids := make(chan int, 1)
		done := make(chan result, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			tids <- unix.Gettid()
			var w burstWait
			woken := w.await(&word, away, 100*time.Millisecond)
			var r result
			r.woken = woken
			if err := unix.SchedGetaffinity(0, &r.set); err != nil {
				t.Error(err)
			}
			w.release()
			if err := unix.SchedGetaffinity(0, &r.back); err != nil {
				t.Error(err)
			}
			done <- r
		}()
		tid := <-tids
		// The thread's system call and its first argument, as /proc shows them while it waits.
		want := fmt.Sprintf("%d %#x ", unix.SYS_FUTEX, uintptr(unsafe.Pointer(&word)))
		seen := false
		for !seen && len(done) == 0 {
			b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
			if err != nil {
				t.Skipf("cannot see the thread's system call: %v", err)
			}
			seen = strings.HasPrefix(string(b), want)
		}
		word.Store(armIdle)
		wakeArmed(&word)
		r := <-done
		if r.set.IsSet(away) || r.set.Count() != allowed.Count()-1 {
			t.Fatalf("the waiting thread may run on %d processors, processor %d among them (%v); want the %d others",
				r.set.Count(), away, r.set.IsSet(away), allowed.Count()-1)
		}
		if r.back != allowed {
			t.Fatalf("after release the thread may run on %d processors, want the %d it had", r.back.Count(), allowed.Count())
		}
		if !seen || !r.woken {
			continue
		}
		break
	}

	// The word changed before the wait: it returns at once, not woken.
	var word atomic.Uint32
	word.Store(armIdle)
	done := make(chan bool, 1)
	go func() {
		runtime.LockOSThread()
		var w burstWait
		done <- w.await(&word, away, 100*time.Millisecond)
	}()
	if <-done {
		t.Error("a wait on a word already changed reported it was woken")
	}
}

// tidGame is a match's game for TestArmedWorkerSharesBurst: the first update that runs on the
// waiter's thread waits until the workers have run onWorkerWanted updates, so that the burst
// can only end if a worker took part in it.
type tidGame struct {
	waiter   int
	onWorker *atomic.Int32
	held     *atomic.Bool
	ticks    atomic.Int32
	t        *testing.T
}

const onWorkerWanted = 150

func (g *tidGame) Update(*Update) error {
	g.ticks.Add(1)
	if unix.Gettid() != g.waiter {
		g.onWorker.Add(1)
		return nil
	}
	if g.held.CompareAndSwap(false, true) {
		deadline := time.Now().Add(10 * time.Second)
		for g.onWorker.Load() < onWorkerWanted {
			if time.Now().After(deadline) {
				g.t.Errorf("the waiter waited 10 s for the workers, which ran %d updates", g.onWorker.Load())
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	return nil
}

// TestArmedWorkerSharesBurst: a worker armed ahead of a long burst takes the tail the waiter
// hands over while the waiter runs its own share; every match runs once; the burst counts as
// one that sharing paid for.
func TestArmedWorkerSharesBurst(t *testing.T) {
	c := newSharedClock(SharedClockOptions{}) // the test plays the waiter
	p := NewPool(c, &PoolOptions{Workers: 1, SlowPass: time.Hour})
	t.Cleanup(func() {
		go c.wait()
		c.Close()
	})
	if !p.canArm() {
		t.Skip("no worker can be armed here (one processor)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var onWorker atomic.Int32
	var held atomic.Bool
	at := c.Now() + 20*time.Millisecond
	gs := make([]*tidGame, 400)
	for i := range gs {
		gs[i] = &tidGame{waiter: unix.Gettid(), onWorker: &onWorker, held: &held, t: t}
		m, err := p.NewMatch(context.Background(), gs[i], Config{TickRate: int(time.Second / burstStep)})
		if err != nil {
			t.Fatal(err)
		}
		m.StartAt(at - burstStep)
	}
	if !p.armWorker() {
		t.Fatal("armWorker: false, where canArm reported true")
	}
	batch := popBurst(c, at)
	setCosts(batch, shareAbove) // long enough to share from its start
	if len(batch) != len(gs) {
		t.Fatalf("%d entries due, want %d", len(batch), len(gs))
	}
	runnerOf(c).runDue(batch, infosOf(batch))
	// A worker may still be running the last chunk it took.
	deadline := time.Now().Add(10 * time.Second)
	for _, g := range gs {
		for g.ticks.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(20 * time.Millisecond) // time for an update too many
	for i, g := range gs {
		if n := g.ticks.Load(); n != 1 {
			t.Fatalf("match %d: %d updates, want 1", i, n)
		}
	}
	if n := onWorker.Load(); n < onWorkerWanted {
		t.Errorf("the worker ran %d updates, want at least %d", n, onWorkerWanted)
	}
	if runnerOf(c).splitMisses != 0 || runnerOf(c).splitOff != 0 {
		t.Errorf("after a burst the worker shared: splitMisses %d, splitOff %d, want 0, 0", runnerOf(c).splitMisses, runnerOf(c).splitOff)
	}
	if p.armWord.Load() != armIdle {
		t.Error("the worker is still armed after the burst")
	}
}
