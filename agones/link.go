package agones

import (
	"context"
	"time"
)

// Link is a game server's side of its lifecycle on Agones, run in the background: Ready, tried
// every second until the SDK server answers; a health ping every 2 s; and, if a counter is
// named, the counter kept to what count says (the rooms of a high-density game server): sent
// as it changes, and every 2 s anyway, since an SDK server restarted has lost it. Failures are
// logged and retried, never fatal. Shutdown ends it.
type Link struct {
	c       *Client
	counter string
	count   func() int64
	logf    func(string, ...any)
	cancel  context.CancelFunc
	done    chan struct{}
}

// How often Link brings the counter up to date, and sends it unchanged.
const (
	linkSync   = 250 * time.Millisecond
	linkResync = 2 * time.Second
)

// Start starts a Link of c. counter may be empty (no counter), count nil then; logf may be nil.
func Start(c *Client, counter string, count func() int64, logf func(string, ...any)) *Link {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Link{c: c, counter: counter, count: count, logf: logf, cancel: cancel, done: make(chan struct{})}
	go l.run(ctx)
	return l
}

func (l *Link) run(ctx context.Context) {
	defer close(l.done)
	go Pinger{Client: l.c, Logf: l.logf}.Run(ctx)
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
	last, lastAt := int64(-1), time.Time{}
	t := time.NewTicker(linkSync)
	defer t.Stop()
	for {
		if n := l.count(); n != last || time.Since(lastAt) > linkResync {
			if _, err := l.c.SetCount(ctx, l.counter, n); err != nil {
				if ctx.Err() == nil {
					l.logf("agones: counter %q to %d: %v (retrying)", l.counter, n, err)
				}
			} else {
				last, lastAt = n, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop stops the pings and the counter, and waits for them.
func (l *Link) Stop() {
	l.cancel()
	<-l.done
}

// Shutdown stops the link, sets the counter one last time, and tells Agones the game server is
// done (Shutdown), within ctx.
func (l *Link) Shutdown(ctx context.Context) error {
	l.Stop()
	if l.counter != "" && l.count != nil {
		if _, err := l.c.SetCount(ctx, l.counter, l.count()); err != nil {
			l.logf("agones: counter %q: %v", l.counter, err)
		}
	}
	if err := l.c.Shutdown(ctx); err != nil {
		return err
	}
	l.logf("agones: Shutdown")
	return nil
}
