package wcrr

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// fileModel mirrors the fields of wcrr_sigma18.json that Load reads.
type fileModel struct {
	Mu   *float64 `json:"mu"`
	L    *float64 `json:"L"`
	Conv *struct {
		Layers []fileLayer `json:"layers"`
	} `json:"conv"`
	Potential *struct {
		ClosedForm *struct {
			H []float64 `json:"h_c"`
			T []float64 `json:"T_c"`
		} `json:"closed_form"`
	} `json:"potential"`
}

type fileLayer struct {
	InChannels  int             `json:"in_channels"`
	OutChannels int             `json:"out_channels"`
	KernelSize  int             `json:"kernel_size"`
	Padding     *int            `json:"padding"`
	Weight      [][][][]float64 `json:"weight"`
}

// Load reads a regularizer in the JSON format of wcrr_sigma18.json (see the
// package documentation for the fields used) and validates it. Errors name
// the file and the offending field.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("wcrr.Load: %w", err)
	}
	m, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("wcrr.Load %s: %w", path, err)
	}
	return m, nil
}

func parse(data []byte) (*Model, error) {
	var f fileModel
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	switch {
	case f.Mu == nil:
		return nil, fmt.Errorf("missing field \"mu\"")
	case f.L == nil:
		return nil, fmt.Errorf("missing field \"L\"")
	case f.Conv == nil:
		return nil, fmt.Errorf("missing field \"conv\"")
	case len(f.Conv.Layers) != 3:
		return nil, fmt.Errorf("conv.layers has %d entries, want 3", len(f.Conv.Layers))
	case f.Potential == nil || f.Potential.ClosedForm == nil:
		return nil, fmt.Errorf("missing field \"potential.closed_form\"")
	}
	m := &Model{Mu: *f.Mu, L: *f.L}
	for l, fl := range f.Conv.Layers {
		layer, err := convertLayer(fl)
		if err != nil {
			return nil, fmt.Errorf("conv.layers[%d]: %w", l, err)
		}
		m.Layers[l] = layer
	}
	m.H = f.Potential.ClosedForm.H
	m.T = f.Potential.ClosedForm.T
	if n := m.Layers[2].Cout; len(m.H) != n || len(m.T) != n {
		return nil, fmt.Errorf("potential.closed_form: len(h_c) = %d, len(T_c) = %d, want %d (conv.layers[2].out_channels)",
			len(m.H), len(m.T), n)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func convertLayer(fl fileLayer) (Layer, error) {
	k := fl.KernelSize
	if fl.InChannels < 1 || fl.OutChannels < 1 {
		return Layer{}, fmt.Errorf("in_channels = %d, out_channels = %d, want positive counts", fl.InChannels, fl.OutChannels)
	}
	if k < 1 || k%2 == 0 {
		return Layer{}, fmt.Errorf("kernel_size = %d, want an odd size", k)
	}
	if fl.Padding == nil || *fl.Padding != k/2 {
		return Layer{}, fmt.Errorf("padding missing or not kernel_size/2 = %d (only 'same' zero padding is supported)", k/2)
	}
	if len(fl.Weight) != fl.OutChannels {
		return Layer{}, fmt.Errorf("weight has %d filters, want out_channels = %d", len(fl.Weight), fl.OutChannels)
	}
	// The counts are those of the file's own arrays from here on, so the
	// capacity below is bounded by what the file holds.
	if len(fl.Weight[0]) != fl.InChannels {
		return Layer{}, fmt.Errorf("weight[0] has %d input channels, want in_channels = %d", len(fl.Weight[0]), fl.InChannels)
	}
	if len(fl.Weight[0][0]) != k {
		return Layer{}, fmt.Errorf("weight[0][0] has %d rows, want kernel_size = %d", len(fl.Weight[0][0]), k)
	}
	layer := Layer{Cin: fl.InChannels, Cout: fl.OutChannels, K: k,
		Weight: make([]float64, 0, fl.OutChannels*fl.InChannels*k*k)}
	for o, wo := range fl.Weight {
		if len(wo) != fl.InChannels {
			return Layer{}, fmt.Errorf("weight[%d] has %d input channels, want in_channels = %d", o, len(wo), fl.InChannels)
		}
		for c, wc := range wo {
			if len(wc) != k {
				return Layer{}, fmt.Errorf("weight[%d][%d] has %d rows, want kernel_size = %d", o, c, len(wc), k)
			}
			for u, row := range wc {
				if len(row) != k {
					return Layer{}, fmt.Errorf("weight[%d][%d][%d] has %d entries, want kernel_size = %d", o, c, u, len(row), k)
				}
				for v, x := range row {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return Layer{}, fmt.Errorf("weight[%d][%d][%d][%d] = %v, want a finite number", o, c, u, v, x)
					}
				}
				layer.Weight = append(layer.Weight, row...)
			}
		}
	}
	return layer, nil
}
