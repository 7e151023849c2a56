package agones

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Link is a game server's side of its lifecycle on Agones, run in the background: Ready, tried
// every second until the SDK server answers; a health ping every 2 s; and, if a counter is
// named, the counter kept to what count says (the rooms of a high-density game server). The
// count is sent as it changes (looked at every 250 ms), at most the counter's capacity; every
// 2 s the counter is read back, a read the SDK server answers from what it holds, without a
// write to Kubernetes, and sent again if it differs (an SDK server restarted in local mode
// has lost it). A call that fails is logged once, retried with a backoff that doubles up to
// 30 s, and never fatal; success after failures is logged too. Shutdown ends it.
type Link struct {
	c       *Client
	counter string
	count   func() int64
	logf    func(string, ...any)
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// Link's pace.
const (
	linkSync       = 250 * time.Millisecond // how often the count is looked at
	linkCheck      = 2 * time.Second        // how often the counter is read back
	linkBackoffMax = 30 * time.Second       // the longest wait after failures
	linkRetry      = 250 * time.Millisecond // between tries of Shutdown
)

// Start starts a Link of c. counter may be empty (no counter), count nil then; logf may be nil.
func Start(c *Client, counter string, count func() int64, logf func(string, ...any)) *Link {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{c: c, counter: counter, count: count, logf: logf, cancel: cancel}
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		Pinger{Client: l.c, Logf: l.logf}.Run(ctx)
	}()
	go func() {
		defer l.wg.Done()
		l.run(ctx)
	}()
	return l
}

func (l *Link) run(ctx context.Context) {
	for {
		err := l.c.Ready(ctx)
		if err == nil {
			l.logf("agones: Ready")
			break
		}
		l.logf("agones: Ready: %v (retrying)", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	if l.counter == "" || l.count == nil {
		<-ctx.Done()
		return
	}
	s := counterSync{l: l, last: -1, capacity: -1}
	t := time.NewTicker(linkSync)
	defer t.Stop()
	for {
		if now := time.Now(); !now.Before(s.next) {
			s.step(ctx, now)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// counterSync keeps a Link's counter to its count.
type counterSync struct {
	l        *Link
	last     int64 // the count the SDK server has, as far as known; -1: unknown
	capacity int64 // the counter's capacity, once read; -1: not yet
	reread   bool  // read the counter before setting it again: a set failed
	checked  time.Time
	next     time.Time     // no call before then: a backoff
	wait     time.Duration // the backoff's last wait
	failing  string        // the last failure, logged; empty while calls go through
	clamped  bool          // a count over the capacity was logged
}

// step reads the counter when its capacity is not known yet, after a failed set, or every
// linkCheck while the count stands still, and sets it where the count (at most the capacity)
// is not what the SDK server has; it backs off after a failure.
func (s *counterSync) step(ctx context.Context, now time.Time) {
	l := s.l
	n := l.count()
	var err error
	if s.capacity < 0 || s.reread || n == s.last && now.Sub(s.checked) >= linkCheck {
		var ct Counter
		if ct, err = l.c.Counter(ctx, l.counter); err == nil {
			s.checked, s.capacity, s.last, s.reread = now, ct.Capacity, ct.Count, false
		}
	}
	if err == nil {
		if n > s.capacity {
			if !s.clamped {
				l.logf("agones: counter %q: count %d over its capacity %d: set to %d (-max-matches should be at most the capacity)", l.counter, n, s.capacity, s.capacity)
				s.clamped = true
			}
			n = s.capacity
		}
		if n != s.last {
			if _, err = l.c.SetCount(ctx, l.counter, n); err == nil {
				s.last, s.checked = n, now
			} else {
				s.reread = true
			}
		}
	}
	switch {
	case ctx.Err() != nil:
	case err != nil:
		s.wait = min(max(2*s.wait, linkSync), linkBackoffMax)
		s.next = now.Add(s.wait)
		if msg := err.Error(); msg != s.failing {
			s.failing = msg
			l.logf("agones: counter %q to %d: %v (retrying, less often while it fails)", l.counter, n, err)
		}
	case s.failing != "":
		s.failing, s.wait = "", 0
		l.logf("agones: counter %q up to date again", l.counter)
	default:
		s.wait = 0
	}
}

// Stop stops the pings and the counter, and waits for them.
func (l *Link) Stop() {
	l.cancel()
	l.wg.Wait()
}

// Shutdown stops the link, sets the counter one last time (within half of what is left of
// ctx, so that the rest is Shutdown's), and tells Agones the game server is done (Shutdown),
// tried every 250 ms until it goes through or ctx ends.
func (l *Link) Shutdown(ctx context.Context) error {
	l.Stop()
	if l.counter != "" && l.count != nil {
		budget := 2 * time.Second
		if dl, ok := ctx.Deadline(); ok {
			budget = time.Until(dl) / 2
		}
		cctx, cancel := context.WithTimeout(ctx, budget)
		if _, err := l.c.SetCount(cctx, l.counter, l.count()); err != nil {
			l.logf("agones: counter %q: %v", l.counter, err)
		}
		cancel()
	}
	for {
		err := l.c.Shutdown(ctx)
		if err == nil {
			l.logf("agones: Shutdown")
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(linkRetry):
		}
		l.logf("agones: Shutdown: %v (retrying)", err)
	}
}
