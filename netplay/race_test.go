//go:build race

package netplay

// raceEnabled shortens the soak under the race detector, which runs it ten times slower.
const raceEnabled = true
