package banert

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/greedyl2o/greedyl2o/mconv"
)

// Constants of the architecture and of the update.
const (
	// Width is the number of channels of the hidden layers.
	Width = 32
	// KernelSize is the size of the square convolution kernels.
	KernelSize = 3
	// NormEps is the ε added to the variance by instance normalisation.
	NormEps = 1e-6
	// LeakySlope is the slope of the leaky ReLU for negative inputs.
	LeakySlope = 0.2
	// SafeguardAlpha is α of the safeguard ‖Δt‖ < α‖∇f(x^t)‖.
	SafeguardAlpha = 0.9
)

// Block is one named parameter array of the network.
type Block struct {
	Name  string
	Shape []int
}

// Len is the number of values of the block.
func (b Block) Len() int {
	n := 1
	for _, d := range b.Shape {
		n *= d
	}
	return n
}

// Layout lists the parameter blocks of a network with the given number of
// input channels, in the order in which they are stored in Network.Theta.
func Layout(inputs int) []Block {
	k := KernelSize
	return []Block{
		{"norm0.scale", []int{inputs}},
		{"norm0.offset", []int{inputs}},
		{"conv1.weight", []int{Width, inputs, k, k}},
		{"conv1.bias", []int{Width}},
		{"norm1.scale", []int{Width}},
		{"norm1.offset", []int{Width}},
		{"conv2.weight", []int{Width, Width, k, k}},
		{"conv2.bias", []int{Width}},
		{"norm2.scale", []int{Width}},
		{"norm2.offset", []int{Width}},
		{"conv3.weight", []int{1, Width, k, k}},
		{"conv3.bias", []int{1}},
	}
}

// NumParams is the number of parameters of a network with the given number
// of input channels.
func NumParams(inputs int) int {
	n := 0
	for _, b := range Layout(inputs) {
		n += b.Len()
	}
	return n
}

// checkInputs reports whether inputs is a supported number of input channels.
func checkInputs(inputs int) error {
	if err := inputsError(inputs); err != nil {
		return fmt.Errorf("banert: %w", err)
	}
	return nil
}

// inputsError is checkInputs' error without the package's prefix (for
// Config's FieldError).
func inputsError(inputs int) error {
	if inputs != 3 && inputs != 4 {
		return fmt.Errorf("%d input channels: use 3 ([x, ∇f, Δ]) or 4 ([x, ∇f_data, ∇f_reg, Δ])", inputs)
	}
	return nil
}

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
func (net *Network) Block(i int) []float64 {
	off := 0
	for j, b := range Layout(net.Inputs) {
		if j == i {
			return net.Theta[off : off+b.Len()]
		}
		off += b.Len()
	}
	return nil
}

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
