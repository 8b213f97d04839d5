package data

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/greedyl2o/greedyl2o/wcrr"
	"github.com/nlpodyssey/gopickle/pytorch"
	"github.com/nlpodyssey/gopickle/types"
)

const wcrrRepo = "axgoujon/weakly_convex_ridge_regularizer"

// wcrrSources are the pretrained checkpoint and its configuration.
var wcrrSources = []SourceFile{
	{wcrrRepo, pinnedCommits[wcrrRepo], "trained_models/WCRR-CNN/checkpoints/checkpoint_6000.pth",
		"d47dd1aa603d5c2ab55592e53e35c4ea6148dfbc0962aea87c28843afe2c651f"},
	{wcrrRepo, pinnedCommits[wcrrRepo], "trained_models/WCRR-CNN/config.json",
		"93fb2178708286827c9ec531878dfb4f61da79c9fb2a9ef0f145f3583327a58b"},
}

// WCRRSigma is the noise level (0..255 scale) baked into the WCRR export.
const WCRRSigma = 18.0

// wcrrLanczosSize is the image size on which L = λmax(CᵀC) is computed, as
// the repository's power method does (sn_size = 256).
const wcrrLanczosSize = 256

// wcrrConfig holds the fields of config.json that the export reads.
type wcrrConfig struct {
	MultiConv struct {
		NumChannels []int `json:"num_channels"`
		SizeKernels []int `json:"size_kernels"`
	} `json:"multi_convolution"`
	Activation struct {
		NumKnots int     `json:"num_knots"`
		XMin     float64 `json:"x_min"`
		XMax     float64 `json:"x_max"`
	} `json:"spline_activation"`
	Scaling struct {
		NumKnots int     `json:"num_knots"`
		XMin     float64 `json:"x_min"`
		XMax     float64 `json:"x_max"`
	} `json:"spline_scaling"`
	RhoWcvx float64 `json:"rho_wcvx"`
}

func buildWCRR(paths []string) (map[string][]byte, error) {
	b, err := ExportWCRR(paths[0], paths[1])
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"wcrr_sigma18.json": b}, nil
}

// ExportWCRR reads the repository's checkpoint (a PyTorch zip, read with
// gopickle) and config.json and returns the regularizer at σ = 18 in the
// JSON format wcrr.Load reads: the three layers in float64 (the first made
// zero-mean per filter), μ = exp(mu_), s_c = exp(λ_c(18))/(18 + 1e-5), the
// closed-form thresholds h_c = h/s_c and T_c = T/s_c read off the projected
// activation splines (whose slopes must all be 0 or 1), and
// L = λmax(CᵀC) on 256×256 images by Lanczos.
func ExportWCRR(checkpoint, config string) ([]byte, error) {
	return exportWCRR(checkpoint, config, wcrrLanczosSize)
}

