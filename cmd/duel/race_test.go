//go:build race

package main

// raceEnabled makes TestMain build the commands with the race detector too, when the tests
// run with it, so that the processes the tests start are checked as well as the tests.
const raceEnabled = true
