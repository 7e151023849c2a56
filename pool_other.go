//go:build !linux

package gameloop

import (
	"sync/atomic"
	"time"
)

// lockWorkerThread does nothing where no worker is armed: a worker needs no thread of its own.
func lockWorkerThread() bool { return true }

// armSupported is false: outside Linux the waiter arms no worker for a burst (see
// Pool.armWorker).
const armSupported = false

// waiterCPU reports false: outside Linux the waiter arms no worker for a burst, which it would
// need to keep off the waiter's processor.
func waiterCPU() (int, bool) { return 0, false }

// burstWait does nothing outside Linux, where no worker is armed.
type burstWait struct{}

func (w *burstWait) await(word *atomic.Uint32, cpu int, timeout time.Duration) bool { return false }

func (w *burstWait) release() {}

func wakeArmed(word *atomic.Uint32) {}
