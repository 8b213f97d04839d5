package arch

import "fmt"

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
// input channels, in the order in which they are stored: norm l's scale and
// offset are blocks NormScale(l) and NormScale(l)+1, convolution i's weight
// and bias blocks ConvWeight(i) and ConvWeight(i)+1.
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

// NormScale is the index in Layout of the scale of norm l (0: the input's,
// 1 and 2: after conv1 and conv2); its offset follows it.
func NormScale(l int) int { return 4 * l }

// ConvWeight is the index in Layout of the weight of convolution i (0..2);
// its bias follows it.
func ConvWeight(i int) int { return 2 + 4*i }

// NumParams is the number of parameters of a network with the given number
// of input channels.
func NumParams(inputs int) int {
	n := 0
	for _, b := range Layout(inputs) {
		n += b.Len()
	}
	return n
}

// Params returns block i of Layout(inputs) in theta, the parameters of a
// network with that many inputs: a view into theta, or nil if there is no
// block i or theta is too short.
func Params(theta []float64, inputs, i int) []float64 {
	off := 0
	for j, b := range Layout(inputs) {
		if j == i {
			if off+b.Len() > len(theta) {
				return nil
			}
			return theta[off : off+b.Len()]
		}
		off += b.Len()
	}
	return nil
}

// Conv is the channels of one convolution.
type Conv struct{ In, Out int }

// Convs are the network's three convolutions in order: inputs → Width →
// Width → 1.
func Convs(inputs int) [3]Conv {
	return [3]Conv{{inputs, Width}, {Width, Width}, {Width, 1}}
}

// CheckInputs reports whether inputs is a supported number of input
// channels, with an error that names the choices.
func CheckInputs(inputs int) error {
	if inputs != 3 && inputs != 4 {
		return fmt.Errorf("%d input channels: use 3 ([x, ∇f, Δ]) or 4 ([x, ∇f_data, ∇f_reg, Δ])", inputs)
	}
	return nil
}
