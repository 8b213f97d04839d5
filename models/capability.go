package models

// A family declares what the greedy step loss's engine can compute for it
// natively, in its own precision and fused with the objective image by
// image, by implementing one of these; every other family is bound in
// float64 by its Binder, or its graph.

// ScalarMultiple is implemented by a family whose operator is a multiple of
// the identity, G_θ v = θ·v with one parameter (PS): the engine computes it
// as a scalar in its precision.
type ScalarMultiple interface {
	Parametrization
	ScalarMultiple()
}

// CircularConv is implemented by a family whose operator is the
// image-sized circular convolution G_θ v = θ ⊛ v with an H×W kernel, origin
// at pixel (0, 0) (PC): the engine computes it on the operands' spectra.
type CircularConv interface {
	Parametrization
	CircularConv()
}

var (
	_ ScalarMultiple = Scalar{}
	_ CircularConv   = (*FullConv)(nil)
)

// ScalarMultiple implements ScalarMultiple.
func (Scalar) ScalarMultiple() {}

// CircularConv implements CircularConv.
func (*FullConv) CircularConv() {}
