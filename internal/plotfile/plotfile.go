// Package plotfile writes gonum plots to PNG files, stacked one above the other: what the
// benchmark tools (cmd/loopbench, cmd/serverbench) share.
package plotfile

import (
	"errors"
	"fmt"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// SavePNG draws plots one above the other, each width wide and 4 inches high, aligned on their
// axes, into a PNG file at path.
func SavePNG(path string, width vg.Length, plots ...*plot.Plot) error {
	rows := len(plots)
	img := vgimg.New(width, vg.Length(rows)*4*vg.Inch)
	tiles := draw.Tiles{Rows: rows, Cols: 1, PadY: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2}
	grid := make([][]*plot.Plot, rows)
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, errors.Join(err, f.Close()))
	}
	return f.Close()
}
