package main

import (
	"fmt"
	"image/color"
	"slices"

	"github.com/gameloop-go/gameloop/internal/plotfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colours gives each strategy the same colour in every plot.
var colours = map[string]color.Color{
	"shared": color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"pool":   color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"loops":  color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	"ticker": color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// plotByMatches draws late p99 and CPU against the number of matches, a line per strategy (at
// the first resolution of shared and pool), both axes logarithmic.
func plotByMatches(path string, rows []row) error {
	p99 := newPlot("late p99 against the number of matches", "matches", "late p99 (µs)")
	cpu := newPlot("CPU against the number of matches", "matches", "CPU (% of one core)")
	for _, p := range []*plot.Plot{p99, cpu} {
		p.Y.Scale, p.Y.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.Y.Min = 0
		p.Legend.Left = true
	}
	for _, name := range strategyOrder(rows) {
		var lat, use plotter.XYs
		first := -1.0
		for _, r := range rows {
			if r.Strategy != name {
				continue
			}
			if first < 0 {
				first = r.ResolutionUs
			}
			if r.ResolutionUs != first {
				continue
			}
			lat = append(lat, plotter.XY{X: float64(r.Matches), Y: max(r.LateP99us, 1)})
			use = append(use, plotter.XY{X: float64(r.Matches), Y: max(r.CPUPercent, 0.01)})
		}
		if err := addLine(p99, name, lat); err != nil {
			return err
		}
		if err := addLine(cpu, name, use); err != nil {
			return err
		}
	}
	return save(path, p99, cpu)
}

// plotByResolution draws, for each number of matches, late p99 against CPU: a line through the
// resolutions of shared and of pool, and a point for each other strategy.
func plotByResolution(path string, rows []row) error {
	var ns []int
	for _, r := range rows {
		if !slices.Contains(ns, r.Matches) {
			ns = append(ns, r.Matches)
		}
	}
	var plots []*plot.Plot
	for _, n := range ns {
		p := newPlot(fmt.Sprintf("%d matches: late p99 against CPU, over resolutions", n), "CPU (% of one core)", "late p99 (µs)")
		p.X.Scale, p.X.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LinearScale{}, plot.DefaultTicks{}
		p.X.Min, p.Y.Min = 0, 0
		p.Legend.Top, p.Legend.Left = false, false
		for _, sr := range seriesOrder(rows) {
			name := sr.name
			if name == "loops" {
				continue // off the scale: see the table
			}
			var xys plotter.XYs
			var labels []string
			for _, r := range rows {
				if r.Strategy == name && r.Spin == sr.spin && r.Matches == n {
					xys = append(xys, plotter.XY{X: max(r.CPUPercent, 0.01), Y: max(r.LateP99us, 1)})
					labels = append(labels, fmt.Sprintf("%.0f µs", r.ResolutionUs))
				}
			}
			if len(xys) == 0 {
				continue
			}
			if err := addSeries(p, sr, xys); err != nil {
				return err
			}
			if usesResolution(name) {
				l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
				if err != nil {
					return err
				}
				p.Add(l)
			}
		}
		plots = append(plots, p)
	}
	return save(path, plots...)
}

// series is a line of the plot over resolutions: a strategy, its waiter spinning or not.
type series struct {
	name string
	spin bool
}

// seriesOrder returns the series of the rows in order of first appearance.
func seriesOrder(rows []row) []series {
	var out []series
	for _, r := range rows {
		if s := (series{r.Strategy, r.Spin}); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func strategyOrder(rows []row) []string {
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.Strategy) {
			names = append(names, r.Strategy)
		}
	}
	return names
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// addLine adds a line with points, in the strategy's colour; a single point is drawn alone.
func addLine(p *plot.Plot, name string, xys plotter.XYs) error {
	return addSeries(p, series{name: name}, xys)
}

// addSeries is addLine for a strategy whose waiter may spin: a spinning one is dashed.
func addSeries(p *plot.Plot, s series, xys plotter.XYs) error {
	name := s.name
	if s.spin {
		name += ", spinning"
	}
	if len(xys) == 0 {
		return nil
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	c := colours[s.name]
	line.Color, points.Color = c, c
	line.Width = vg.Points(2)
	if s.spin {
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	}
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(3)
	if len(xys) > 1 {
		p.Add(line)
	}
	p.Add(points)
	p.Legend.Add(name, line, points)
	return nil
}

// save draws the plots one above the other into a PNG file.
func save(path string, plots ...*plot.Plot) error { return plotfile.SavePNG(path, 8*vg.Inch, plots...) }
