package main

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawSleep sleeps until start+deadline with absolute clock_nanosleeps made directly, as a C
// program's loop would: the floor. (Go's monotonic clock is CLOCK_MONOTONIC on Linux.)
func rawSleep(start time.Time, deadline time.Duration) {
	var ts unix.Timespec
	if _, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		time.Sleep(time.Until(start.Add(deadline)))
		return
	}
	target := unix.NsecToTimespec(ts.Nano() + int64(time.Until(start.Add(deadline))))
	for {
		_, _, errno := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
			uintptr(unsafe.Pointer(&target)), 0, 0, 0)
		if errno != unix.EINTR {
			return
		}
	}
}

// usage returns the process's CPU time (user and system, ns) and its context switches.
func usage() (cpu, csw int64) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), ru.Nvcsw + ru.Nivcsw
}
