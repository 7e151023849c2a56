//go:build !ebiten

package main

import (
	"context"
	"errors"
)

// windowBuilt says that this duel cannot play in a window: it was built without -tags ebiten,
// so that it needs neither cgo nor a display.
const windowBuilt = false

// playWindow is never called in this build: checkOptions refuses -gui.
func (a *app) playWindow(context.Context) error {
	return errors.New("-gui: this duel was built without its window (build it with -tags ebiten)")
}
