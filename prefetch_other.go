//go:build !amd64

package gameloop

import "unsafe"

// prefetchLines does nothing here: the waiter's loads run ahead on their own (see
// prefetch_amd64.go).
func prefetchLines(p unsafe.Pointer, n int) {}
