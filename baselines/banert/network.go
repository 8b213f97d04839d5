package banert

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/baselines/banert/arch"
	"github.com/greedyl2o/greedyl2o/mconv"
)

// The architecture's constants (package arch), under the names this
// package's kernels and its users read.
const (
	Width          = arch.Width
	KernelSize     = arch.KernelSize
	NormEps        = arch.NormEps
	LeakySlope     = arch.LeakySlope
	SafeguardAlpha = arch.SafeguardAlpha
)

// Block is one named parameter array of the network (arch.Block).
type Block = arch.Block

// Layout lists the parameter blocks of a network with the given number of
// input channels, in the order in which they are stored in Network.Theta
// (arch.Layout).
func Layout(inputs int) []Block { return arch.Layout(inputs) }

// NumParams is the number of parameters of a network with the given number
// of input channels (arch.NumParams).
func NumParams(inputs int) int { return arch.NumParams(inputs) }

// checkInputs reports whether inputs is a supported number of input channels.
func checkInputs(inputs int) error {
	if err := inputsError(inputs); err != nil {
		return fmt.Errorf("banert: %w", err)
	}
	return nil
}

// inputsError is checkInputs' error without the package's prefix (for
// Config's FieldError).
func inputsError(inputs int) error { return arch.CheckInputs(inputs) }

// Network is the Banert network: its number of input channels and all its
// parameters, flat, in the order of Layout(Inputs).
type Network struct {
	Inputs int
	Theta  []float64
}

// NewNetwork returns a network with He-normal convolution weights
// (standard deviation √(2/fan-in), fan-in = input channels·3·3), zero biases
// and offsets, and unit normalisation scales, drawn from a generator seeded
// with seed.
func NewNetwork(inputs int, seed uint64) (*Network, error) {
	if err := checkInputs(inputs); err != nil {
		return nil, err
	}
	net := &Network{Inputs: inputs, Theta: make([]float64, NumParams(inputs))}
	rng := rand.New(rand.NewPCG(seed, 0xba4e27))
	for i, b := range Layout(inputs) {
		v := net.Block(i)
		switch {
		case len(b.Shape) == 4:
			std := math.Sqrt(2 / float64(b.Shape[1]*b.Shape[2]*b.Shape[3]))
			for j := range v {
				v[j] = std * rng.NormFloat64()
			}
		case b.Name[len(b.Name)-6:] == ".scale":
			for j := range v {
				v[j] = 1
			}
		}
	}
	return net, nil
}

// Block returns the values of parameter block i of Layout(Inputs): a view
// into Theta.
func (net *Network) Block(i int) []float64 { return arch.Params(net.Theta, net.Inputs, i) }

// Validate checks the number of inputs, the number of parameters and that
// every parameter is finite.
func (net *Network) Validate() error {
	if err := checkInputs(net.Inputs); err != nil {
		return err
	}
	if want := NumParams(net.Inputs); len(net.Theta) != want {
		return fmt.Errorf("banert: network has %d parameters, want %d for %d inputs", len(net.Theta), want, net.Inputs)
	}
	for i, v := range net.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("banert: parameter %d is not finite", i)
		}
	}
	return nil
}

// forwardWorkspace holds the activations of one forward pass.
type forwardWorkspace struct {
	in, a, b []float64
}

// Forward evaluates the network on a batch in ([n][Inputs][h·w]) and writes
// its output ([n][h·w]) to out. ws may be nil.
func (net *Network) Forward(out, in []float64, n, h, w int, ws *forwardWorkspace) error {
	if err := net.Validate(); err != nil {
		return err
	}
	hw := h * w
	if n < 1 || h < 1 || w < 1 {
		return fmt.Errorf("banert: forward pass on %d images of %d×%d: sizes must be positive", n, h, w)
	}
	if len(in) != n*net.Inputs*hw || len(out) != n*hw {
		return fmt.Errorf("banert: forward pass on %d images of %d×%d with %d inputs: got %d input and %d output values, want %d and %d",
			n, h, w, net.Inputs, len(in), len(out), n*net.Inputs*hw, n*hw)
	}
	if ws == nil {
		ws = &forwardWorkspace{}
	}
	ws.in = grow(ws.in, n*net.Inputs*hw)
	ws.a = grow(ws.a, n*Width*hw)
	ws.b = grow(ws.b, n*Width*hw)
	p := func(i int) []float64 { return net.Block(i) }
	cin := net.Inputs
	instanceNorm(ws.in, in, n*cin, hw)
	channelAffine(ws.in, ws.in, p(0), p(1), n, cin, hw)
	s := mconv.Shape{N: n, Cin: cin, Cout: Width, H: h, W: w, K: KernelSize}
	if err := mconv.Forward(ws.a, ws.in, p(2), p(3), s); err != nil {
		return fmt.Errorf("banert: conv1: %w", err)
	}
	instanceNorm(ws.a, ws.a, n*Width, hw)
	channelAffine(ws.a, ws.a, p(4), p(5), n, Width, hw)
	leakyReLU(ws.a, ws.a)
	s.Cin = Width
	if err := mconv.Forward(ws.b, ws.a, p(6), p(7), s); err != nil {
		return fmt.Errorf("banert: conv2: %w", err)
	}
	instanceNorm(ws.b, ws.b, n*Width, hw)
	channelAffine(ws.b, ws.b, p(8), p(9), n, Width, hw)
	leakyReLU(ws.b, ws.b)
	s.Cout = 1
	if err := mconv.Forward(out, ws.b, p(10), p(11), s); err != nil {
		return fmt.Errorf("banert: conv3: %w", err)
	}
	return nil
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}
