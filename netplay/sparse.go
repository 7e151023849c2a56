package netplay

// Sparse saving (Config.SparseSaving): the game saves only the state a rollback can go back
// to, the last final tick's, and the states whose checksums the peers compare, instead of
// every tick's; a rollback goes back to that state and plays every tick since again.

// sparseSlots is how many state slots a sparse session needs: the state a rollback loads, the
// next one to become it, and one for the states saved only for their checksum.
const sparseSlots = 3

// advanceSparse builds the requests of Advance for next with sparse saving: a Load of the
// saved state and every tick since played again when an input proved mispredicted, or when
// the saved state lags the final tick by the prediction window (so that it keeps up, and a
// rollback never plays more than about twice the window again); then next. The tick that is
// final after this call is saved when it runs, and so is every tick whose checksum the peers
// compare (DesyncInterval).
func (s *Session[I]) advanceSparse(next uint64) {
	final := min(s.known(), next) // no input can change up to it: a state to go back to
	first := s.firstWrong()
	if first > s.tick && final > s.saved && s.tick-s.saved >= uint64(s.window) {
		first = s.saved + 1 // bring the saved state up to the final tick
	}
	used := 0
	if first <= s.tick {
		s.reqs = append(s.reqs, Request[I]{Kind: Load, Tick: s.saved, Slot: s.savedSlot})
		depth := int(s.tick - s.saved)
		for t := s.saved + 1; t <= s.tick; t++ {
			used = s.sparseRequest(t, final, used)
		}
		s.stats.Rollbacks++
		s.stats.LastRollback = depth
		s.stats.MaxRollback = max(s.stats.MaxRollback, depth)
	}
	s.sparseRequest(next, final, used)
}

// sparseRequest appends the Advance request of tick t, with inputs from s.inputs[used:], and
// its Save if t is the final tick (which becomes the state to go back to) or one whose
// checksum is compared; it returns how many of s.inputs are used.
func (s *Session[I]) sparseRequest(t, final uint64, used int) int {
	used = s.advanceOnly(t, used)
	switch {
	case t == final && t > s.saved:
		slot := (s.savedSlot + 1) % sparseSlots
		s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: t, Slot: slot})
		s.saved, s.savedSlot = t, slot
	case s.cfg.DesyncInterval > 0 && t%uint64(s.cfg.DesyncInterval) == 0:
		s.reqs = append(s.reqs, Request[I]{Kind: Save, Tick: t, Slot: (s.savedSlot + 2) % sparseSlots})
	}
	return used
}
