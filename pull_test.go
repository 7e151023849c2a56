package gameloop

import "iter"

// pull wraps iter.Pull for tests that step a loop one event at a time.
func pull(seq iter.Seq[Event]) (func() (Event, bool), func()) { return iter.Pull(seq) }
