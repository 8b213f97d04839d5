// Package refdata serves the tests that check against real data: it
// locates the fetched data sets (the folder named by $L2O_DATA, or else the
// "datasets" folder at the root of the module, where "l2o data fetch" puts
// them when run from there) and makes the WCRR check images.
package refdata

import (
	"os"
	"path/filepath"
)

// Root returns the data folder: $L2O_DATA when set, else
// MODULE_ROOT/datasets, found by walking up from the current directory to
// go.mod; "" when neither exists.
func Root() string {
	if d := os.Getenv("L2O_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "datasets")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// File returns the path of ROOT/parts... and whether it exists.
func File(parts ...string) (string, bool) {
	root := Root()
	if root == "" {
		return "", false
	}
	p := filepath.Join(append([]string{root}, parts...)...)
	_, err := os.Stat(p)
	return p, err == nil
}

// Mirror returns the offline mirror of the upstream files named by
// $L2O_MIRROR (laid out as OWNER/REPO/PATH), or "".
func Mirror() string { return os.Getenv("L2O_MIRROR") }

// SkipReason says how to make data-dependent tests run.
const SkipReason = "run `l2o data fetch stl10 covid-ct wcrr` at the module root (or set L2O_DATA to a fetched folder)"

// WCRRCheckImage returns the 32×32 check image "pattern" or "lcg_noise" of
// the WCRR reference values (wcrr/testdata/wcrr_sigma18_check.json), row-major,
// made by the formula that file states; nil for another name.
func WCRRCheckImage(name string) []float64 {
	const n = 32
	x := make([]float64, 0, n*n)
	switch name {
	case "pattern":
		for i := range n {
			for j := range n {
				r := 0.0
				if 8 <= i && i < 24 && 10 <= j && j < 22 {
					r = 1
				}
				v := 0.15 + 0.5*r
				v = float64(v + float64(0.004*float64(i)))
				v = float64(v + float64(0.003*float64(j)))
				v = float64(v + float64(0.01*float64((3*i+5*j)%7)))
				x = append(x, v)
			}
		}
	case "lcg_noise":
		s := uint64(12345)
		for range n * n {
			s = (1103515245*s + 12345) % (1 << 31)
			u := float64(s) / (1 << 31)
			x = append(x, 0.5+float64(0.1*(u-0.5)))
		}
	default:
		return nil
	}
	return x
}