// exportWCRR is ExportWCRR with L computed on lanczosSize² images.
func exportWCRR(checkpoint, config string, lanczosSize int) ([]byte, error) {
	raw, err := os.ReadFile(config)
	if err != nil {
		return nil, err
	}
	var cfg wcrrConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", config, err)
	}
	nc, ks := cfg.MultiConv.NumChannels, cfg.MultiConv.SizeKernels
	if len(nc) != 4 || len(ks) != 3 || cfg.RhoWcvx != 1 {
		return nil, fmt.Errorf("%s: want 3 layers (4 channel counts) and rho_wcvx = 1, got %v, %v, %v", config, nc, ks, cfg.RhoWcvx)
	}
	st, err := loadStateDict(checkpoint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", checkpoint, err)
	}
	get := func(key string, shape ...int) ([]float64, error) {
		v, err := st.tensor(key, shape...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", checkpoint, err)
		}
		return v, nil
	}
	m := &wcrr.Model{L: 1}
	layers := make([]map[string]any, 3)
	for l := range 3 {
		key := fmt.Sprintf("conv_layer.conv_layers.%d.weight", l)
		if l == 0 {
			key = "conv_layer.conv_layers.0.parametrizations.weight.original"
		}
		k := ks[l]
		w, err := get(key, nc[l+1], nc[l], k, k)
		if err != nil {
			return nil, err
		}
		if l == 0 {
			zeroMean(w, nc[1])
		}
		m.Layers[l] = wcrr.Layer{Cin: nc[l], Cout: nc[l+1], K: k, Weight: w}
		layers[l] = map[string]any{"in_channels": nc[l], "out_channels": nc[l+1], "kernel_size": k,
			"padding": k / 2, "weight": nest4(w, nc[l+1], nc[l], k)}
	}
	muLog, err := get("mu_")
	if err != nil {
		return nil, err
	}
	an, ac := cfg.Activation, cfg.Scaling
	cvx, err := get("activation_cvx.coefficients", 1, an.NumKnots)
	if err != nil {
		return nil, err
	}
	ccv, err := get("activation_ccv.coefficients", 1, an.NumKnots)
	if err != nil {
		return nil, err
	}
	nch := nc[3]
	scal, err := get("spline_scaling.coefficients", nch, ac.NumKnots)
	if err != nil {
		return nil, err
	}
	step := (an.XMax - an.XMin) / float64(an.NumKnots-1)
	hBase, tBase, err := clipThresholds(cvx, ccv, step)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", checkpoint, err)
	}
	mu := math.Exp(muLog[0])
	lambda, s, hc, tc := make([]float64, nch), make([]float64, nch), make([]float64, nch), make([]float64, nch)
	for c := range nch {
		lambda[c] = linearSpline(scal[c*ac.NumKnots:(c+1)*ac.NumKnots], ac.XMin, ac.XMax, WCRRSigma)
		s[c] = math.Exp(lambda[c]) / (WCRRSigma + 1e-5)
		hc[c], tc[c] = hBase/s[c], tBase/s[c]
	}
	m.Mu, m.H, m.T = mu, hc, tc
	L, _, err := m.NormSquared(lanczosSize, lanczosSize, 300, 1)
	if err != nil {
		return nil, err
	}
	knots := make([]float64, an.NumKnots)
	fcvx, fccv := make([]float64, an.NumKnots), make([]float64, an.NumKnots)
	for k := range knots {
		knots[k] = (an.XMin*float64(an.NumKnots-1-k) + an.XMax*float64(k)) / float64(an.NumKnots-1)
		fcvx[k] = max(-hBase, min(hBase, knots[k]))
		fccv[k] = max(-tBase, min(tBase, knots[k])) - fcvx[k]
	}
	out := map[string]any{
		"format": "wcrr-sigma18-v1",
		"source": map[string]any{
			"repository": "https://github.com/" + wcrrRepo, "commit": pinnedCommits[wcrrRepo],
			"checkpoint": wcrrSources[0].Path, "config": wcrrSources[1].Path,
			"license": "none stated in the repository (no LICENSE file)",
			"paper":   "Goujon, Neumayer, Unser, Learning weakly convex regularizers for convergent image-reconstruction algorithms, SIAM J. Imaging Sci. 17(1), 2024",
			"made_by": "l2o data fetch wcrr (greedyl2o data.ExportWCRR)",
		},
		"sigma": WCRRSigma, "sigma_scale": "0..255 (images are in [0,1]; noise std = sigma/255)", "image_range": "[0,1]",
		"mu": mu, "mu_log_param": muLog[0], "rho_wcvx": cfg.RhoWcvx, "L": L,
		"L_info": map[string]any{"used": fmt.Sprintf("L = lambda_max(C^T C) on a %dx%d image (zero padding), by Lanczos in float64", lanczosSize, lanczosSize)},
		"conv": map[string]any{
			"convention":    "PyTorch conv2d (cross-correlation), stride 1, zero padding k/2, no bias; each layer's output cut back to H x W",
			"weight_layout": "[out][in][kh][kw]", "layers": layers,
			"layer0_note": "layer 0 weights already have the ZeroMean parametrization applied (each output filter sums to 0)"},
		"potential": map[string]any{
			"scaling": map[string]any{"formula": "s_c = exp(lambda_c(sigma)) / (sigma + 1e-5)", "s": s, "lambda_at_sigma": lambda,
				"spline_scaling_coefficients": nest2(scal, nch, ac.NumKnots)},
			"closed_form": map[string]any{"formula": "psi_c'(z) = (mu+1)*clip(z, -h_c, h_c) - clip(z, -T_c, T_c)",
				"h_base": hBase, "T_base": tBase, "h_c": hc, "T_c": tc},
			"base_splines": map[string]any{"knots": knots, "cvx_coefficients": fcvx, "ccv_coefficients": fccv},
		},
	}
	return json.MarshalIndent(out, "", " ")
}

// zeroMean subtracts from each of the n filters in w its mean (PyTorch's
// ZeroMean parametrization of the first layer), in float64.
func zeroMean(w []float64, n int) {
	size := len(w) / n
	for o := range n {
		f := w[o*size : (o+1)*size]
		var sum float64
		for _, v := range f {
			sum += v
		}
		mean := sum / float64(size)
		for i := range f {
			f[i] -= mean
		}
	}
}

