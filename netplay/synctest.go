package netplay

// SyncTestConfig describes a SyncTest.
type SyncTestConfig[I comparable] struct {
	// Players is the number of players, 1 to MaxPlayers; all are local.
	Players int
	// CheckDistance is how many ticks back the test rolls every tick, 1 to
	// MaxPredictionWindow. 0 means DefaultCheckDistance.
	CheckDistance int
	// InputDelay is as in Config.
	InputDelay int
}

// DefaultCheckDistance is SyncTestConfig.CheckDistance when it is 0.
const DefaultCheckDistance = 2

// SyncTest is a session with no network, to test that a game is deterministic and saves and
// loads all of its state: every tick it runs the tick, then goes back CheckDistance ticks and
// runs them again, and compares the checksums of the states saved the first time and the
// second. Any difference (map iteration order, a clock read, a field Save forgets) is reported
// at the first tick it shows in, as a *SyncError. Its requests are carried out as a Session's.
type SyncTest[I comparable] struct {
}

// SyncError is a SyncTest's finding: the state after Tick had checksum First when the tick was
// first run and Again when it was run again from the state after tick From.
type SyncError struct {
	Tick, From   uint64
	First, Again uint64
}

// NewSyncTest returns a sync test for cfg.
func NewSyncTest[I comparable](cfg SyncTestConfig[I]) (*SyncTest[I], error) { panic("not yet") }

// AddLocalInput sets the input of player handle for the next tick.
func (t *SyncTest[I]) AddLocalInput(handle int, in I) error { return nil }

// Advance checks the checksums saved by the requests of the last call (a *SyncError if the
// state after a tick run twice differs) and returns the requests of the next tick: Advance and
// Save for it, then a Load of the state CheckDistance ticks back, and Advance and Save for each
// tick since. The slice is valid until the next call.
func (t *SyncTest[I]) Advance() ([]Request[I], error) { return nil, nil }

// Slots returns the number of state slots the game needs: CheckDistance + 2.
func (t *SyncTest[I]) Slots() int { return 0 }

// Tick returns the last tick run.
func (t *SyncTest[I]) Tick() uint64 { return 0 }

func (e *SyncError) Error() string { return "" }
