// Package authority decides a relayed match: which input of each player counts for each tick,
// on the relay's clock. A relay runs one Match per match; its players send their inputs ahead
// of time, and at each tick's deadline the Match confirms the tick: every player's input as it
// arrived, or, for a player whose input did not arrive in time, its last input again (the
// player's own prediction of itself, told back to it so that it rolls back to what ran), or,
// for a dropped player, the zero input. A confirmed tick never changes: every player and
// spectator is fed the same inputs, so no two can ever be in different games.
//
// A Match reads no clock and does no I/O: the time is passed to each call, as a duration since
// any origin that does not go backwards, like the rest of gameloop's cores. It allocates only
// in New; its memory is fixed by the Config.
package authority

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gameloop-go/gameloop/netplay/internal/wire"
)

// Config is a match's shape and its rules.
type Config struct {
	// Slots is the number of players, 1 to wire.MaxPlayers.
	Slots int
	// InputSize is the size in bytes of one player's input for one tick, 1 to
	// wire.MaxInputSize.
	InputSize int
	// TickRate is the match's ticks a second, 1 to 1000.
	TickRate int
	// Window is how many ticks past the last one confirmed an input may be for: a player's
	// lead over the relay, its round trip and input delay included. 0 means 32 (533 ms at
	// 60 Hz); at most MaxWindow.
	Window int
	// Timeout is how long a player may go unheard before it is dropped. 0 means 3 s.
	Timeout time.Duration
	// History is how many confirmed ticks are kept for players catching up and for
	// spectators: at least Window, at most MaxHistory. 0 means 3,600 (a minute at 60 Hz).
	History int
	// StartGrace is how long, from Start, the match's clock may wait for the first input of
	// every player there at the start: a far player hears of the start half a round trip
	// late, and its first inputs arrive a round trip after it, which a clock running from
	// Start would all replace. The clock (Due, the deadlines) starts once every such player's
	// first input has arrived (or the player is dropped), or when the grace is over; ticks
	// whose inputs are all in are confirmed meanwhile (ConfirmReady). 0: the clock starts at
	// Start; at most MaxStartGrace.
	StartGrace time.Duration
}

// The bounds of a Config.
const (
	MaxTickRate   = 1000
	MaxWindow     = 1024
	MaxHistory    = 1 << 20
	MaxStartGrace = time.Minute
)

// Verdict is what became of an input given to Match.Input.
type Verdict uint8

// The verdicts.
const (
	// Accepted: the input counts for its tick, unless the tick is decided without it.
	Accepted Verdict = iota
	// Duplicate: an input for that tick had arrived already; the first stands.
	Duplicate
	// Late: the tick was confirmed already (with the player's last input again).
	Late
	// TooEarly: the tick is more than Window past the last one confirmed.
	TooEarly
	// Dropped: the player has been dropped.
	Dropped
	// NotStarted: the match has not started.
	NotStarted
	// Vacant: the slot has no player (StartVacant) and has not been joined (Join).
	Vacant
)

