//go:build !unix

package main

import "time"

// processCPU returns -1: CPU time is measured on Unix only.
func processCPU() time.Duration { return -1 }
