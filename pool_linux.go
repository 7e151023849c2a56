//go:build linux

package gameloop

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lockWorkerThread gives the calling goroutine, a pool's worker, an OS thread of its own for the
// rest of its life, on which an armed worker waits for a burst (see burstWait.await). The
// goroutine never unlocks the thread: when it returns, the runtime ends the thread, with the
// affinity await may have left on it.
//
// On the process's main thread it reports false, leaving the thread locked for the caller to
// move the worker to another (see Pool.worker): the runtime cannot end the main thread when
// the goroutine returns, and would keep it parked for the rest of the process.
func lockWorkerThread() bool {
	runtime.LockOSThread()
	return unix.Gettid() != unix.Getpid()
}

// armSupported is whether a pool can arm a worker for a burst here (see Pool.armWorker).
const armSupported = true

// waiterCPU returns the processor the calling thread (the clock's waiter) runs on, and true.
// The waiter arms a worker for a burst with it (see Pool.armWorker).
func waiterCPU() (int, bool) {
	var cpu uint32
	if _, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); errno != 0 {
		return 0, false
	}
	return int(cpu), true
}

// burstWait is an armed worker's thread: the processors it may run on (its affinity when it
// was first armed), and the one it keeps away from (the waiter's, +1; 0 for none).
type burstWait struct {
	allowed unix.CPUSet
	known   bool
	away    int
}

// await waits, on the calling worker's own thread (locked to its goroutine), until the waiter
// hands over a burst's tail and sets word to something other than armWaiting, or for timeout,
// and reports whether it was woken. It is a raw futex wait, which keeps the worker's processor
// (one of GOMAXPROCS) through it, as the waiter's precise sleep does: told of a blocking call,
// the Go scheduler would wake its monitor thread, which then polls every 20 µs for a while
// (see newSharedSleep), and woken through the scheduler, a worker takes two thread wake-ups,
// the first of which waits for the waiter's processor (see runDue). A signal to the thread
// (the runtime's, to preempt it) ends the wait early. First the thread's affinity is set to
// keep it off cpu, the waiter's processor, so that the waiter's wake-up lands on another. If
// cpu is the only processor the thread may use, it returns at once.
func (w *burstWait) await(word *atomic.Uint32, cpu int, timeout time.Duration) (woken bool) {
	if !w.known {
		if err := unix.SchedGetaffinity(0, &w.allowed); err != nil {
			return false
		}
		w.known = true
	}
	if w.away != cpu+1 {
		set := w.allowed
		set.Clear(cpu)
		if set.Count() == 0 || unix.SchedSetaffinity(0, &set) != nil {
			return false
		}
		w.away = cpu + 1
	}
	ts := unix.NsecToTimespec(int64(timeout))
	// EAGAIN (the word has changed already), EINTR and ETIMEDOUT all mean: look at the pool.
	_, _, errno := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWaitPrivate,
		uintptr(armWaiting), uintptr(unsafe.Pointer(&ts)), 0, 0)
	return errno == 0
}

// release lets the thread run on every processor it was allowed before await kept it off one,
// once the burst is over: a worker runs slow matches too, which must not be held to one
// processor while another is busy (with two, the worker would have only one).
func (w *burstWait) release() {
	if w.away != 0 {
		_ = unix.SchedSetaffinity(0, &w.allowed) // on failure it stays off the waiter's processor
		w.away = 0
	}
}

// The futex operations of linux/futex.h, which x/sys/unix does not name.
const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// wakeArmed wakes the worker waiting on word in burstWait.await.
func wakeArmed(word *atomic.Uint32) {
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), futexWakePrivate,
		1, 0, 0, 0)
}
