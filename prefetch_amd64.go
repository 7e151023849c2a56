package gameloop

import "unsafe"

// prefetchLines asks the processor to fetch the n cache lines from p into its caches, without
// waiting for them: a pool's waiter calls it for the matches a few places ahead of the one it
// runs, so that their memory arrives while it works. An ordinary load would stall the waiter
// until the line came (100 ns and more from memory on a virtual machine), as soon as the
// processor's window of work in flight filled.
//
//go:noescape
func prefetchLines(p unsafe.Pointer, n int)
