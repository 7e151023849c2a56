//go:build !unix

package main

import "time"

// processCPU returns -1 and -1: no getrusage here.
func processCPU() (user, sys time.Duration) { return -1, -1 }
