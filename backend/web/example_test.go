package web_test

import (
	"fmt"
	"time"

	"github.com/gameloop-go/gameloop"
	"github.com/gameloop-go/gameloop/backend/web"
)

// A game at 20 ticks per second on a 60 Hz display: requestAnimationFrame's time goes to
// Frame, which runs the ticks owed and draws a frame. Canvas.Run does this in a page.
func ExampleDriver() {
	driver, err := web.NewDriver(gameloop.Config{TickRate: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	var ticks int
	game := gameloop.GameFunc(func(u *gameloop.Update) error {
		ticks++
		return nil
	})
	for frame := range 61 { // a second after the first frame
		now := time.Duration(frame) * time.Second / 60
		if err := driver.Frame(game, now, 800, 600); err != nil {
			fmt.Println(err)
			return
		}
	}
	st := driver.Stats()
	fmt.Println(ticks, "ticks,", st.Frames, "frames,", st.DroppedTicks, "dropped")
	// Output: 20 ticks, 61 frames, 0 dropped
}
