//go:build race

package relay

// raceEnabled shortens the campaigns under the race detector, which runs them ten times
// slower; scripts/test.d/relay.sh runs them in full without it.
const raceEnabled = true