var verdictNames = [...]string{"accepted", "duplicate", "late", "too early", "dropped", "not started", "vacant"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// Stats counts what a Match has decided.
type Stats struct {
	// Confirmed is the last tick confirmed (0: none yet).
	Confirmed uint64
	// Accepted, Duplicate, Late, TooEarly and Refused (dropped, not started or vacant)
	// count the inputs given to Input by verdict.
	Accepted, Duplicate, Late, TooEarly, Refused uint64
	// Replaced counts the inputs that did not arrive in time, a player and a tick each.
	Replaced uint64
	// TimedOut and Kicked count the players dropped for silence and by Drop.
	TimedOut, Kicked uint64
	// Joined counts the slots joined after the start (Join).
	Joined uint64
}

// Match is one match's authority. Its methods must be called from one goroutine at a time.
type Match struct {
	cfg    Config
	period time.Duration
	size   int // bytes of one tick of every slot: Slots*InputSize

	started bool
	start   time.Duration // when the clock started: tick k's deadline is start + k periods
	// fresh holds the slots there at the start whose first input has not arrived: while it
	// is not empty (for StartGrace after startedAt at most), the clock waits. latest is the
	// latest time a call was given.
	fresh     wire.HandleSet
	startedAt time.Duration
	latest    time.Duration
	// confirmed is the last tick confirmed; ticks run from 1.
	confirmed uint64

	// The inputs received for the ticks after confirmed, a ring of Window ticks by tick,
	// and which slots each tick has.
	ahead    []byte
	aheadHas []wire.HandleSet
	// last is each slot's input in the last tick confirmed.
	last []byte
	// The confirmed ticks kept, a ring of History ticks by tick, with the slots replaced and
	// dropped in each.
	hist     []byte
	replaced []wire.HandleSet
	dropped  []wire.HandleSet

	heard     [wire.MaxPlayers]time.Duration
	gone      wire.HandleSet
	cutoff    [wire.MaxPlayers]uint64 // a dropped slot's last tick with its own input
	vacant    wire.HandleSet          // slots with no player yet
	joined    [wire.MaxPlayers]uint64 // each slot's first tick with its own input
	stats     Stats
	zeroInput []byte
}

// Errors of Match's methods.
var (
	ErrStarted   = errors.New("authority: the match has started already")
	ErrSlot      = errors.New("authority: no such slot")
	ErrNotVacant = errors.New("authority: the slot is not vacant")
)

// New returns a match of cfg, not started.
func New(cfg Config) (*Match, error) {
	if cfg.Window == 0 {
		cfg.Window = 32
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 3 * time.Second
	}
	if cfg.History == 0 {
		cfg.History = max(3600, cfg.Window)
	}
	switch {
	case cfg.Slots < 1 || cfg.Slots > wire.MaxPlayers:
		return nil, fmt.Errorf("authority: Config.Slots = %d: want 1 to %d", cfg.Slots, wire.MaxPlayers)
	case cfg.InputSize < 1 || cfg.InputSize > wire.MaxInputSize:
		return nil, fmt.Errorf("authority: Config.InputSize = %d: want 1 to %d", cfg.InputSize, wire.MaxInputSize)
	case cfg.TickRate < 1 || cfg.TickRate > MaxTickRate:
		return nil, fmt.Errorf("authority: Config.TickRate = %d: want 1 to %d", cfg.TickRate, MaxTickRate)
	case cfg.Window < 1 || cfg.Window > MaxWindow:
		return nil, fmt.Errorf("authority: Config.Window = %d: want 1 to %d", cfg.Window, MaxWindow)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("authority: Config.Timeout = %v: want more than 0", cfg.Timeout)
	case cfg.History < cfg.Window || cfg.History > MaxHistory:
		return nil, fmt.Errorf("authority: Config.History = %d: want Window (%d) to %d", cfg.History, cfg.Window, MaxHistory)
	case cfg.StartGrace < 0 || cfg.StartGrace > MaxStartGrace:
		return nil, fmt.Errorf("authority: Config.StartGrace = %v: want 0 to %v", cfg.StartGrace, MaxStartGrace)
	}
	m := &Match{cfg: cfg, period: time.Second / time.Duration(cfg.TickRate), size: cfg.Slots * cfg.InputSize}
	m.ahead = make([]byte, cfg.Window*m.size)
	m.aheadHas = make([]wire.HandleSet, cfg.Window)
	m.last = make([]byte, m.size)
	m.hist = make([]byte, cfg.History*m.size)
	m.replaced = make([]wire.HandleSet, cfg.History)
	m.dropped = make([]wire.HandleSet, cfg.History)
	m.zeroInput = make([]byte, cfg.InputSize)
	return m, nil
}

// Config returns the match's configuration, its zero fields set to their defaults.
func (m *Match) Config() Config { return m.cfg }

// Start starts the match's clock at now: tick k is confirmed once k periods have passed. Every
// player counts as heard at now.
func (m *Match) Start(now time.Duration) error { return m.StartVacant(now, 0) }

// StartVacant is Start with the slots in vacant having no player yet: until Join gives one a
// player, its input is the zero input, marked dropped in Tick, and no tick waits for it or
// times it out.
func (m *Match) StartVacant(now time.Duration, vacant wire.HandleSet) error {
	if m.started {
		return ErrStarted
	}
	m.started, m.start, m.startedAt, m.latest = true, now, now, now
	m.vacant = vacant & (1<<m.cfg.Slots - 1)
	if m.cfg.StartGrace > 0 {
		m.fresh = wire.HandleSet(1<<m.cfg.Slots-1) &^ m.vacant
	}
	for s := range m.cfg.Slots {
		m.heard[s] = now
		if !m.vacant.Has(s) {
			m.joined[s] = 1
		}
	}
	return nil
}

// Vacant returns the slots with no player yet.
func (m *Match) Vacant() wire.HandleSet { return m.vacant }

// Join gives vacant slot a player, heard at now, from the tick after the last confirmed on,
// which it returns: the slot's first tick with its own input (until that input arrives, it is
// replaced as any late input is, by the slot's last, the zero input).
func (m *Match) Join(now time.Duration, slot int) (uint64, error) {
	switch {
	case slot < 0 || slot >= m.cfg.Slots:
		return 0, ErrSlot
	case !m.started || !m.vacant.Has(slot):
		return 0, ErrNotVacant
	}
	m.vacant &^= 1 << slot
	m.joined[slot] = m.confirmed + 1
	m.heard[slot] = max(now, m.heard[slot])
	m.stats.Joined++
	return m.joined[slot], nil
}

// Joined returns slot's first tick with its own input: 1 for a player there from the start,
// the tick Join returned for one that joined later, 0 for a vacant slot (or before Start).
func (m *Match) Joined(slot int) uint64 {
	if slot < 0 || slot >= m.cfg.Slots {
		return 0
	}
	return m.joined[slot]
}

// Started reports whether Start has been called.
func (m *Match) Started() bool { return m.started }

// Confirmed returns the last tick confirmed, 0 before the first.
func (m *Match) Confirmed() uint64 { return m.confirmed }

// Oldest returns the oldest tick Tick still has, 0 when none has been confirmed.
func (m *Match) Oldest() uint64 {
	if m.confirmed == 0 {
		return 0
	}
	return max(1, m.confirmed-min(m.confirmed, uint64(m.cfg.History))+1)
}

// NextDeadline returns when the tick after the last confirmed one will be: the time Advance
// should be called next (while the clock waits for the players' first inputs, the grace's
// end). Before Start it returns 0.
func (m *Match) NextDeadline() time.Duration {
	if !m.started {
		return 0
	}
	if m.fresh != 0 {
		if m.startedAt > math.MaxInt64-m.cfg.StartGrace {
			return math.MaxInt64
		}
		return m.startedAt + m.cfg.StartGrace // the clock waits until then at the most
	}
	next := m.confirmed + 1
	if next > wire.MaxTick || next > uint64(math.MaxInt64/int64(m.period)) {
		return math.MaxInt64 // past what a Duration holds: never, in practice
	}
	d := time.Duration(next) * m.period
	if m.start > math.MaxInt64-d {
		return math.MaxInt64
	}
	return m.start + d
}

// Dropped returns the slots dropped.
func (m *Match) Dropped() wire.HandleSet { return m.gone }

// Cutoff returns the last tick slot's own input counted for, once it is dropped.
func (m *Match) Cutoff(slot int) (uint64, bool) {
	if !m.gone.Has(slot) {
		return 0, false
	}
	return m.cutoff[slot], true
}

// Stats returns what the match has decided so far.
func (m *Match) Stats() Stats {
	st := m.stats
	st.Confirmed = m.confirmed
	return st
}

// Have returns the last tick up to which the match holds slot's input for every tick: the last
// tick confirmed and the ticks after it whose input from slot has arrived, in a row. A
// player's inputs up to it need not be sent again.
func (m *Match) Have(slot int) uint64 {
	t := m.confirmed
	if slot < 0 || slot >= m.cfg.Slots || m.gone.Has(slot) || m.vacant.Has(slot) {
		return t
	}
	for t < m.confirmed+uint64(m.cfg.Window) && m.aheadHas[(t+1)%uint64(m.cfg.Window)].Has(slot) {
		t++
	}
	return t
}

// Heard notes that slot was heard at now (a packet with no input: an acknowledgement, a
// keep-alive), which keeps it from timing out.
func (m *Match) Heard(now time.Duration, slot int) {
	m.latest = max(m.latest, now)
	if slot >= 0 && slot < m.cfg.Slots && now > m.heard[slot] {
		m.heard[slot] = now
	}
}

// arrived takes slot out of those whose first input the clock waits for, starting the clock
// at now if it was the last.
func (m *Match) arrived(slot int, now time.Duration) {
	if !m.fresh.Has(slot) {
		return
	}
	m.fresh &^= 1 << slot
	if m.fresh == 0 {
		m.start = max(m.start, now)
	}
}

// Input gives slot's input for tick, which arrived at now, and says what became of it. The
// first input for a tick stands; in must be InputSize bytes (it is copied). The slot counts as
// heard whatever the verdict.
func (m *Match) Input(now time.Duration, slot int, tick uint64, in []byte) (Verdict, error) {
	if slot < 0 || slot >= m.cfg.Slots {
		return 0, ErrSlot
	}
	if len(in) != m.cfg.InputSize {
		return 0, fmt.Errorf("authority: an input of %d bytes, want %d", len(in), m.cfg.InputSize)
	}
	m.Heard(now, slot)
	switch {
	case !m.started:
		m.stats.Refused++
		return NotStarted, nil
	case m.gone.Has(slot):
		m.stats.Refused++
		return Dropped, nil
	case m.vacant.Has(slot):
		m.stats.Refused++
		return Vacant, nil
	}
	m.arrived(slot, now)
	switch {
	case tick <= m.confirmed:
		m.stats.Late++
		return Late, nil
	case tick > m.confirmed+uint64(m.cfg.Window):
		m.stats.TooEarly++
		return TooEarly, nil
	}
	i := int(tick % uint64(m.cfg.Window))
	if m.aheadHas[i].Has(slot) {
		m.stats.Duplicate++
		return Duplicate, nil
	}
	m.aheadHas[i] |= 1 << slot
	copy(m.ahead[i*m.size+slot*m.cfg.InputSize:], in)
	m.stats.Accepted++
	return Accepted, nil
}

// Drop drops slot from the tick after the last confirmed one: from then on its input is the
// zero input, marked dropped. Dropping a dropped slot does nothing; a vacant slot dropped
// can no longer be joined (its cutoff is 0: it never had an input).
func (m *Match) Drop(slot int) error {
	if slot < 0 || slot >= m.cfg.Slots {
		return ErrSlot
	}
	if !m.gone.Has(slot) {
		m.drop(slot)
		m.stats.Kicked++
	}
	return nil
}

func (m *Match) drop(slot int) {
	m.gone |= 1 << slot
	m.arrived(slot, m.latest) // nothing more to wait for
	m.cutoff[slot] = m.confirmed
	if m.vacant.Has(slot) {
		m.vacant &^= 1 << slot
		m.cutoff[slot] = 0
	}
}

// Advance confirms every tick whose time has come by now, after dropping the players unheard
// for Timeout, and returns how many it confirmed: none while the clock waits for the players'
// first inputs (Config.StartGrace). A tick stands as decided; Tick returns it.
func (m *Match) Advance(now time.Duration) int {
	if !m.started || now < m.startedAt {
		return 0
	}
	m.latest = max(m.latest, now)
	for s := range m.cfg.Slots {
		if !m.gone.Has(s) && !m.vacant.Has(s) && now-m.heard[s] > m.cfg.Timeout {
			m.drop(s)
			m.stats.TimedOut++
		}
	}
	if m.fresh != 0 {
		if now-m.startedAt < m.cfg.StartGrace {
			return 0
		}
		m.fresh, m.start = 0, m.startedAt+m.cfg.StartGrace // the grace is over
	}
	if now < m.start {
		return 0
	}
	due := m.Due(now)
	n := 0
	for m.confirmed < due {
		m.confirm(m.confirmed + 1)
		n++
	}
	return n
}

// ConfirmReady confirms, before their deadlines, the ticks after the last confirmed for which
// every player not dropped (nor vacant) has given its input, in a row, and returns how many: a
// tick waits for its deadline only while an input is missing. Call it after the inputs of a
// packet.
func (m *Match) ConfirmReady() int {
	need := wire.HandleSet(1<<m.cfg.Slots-1) &^ m.gone &^ m.vacant
	if !m.started || need == 0 {
		return 0
	}
	n := 0
	for m.confirmed < wire.MaxTick && m.aheadHas[(m.confirmed+1)%uint64(m.cfg.Window)]&need == need {
		m.confirm(m.confirmed + 1)
		n++
	}
	return n
}

// Due returns the last tick whose deadline has passed at now: the match's clock, which the
// ticks confirmed may run ahead of (ConfirmReady). 0 before Start, and while the clock waits
// for the players' first inputs.
func (m *Match) Due(now time.Duration) uint64 {
	if !m.started || m.fresh != 0 || now < m.start {
		return 0
	}
	return min(uint64((now-m.start)/m.period), wire.MaxTick)
}

// confirm decides tick t, the one after the last confirmed.
func (m *Match) confirm(t uint64) {
	w := int(t % uint64(m.cfg.Window))
	has := m.aheadHas[w]
	src := m.ahead[w*m.size : (w+1)*m.size]
	h := int(t % uint64(m.cfg.History))
	dst := m.hist[h*m.size : (h+1)*m.size]
	var replaced wire.HandleSet
	for s := range m.cfg.Slots {
		o := s * m.cfg.InputSize
		in := m.last[o : o+m.cfg.InputSize]
		switch {
		case m.gone.Has(s) || m.vacant.Has(s):
			in = m.zeroInput
		case has.Has(s):
			in = src[o : o+m.cfg.InputSize]
		default:
			replaced |= 1 << s
			m.stats.Replaced++
		}
		copy(dst[o:], in)
	}
	copy(m.last, dst)
	m.replaced[h], m.dropped[h] = replaced, m.gone|m.vacant
	m.aheadHas[w] = 0
	m.confirmed = t
}

// Tick copies the inputs of confirmed tick t, every slot's in slot order (Slots*InputSize
// bytes), into dst and returns the slots whose input was replaced (it did not arrive in time:
// the slot's last input again) and those dropped or vacant (the zero input). ok is false if t is not
// confirmed or no longer kept (before Oldest).
func (m *Match) Tick(t uint64, dst []byte) (replaced, dropped wire.HandleSet, ok bool) {
	if t == 0 || t > m.confirmed || t < m.Oldest() || len(dst) < m.size {
		return 0, 0, false
	}
	h := int(t % uint64(m.cfg.History))
	copy(dst, m.hist[h*m.size:(h+1)*m.size])
	return m.replaced[h], m.dropped[h], true
}
