package gameloop

import "unsafe"

// prefetchRange asks for the cache lines of the size bytes at p (see prefetchLines): p may be
// anywhere in its line, so that the bytes span one line more than size alone would say.
func prefetchRange(p unsafe.Pointer, size uintptr) {
	first, last := uintptr(p)/64, (uintptr(p)+size-1)/64
	prefetchLines(p, int(last-first)+1)
}
