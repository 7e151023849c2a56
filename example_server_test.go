package gameloop_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gameloop-go/gameloop"
)

// Many loops share one clock: each match keeps the whole Loop API, and all of them wait
// through the clock's one waiter. A server's loops draw no frames.
func ExampleSharedClock() {
	clock := gameloop.NewSharedClock(nil) // the default resolution
	defer clock.Close()

	var wg sync.WaitGroup
	ticks := make([]uint64, 3)
	for i := range ticks {
		loop, err := gameloop.New(gameloop.Config{TickRate: 100, Clock: clock, NoFrames: true})
		if err != nil {
			panic(err)
		}
		wg.Go(func() {
			err := loop.Run(context.Background(), gameloop.GameFunc(func(u *gameloop.Update) error {
				if u.Tick == 10 {
					return gameloop.ErrStop // the match is over
				}
				return nil
			}))
			if err != nil {
				panic(err)
			}
			ticks[i] = loop.Stats().Ticks
		})
	}
	wg.Wait()
	fmt.Println(ticks)
	// Output: [10 10 10]
}

// A pool runs matches without a goroutine each: the clock's waiter runs the updates of the
// matches that are due, and a few workers take the slow ones.
func ExamplePool() {
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()

	var matches []*gameloop.Match
	for range 3 {
		m, err := pool.NewMatch(context.Background(), gameloop.GameFunc(func(u *gameloop.Update) error {
			if u.Tick == 10 {
				return gameloop.ErrStop
			}
			return nil
		}), gameloop.Config{TickRate: 100})
		if err != nil {
			panic(err)
		}
		m.Start()
		matches = append(matches, m)
	}
	for i, m := range matches {
		err := m.Wait()
		fmt.Println("match", i, "ran", m.Stats().Ticks, "ticks, err:", err)
	}
	// Output:
	// match 0 ran 10 ticks, err: <nil>
	// match 1 ran 10 ticks, err: <nil>
	// match 2 ran 10 ticks, err: <nil>
}

// A pool on a clock whose waiter spins: a fine resolution that the machine's sleeps cannot
// keep (on a virtual machine they wake a millisecond or more late a few times a second), for
// about a core of CPU while matches are due less than 2 ms apart.
func ExampleSharedClockOptions_spin() {
	clock := gameloop.NewSharedClock(&gameloop.SharedClockOptions{
		Resolution: 200 * time.Microsecond,
		Spin:       true,
	})
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()

	m, err := pool.NewMatch(context.Background(), gameloop.GameFunc(func(u *gameloop.Update) error {
		if u.Tick == 20 {
			return gameloop.ErrStop
		}
		return nil
	}), gameloop.Config{TickRate: 200})
	if err != nil {
		panic(err)
	}
	m.Start()
	err = m.Wait()
	fmt.Println("ran", m.Stats().Ticks, "ticks, err:", err)
	// Output:
	// ran 20 ticks, err: <nil>
}