// clipThresholds projects the activation splines as the repository does
// (slopes clamped to [0, 1], the outer two set to 0, antisymmetric) and
// returns h and T with f_cvx(t) = clip(t, ±h) and f_ccv(t) = clip(t, ±T) −
// clip(t, ±h). It fails unless every projected slope is exactly 0 or 1 and
// the unit slopes form those centred intervals.
func clipThresholds(cvx, ccv []float64, step float64) (h, T float64, err error) {
	n := len(cvx) - 1 // segments
	unit := func(c []float64) ([]bool, error) {
		u := make([]bool, n)
		for j := 1; j < n-1; j++ {
			sl := max(0, min(1, (c[j+1]-c[j])/step))
			if sl != 0 && sl != 1 {
				return nil, fmt.Errorf("projected activation slope %g between knots %d and %d is neither 0 nor 1: the closed form does not apply", sl, j, j+1)
			}
			u[j] = sl == 1
		}
		return u, nil
	}
	ucvx, err := unit(cvx)
	if err != nil {
		return 0, 0, err
	}
	uccv, err := unit(ccv)
	if err != nil {
		return 0, 0, err
	}
	centred := func(u []bool) (int, bool) {
		m := 0
		for m < n/2 && u[n/2-1-m] && u[n/2+m] {
			m++
		}
		count := 0
		for _, b := range u {
			if b {
				count++
			}
		}
		return m, count == 2*m
	}
	all := make([]bool, n)
	for j := range all {
		if ucvx[j] && uccv[j] {
			return 0, 0, fmt.Errorf("activation splines both rise between knots %d and %d: the closed form does not apply", j, j+1)
		}
		all[j] = ucvx[j] || uccv[j]
	}
	mh, ok1 := centred(ucvx)
	mt, ok2 := centred(all)
	if !ok1 || !ok2 || n%2 != 0 {
		return 0, 0, fmt.Errorf("activation splines are not clip functions centred at 0: the closed form does not apply")
	}
	return float64(mh) * step, float64(mt) * step, nil
}

// linearSpline evaluates the linear spline with coefficients c at
// equispaced knots on [lo, hi] at x (clamped to the range).
func linearSpline(c []float64, lo, hi, x float64) float64 {
	pos := (x - lo) / (hi - lo) * float64(len(c)-1)
	pos = max(0, min(float64(len(c)-1), pos))
	k := min(int(pos), len(c)-2)
	f := pos - float64(k)
	if f == 0 {
		return c[k]
	}
	return c[k]*(1-f) + c[k+1]*f
}

func nest2(v []float64, r, c int) [][]float64 {
	out := make([][]float64, r)
	for i := range out {
		out[i] = v[i*c : (i+1)*c]
	}
	return out
}

func nest4(v []float64, o, i, k int) [][][][]float64 {
	out := make([][][][]float64, o)
	for a := range out {
		out[a] = make([][][]float64, i)
		for b := range out[a] {
			out[a][b] = nest2(v[(a*i+b)*k*k:(a*i+b+1)*k*k], k, k)
		}
	}
	return out
}

// stateDict is a checkpoint's state_dict.
type stateDict map[string]*pytorch.Tensor

func loadStateDict(path string) (stateDict, error) {
	v, err := pytorch.Load(path)
	if err != nil {
		return nil, fmt.Errorf("not a readable PyTorch checkpoint: %w", err)
	}
	top, ok := v.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("top level is %T, want a dict", v)
	}
	sdv, ok := top.Get("state_dict")
	if !ok {
		return nil, fmt.Errorf("no state_dict")
	}
	od, ok := sdv.(*types.OrderedDict)
	if !ok {
		return nil, fmt.Errorf("state_dict is %T, want an OrderedDict", sdv)
	}
	sd := stateDict{}
	for e := od.List.Front(); e != nil; e = e.Next() {
		en := e.Value.(*types.OrderedDictEntry)
		key, _ := en.Key.(string)
		if t, ok := en.Value.(*pytorch.Tensor); ok {
			sd[key] = t
		}
	}
	return sd, nil
}

// tensor returns the float32 tensor key, contiguous and of the given shape,
// converted exactly to float64.
func (sd stateDict) tensor(key string, shape ...int) ([]float64, error) {
	t, ok := sd[key]
	if !ok {
		return nil, fmt.Errorf("state_dict has no %q", key)
	}
	fs, ok := t.Source.(*pytorch.FloatStorage)
	if !ok {
		return nil, fmt.Errorf("%s: storage %T, want float32", key, t.Source)
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if len(t.Size) != len(shape) {
		return nil, fmt.Errorf("%s: shape %v, want %v", key, t.Size, shape)
	}
	stride := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if t.Size[i] != shape[i] || (shape[i] > 1 && t.Stride[i] != stride) {
			return nil, fmt.Errorf("%s: shape %v strides %v, want contiguous %v", key, t.Size, t.Stride, shape)
		}
		stride *= shape[i]
	}
	if t.StorageOffset+n > len(fs.Data) {
		return nil, fmt.Errorf("%s: storage holds %d values, want %d", key, len(fs.Data)-t.StorageOffset, n)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(fs.Data[t.StorageOffset+i])
	}
	return out, nil
}
