//go:build linux

package gameloop

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// preciseLead is how long before the precise sleep's target the coarse wait on a Go timer
// ends. Go's timers wake up to about 1.1 ms late on Linux (golang/go#44343, #53824), so 2 ms
// leaves the precise sleep always something to do; it is also the longest a wake-up can go
// unseen, as nothing interrupts clock_nanosleep.
const preciseLead = 2 * time.Millisecond

// newPreciseSleep returns a sleep until an absolute time in now's time base, with
// clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) on a thread whose timer slack is 1 ns.
//
// The sleep runs on the calling goroutine with its OS thread locked for the length of the
// call, not on a dedicated sleeper thread: handing the wake-up to another goroutine would add a
// futex wake-up and a scheduling delay (tens of µs on a VM) after every sleep, which is the very
// lateness the pacer exists to remove. Locking nests, so a goroutine already locked to the main
// thread (GLFW) stays locked. The timer slack is set on every sleep because the goroutine may be
// on another thread each time; a prctl costs well under a microsecond. A thread left with 1 ns
// of slack only wakes more precisely.
//
// The system calls are raw: they do not tell the Go scheduler that the thread may block. A
// sleep here is short (at most the pacer's lead and margins, a few ms), and the goroutine keeps
// its P through it, as a spinning one would. Told of a blocking call, the scheduler wakes its
// monitor thread (sysmon), which then polls every 20 µs for a millisecond and more to see
// whether the call has blocked long enough to hand its P to another thread: on a virtual
// machine those wake-ups cost the process more CPU than all of its pacing, several % of a core
// at 240 Hz. A raw sleep holds up nothing: a stop-the-world of the garbage collector preempts
// the thread with a signal, which ends clock_nanosleep with EINTR; the goroutine is preempted
// on its way back into the sleep, and the absolute deadline makes the sleep after it exact.
func newPreciseSleep(now func() time.Duration) (func(target time.Duration), time.Duration) {
	s := &monoSleeper{now: now}
	return s.sleepUntil, preciseLead
}

// monoSleeper sleeps on CLOCK_MONOTONIC; its timespecs live in it, so sleeping allocates nothing.
type monoSleeper struct {
	now       func() time.Duration
	mono, req unix.Timespec
}

func (s *monoSleeper) sleepUntil(target time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Errors are ignored on purpose: without the prctl the sleep is 50 µs less precise, which
	// the margins learn; a failing clock_nanosleep returns early and the pacer spins.
	unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 1, 0, 0, 0, 0)

	// Map target from now's time base to CLOCK_MONOTONIC's, each sleep anew, so that now may be
	// any monotonic clock (Go's monotonic time is CLOCK_MONOTONIC on Linux, but with another
	// origin). The mid-point of two reads of now bounds the mapping's error by their spacing.
	before := s.now()
	if _, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&s.mono)), 0); errno != 0 {
		return
	}
	after := s.now()
	offset := time.Duration(s.mono.Nano()) - (before + (after-before)/2)
	s.req = unix.NsecToTimespec(int64(target + offset))
	for {
		// A signal ends the sleep with EINTR: the Go runtime sends one (SIGURG) to preempt a
		// goroutine that has run for 10 ms, and to a raw sleep of a 60 Hz frame it does. The
		// target is absolute, so sleeping again loses nothing. (The raw call returns the error
		// number apart; its first result is then -1.)
		_, _, errno := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
			uintptr(unsafe.Pointer(&s.req)), 0, 0, 0)
		if errno != unix.EINTR {
			return
		}
	}
}

// processCPUTime returns the user and system CPU time the process has used, or -1: the
// benchmarks report the pacer's cost with it.
func processCPUTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
