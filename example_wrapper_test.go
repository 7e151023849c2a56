package gameloop_test

import (
	"fmt"

	"github.com/gameloop-go/gameloop"
)

// counted wraps a game and counts its updates, as a recorder's wrapper records them. It passes
// on Update only, so it says what it wraps.
type counted struct {
	game    gameloop.Game
	updates int
}

func (c *counted) Update(u *gameloop.Update) error { c.updates++; return c.game.Update(u) }

// Unwrap returns the game wrapped.
func (c *counted) Unwrap() any { return c.game }

// Titler is what some backend asks of a game besides Run's callbacks.
type Titler interface{ Title() string }

type titled struct{}

func (titled) Update(*gameloop.Update) error { return nil }
func (titled) Title() string                 { return "space game" }

// A backend finds what a wrapped game implements besides Run's callbacks.
func ExampleAs() {
	var g gameloop.Game = &counted{game: titled{}}
	_, direct := g.(Titler)
	t, found := gameloop.As[Titler](g)
	fmt.Println(direct, found, t.Title())
	// Output: false true space game
}
