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

// inputGame moves a player right by one for every KeyRight pressed before a tick, and ends the
// match at tick 5.
type inputGame struct{ x, vx int }

func (g *inputGame) Input(in *gameloop.Input) error {
	if in.Kind == gameloop.KeyPress && in.Key == gameloop.KeyRight {
		fmt.Println("right, before tick", in.Tick)
		g.vx++
	}
	return nil
}

func (g *inputGame) Update(u *gameloop.Update) error {
	g.x += g.vx
	if u.Tick == 5 {
		return gameloop.ErrStop
	}
	return nil
}

// Input for a match is pushed from any goroutine (a client's connection) and delivered before
// the match's next tick, marked with that tick. Once the match has ended it takes no more.
func ExampleMatch_Push() {
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()

	g := &inputGame{}
	m, err := pool.NewMatch(context.Background(), g, gameloop.Config{TickRate: 100})
	if err != nil {
		panic(err)
	}
	m.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyRight}) // held until it starts
	m.Start()
	if err := m.Wait(); err != nil {
		panic(err)
	}
	fmt.Println("x after 5 ticks:", g.x)
	fmt.Println("taken after the end:", m.Push(gameloop.Input{Kind: gameloop.KeyPress, Key: gameloop.KeyRight}))
	// Output:
	// right, before tick 1
	// x after 5 ticks: 5
	// taken after the end: false
}

// StartAt puts a match's tick grid where the server wants it: here two matches are started
// half a tick apart, so that their updates do not fall due together, and each update tells how
// late it began (the clock's time minus Due).
func ExampleMatch_StartAt() {
	clock := gameloop.NewSharedClock(nil)
	defer clock.Close()
	pool := gameloop.NewPool(clock, nil)
	defer pool.Close()

	const rate = 50
	period := time.Second / rate
	start := clock.Now()
	var matches []*gameloop.Match
	third := make([]time.Duration, 2) // when each match's third tick was due
	for i := range third {
		var m *gameloop.Match
		m, err := pool.NewMatch(context.Background(), gameloop.GameFunc(func(u *gameloop.Update) error {
			if late := clock.Now() - m.Due(); late < 0 {
				return fmt.Errorf("tick %d began %v early", u.Tick, -late) // never happens
			}
			if u.Tick == 3 {
				third[i] = m.Due() - start
				return gameloop.ErrStop
			}
			return nil
		}), gameloop.Config{TickRate: rate})
		if err != nil {
			panic(err)
		}
		m.StartAt(start + time.Duration(i)*period/2)
		matches = append(matches, m)
	}
	for i, m := range matches {
		if err := m.Wait(); err != nil {
			panic(err)
		}
		fmt.Printf("match %d: its third tick was due %v after the start\n", i, third[i])
	}
	// Output:
	// match 0: its third tick was due 60ms after the start
	// match 1: its third tick was due 70ms after the start
}
