//go:build !linux

package gameloop

// lowerWorkerThread does nothing where the pool does not change its workers' priority.
func lowerWorkerThread() bool { return true }
