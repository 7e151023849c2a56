//go:build linux

package gameloop

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// niceOf returns the nice value of thread tid of this process.
func niceOf(t *testing.T, tid int) int {
	t.Helper()
	nice, err := threadNice(tid)
	if err != nil {
		t.Fatal(err)
	}
	return nice
}

// threadsAtNice counts the threads of this process whose nice value is nice.
func threadsAtNice(t *testing.T, nice int) int {
	t.Helper()
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the thread has ended
		}
		// The fields after the command's closing parenthesis: state is the 3rd field of the
		// line, nice the 19th.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if v, err := strconv.Atoi(fields[19-3]); err == nil && v == nice {
			n++
		}
	}
	return n
}

// waitThreadsAtNice waits up to 10 s for the number of threads at nice to be want (threads start
// and end a little after the goroutines that lock them), and returns the last count.
func waitThreadsAtNice(t *testing.T, nice, want int) int {
	t.Helper()
	n := threadsAtNice(t, nice)
	for deadline := time.Now().Add(10 * time.Second); n != want && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		n = threadsAtNice(t, nice)
	}
	return n
}

// TestPoolWorkerPriority: a match that runs on the workers (here, one held there as slow) runs
// on a thread whose nice value is workerNice above the process's, unless KeepWorkerPriority is
// set; each worker has such a thread, never the main thread; the workers' threads end with the
// pool, so that no thread at the lower priority goes on running other goroutines.
func TestPoolWorkerPriority(t *testing.T) {
	base := niceOf(t, 0)
	lowered := min(base+workerNice, 19)
	if lowered == base {
		t.Skipf("the process runs at nice %d: no lower priority to give", base)
	}
	before := threadsAtNice(t, lowered) // the workers of pools another test left open, if any
	for _, keep := range []bool{false, true} {
		c := NewSharedClock(nil)
		p := NewPool(c, &PoolOptions{Workers: 2, KeepWorkerPriority: keep})
		got := make(chan int, 1)
		m, err := p.NewMatch(context.Background(), GameFunc(func(*Update) error {
			got <- niceOf(t, unix.Gettid())
			return ErrStop
		}), Config{TickRate: 1000})
		if err != nil {
			t.Fatal(err)
		}
		m.slow.left = slowHold // on the workers from its first pass
		m.Start()
		if err := m.Wait(); err != nil {
			t.Fatal(err)
		}
		want := lowered
		if keep {
			want = base
		}
		if nice := <-got; nice != want {
			t.Errorf("KeepWorkerPriority %v: a worker's update ran at nice %d, want %d", keep, nice, want)
		}
		if !keep {
			if n := waitThreadsAtNice(t, lowered, before+2); n != before+2 {
				t.Errorf("%d threads at nice %d with 2 workers, want %d", n, lowered, before+2)
			}
		}
		// The main thread is never a worker's: the runtime could not end it with the pool.
		if nice := niceOf(t, os.Getpid()); nice != base {
			t.Errorf("the main thread is at nice %d, want %d", nice, base)
		}
		p.Close()
		c.Close()
		if n := waitThreadsAtNice(t, lowered, before); n != before {
			t.Errorf("KeepWorkerPriority %v: %d threads at nice %d after Close, %d before the pool", keep, n, lowered, before)
		}
	}
}
