//go:build !unix

package gameloop

import "time"

// processCPUTime returns -1: there is no getrusage here.
func processCPUTime() time.Duration { return -1 }
