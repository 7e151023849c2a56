//go:build !unix

package main

import "time"

// processCPU returns -1: getrusage is not available here, and the CPU column shows NaN.
func processCPU() time.Duration { return -1 }
