package gameloop

import (
	"bytes"
	"runtime"
	"strconv"
)

// goid returns the id of the calling goroutine, as its stack trace's header gives it
// ("goroutine 18 [running]:"), or 0 if it cannot be read. It formats a stack trace's first
// line: only Close, and a waiter or worker as it starts, call it.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
