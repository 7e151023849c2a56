package plotfile

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// The file written reads back as a PNG of the width asked for and 4 inches a plot (at vgimg's
// 96 dots per inch).
func TestSavePNGReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.png")
	if err := SavePNG(path, 8*vg.Inch, plot.New(), plot.New()); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("the file does not read back as a PNG: %v", err)
	}
	if cfg.Width != 8*96 || cfg.Height != 2*4*96 {
		t.Errorf("%dx%d pixels, want %dx%d", cfg.Width, cfg.Height, 8*96, 2*4*96)
	}
	if err := SavePNG(filepath.Join(t.TempDir(), "no", "such", "dir.png"), 8*vg.Inch, plot.New()); err == nil {
		t.Error("saving into a directory that does not exist succeeded")
	}
}
