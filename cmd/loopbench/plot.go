package main

import (
	"fmt"
	"image/color"
	"math"

	"github.com/gameloop-go/gameloop/internal/plotfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// drawPlot draws, for each rate, the share of frames that started later than x µs after
// their aimed time (a complementary cumulative distribution), one line per strategy, both
// axes logarithmic: the further down and left a line ends, the better, and its right end is
// the worst frame. A log scale shows the tail, which is what a player sees as a stutter.
// Deviations under 0.1 µs (a busy-wait's) are drawn at 0.1 µs.
func drawPlot(path string, results []result, o options) error {
	var plots []*plot.Plot
	for _, hz := range o.rates {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%d Hz: frames starting later than x", hz)
		p.X.Label.Text = "deviation from the aimed start (µs)"
		p.Y.Label.Text = "share of frames"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
		p.X.Min = 0.1
		p.Legend.Left = true // the lower left of a distribution like this is empty
		p.Add(plotter.NewGrid())
		i := 0
		for _, r := range results {
			if r.Hz != hz || len(r.deviations) == 0 {
				continue
			}
			line, err := plotter.NewLine(ccdf(r.deviations))
			if err != nil {
				return fmt.Errorf("%s at %d Hz: %w", r.Strategy, hz, err)
			}
			line.Color = palette(i)
			line.Width = vg.Points(1.5)
			if r.Strategy == "gameloop" {
				line.Width = vg.Points(3)
			}
			p.Add(line)
			p.Legend.Add(fmt.Sprintf("%s  p99 %.0f µs, %.1f%% CPU", r.Strategy, r.P99us, r.CPUPercent), line)
			i++
		}
		p.Y.Min = 1 / float64(o.seconds*float64(hz))
		p.Y.Max = 1
		plots = append(plots, p)
	}
	return plotfile.SavePNG(path, 9*vg.Inch, plots...)
}

// ccdf returns, for sorted deviations, the points (x, share of values >= x), with x clamped to
// the plot's smallest value so that a log axis can show it.
func ccdf(sorted []float64) plotter.XYs {
	n := len(sorted)
	xys := make(plotter.XYs, 0, n)
	for i, v := range sorted {
		if i+1 < n && sorted[i+1] == v {
			continue
		}
		share := float64(n-i) / float64(n)
		xys = append(xys, plotter.XY{X: math.Max(v, 0.1), Y: share})
	}
	return xys
}

// palette returns distinct colours for the lines.
func palette(i int) color.Color {
	colours := []color.Color{
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, // blue
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, // green
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, // orange
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, // purple
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, // brown
		color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}, // grey
	}
	return colours[i%len(colours)]
}
