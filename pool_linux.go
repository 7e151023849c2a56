//go:build linux

package gameloop

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerWorkerThread gives the calling goroutine an OS thread of its own for the rest of its life
// and raises that thread's nice value by workerNice (on Linux, PRIO_PROCESS with a thread's id
// sets that thread alone). The goroutine never unlocks the thread: when it returns, the runtime
// ends the thread rather than run other goroutines on it at the lower priority (an unprivileged
// process cannot lower a nice value again). A failure (a sandbox that forbids setpriority) is
// ignored: the worker then runs at the process's priority, as with KeepWorkerPriority.
//
// On the process's main thread it changes nothing and reports false, leaving the thread locked
// for the caller to move the worker to another (see Pool.worker): the runtime cannot end the
// main thread when the goroutine returns, and would keep it parked, at the lower priority, for
// the rest of the process.
func lowerWorkerThread() bool {
	runtime.LockOSThread()
	tid := unix.Gettid()
	if tid == unix.Getpid() {
		return false
	}
	if nice, err := threadNice(tid); err == nil {
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, min(nice+workerNice, 19))
	}
	return true
}

// threadNice returns the nice value of thread tid of this process (0: the calling thread).
func threadNice(tid int) (int, error) {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, err
	}
	return 20 - prio, nil // the raw system call's value, which x/sys/unix passes through
}
