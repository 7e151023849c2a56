package gameloop

import "unsafe"

// prefetchRange asks for the cache lines of the size bytes at p (see prefetchLines): p may be
// anywhere in its line, so that the bytes span one line more than size alone would say.
func prefetchRange(p unsafe.Pointer, size uintptr) {
	first, last := uintptr(p)/64, (uintptr(p)+size-1)/64
	prefetchLines(p, int(last-first)+1)
}

// stackPrefetchBytes is how much of the goroutine's stack above a Loop's pass the loop asks for
// after a wait: the frames of the functions it returns through (Events' or Run's, the game's
// range loop), which another goroutine's work has pushed out of the cache meanwhile.
const stackPrefetchBytes = 1024

// prefetchStack asks for the cache lines of the stack above its caller's frame, up to
// stackPrefetchBytes. (Past the stack's top, the processor fetches what is there, or nothing:
// a prefetch does not fault.)
//
//go:noinline
func prefetchStack() {
	var here byte
	prefetchLines(unsafe.Pointer(&here), stackPrefetchBytes/64)
}
