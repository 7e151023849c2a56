package gameloop

import "time"

// frameGrid schedules frames under a cap against absolute deadlines: frame k is due at
// epoch + k/fps seconds of real time. A deadline that is missed is not made up for: the next
// frame goes to the first slot after the one drawn late, so frames never come in a burst and a
// late frame does not push every later one back (as sleeping "for the rest of the frame" does).
type frameGrid struct {
	fps     int64 // 0: no cap
	epoch   time.Duration
	next    uint64        // index of the next slot
	due     time.Duration // when slot next is due, cached: it is asked for every pass
	started bool
}

// dueAt returns when the next frame is due.
func (f *frameGrid) dueAt() time.Duration { return f.due }

func (f *frameGrid) setNext(next uint64) {
	f.next = next
	if f.fps > 0 {
		f.due = f.epoch + offsetOf(next, f.fps)
	}
}

// start puts slot 0 at now if the grid has not started.
func (f *frameGrid) start(now time.Duration) {
	if !f.started {
		f.started, f.epoch = true, now
		f.setNext(0)
	}
}

// taken records a frame drawn (or skipped) at now and returns how many slots were missed.
func (f *frameGrid) taken(now time.Duration) (missed uint64) {
	if f.fps == 0 {
		return 0
	}
	after := f.next + 1
	if now >= f.epoch+offsetOf(after, f.fps) {
		after = countIn(now-f.epoch, f.fps) + 1 // the first slot strictly after now
	}
	missed = after - f.next - 1
	f.setNext(after)
	return missed
}

// setRate starts a new grid at rate fps, with its first slot one period after the last frame.
func (f *frameGrid) setRate(fps int, lastFrame time.Duration, drawn bool) {
	f.fps = int64(fps)
	if drawn {
		f.epoch = lastFrame
		f.setNext(1)
	} else {
		f.started = false
	}
}
