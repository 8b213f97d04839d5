package problem

import (
	"fmt"
	"sync"

	"gorgonia.org/tensor"
)

// PaddedRows is an operator whose data [rows, cols] are embedded in a
// taller data shape [Rows, cols], the extra rows zero: the members of a
// family of CT scans with different numbers of angles (Options.Angles) then
// share one data shape, a sparse-view scan's data being the full shape with
// the angles it did not measure left empty. ‖A x − y‖ is that of the member
// (Instantiate leaves the unmeasured rows of y at zero, without noise), and
// Adjoint reads only the measured rows.
type PaddedRows struct {
	Op         Operator
	rows, cols int // the member's own data shape
	Rows       int // the shared data shape's rows
	pool       sync.Pool
}

// NewPaddedRows pads the data of op on h×w images (a [rows, cols] shape) to
// Rows ≥ rows rows.
func NewPaddedRows(op Operator, h, w, rows int) (*PaddedRows, error) {
	ds := op.DataShape(h, w)
	if len(ds) != 2 || ds[0] > rows {
		return nil, fmt.Errorf("padding the data of %s (shape %v) to %d rows: want a [rows, cols] shape with rows ≤ %d", op, ds, rows, rows)
	}
	p := &PaddedRows{Op: op, rows: ds[0], cols: ds[1], Rows: rows}
	p.pool.New = func() any { return new([]float64) }
	return p, nil
}

func (p *PaddedRows) String() string { return fmt.Sprintf("%s padded to %d rows", p.Op, p.Rows) }

// DataShape implements Operator.
func (p *PaddedRows) DataShape(h, w int) []int { return []int{p.Rows, p.cols} }

// OutShape implements graph.LinearMap.
func (p *PaddedRows) OutShape(in tensor.Shape) (tensor.Shape, error) {
	if _, err := p.Op.OutShape(in); err != nil {
		return nil, err
	}
	return tensor.Shape{in[0], p.Rows, p.cols}, nil
}

// sizes returns the batch size n of in and one image's own and padded data
// lengths, checking that data holds n padded data.
func (p *PaddedRows) sizes(in tensor.Shape, data []float64) (n, own, all int, err error) {
	n, own, all = in[0], p.rows*p.cols, p.Rows*p.cols
	if len(data) != n*all {
		return 0, 0, 0, fmt.Errorf("%s: %d data values for %d images (want %d)", p, len(data), n, n*all)
	}
	return n, own, all, nil
}

// scratch returns a buffer of the member's data for n images.
func (p *PaddedRows) scratch(n int) *[]float64 {
	b := p.pool.Get().(*[]float64)
	if m := n * p.rows * p.cols; cap(*b) < m {
		*b = make([]float64, m)
	} else {
		*b = (*b)[:m]
	}
	return b
}

// Apply implements graph.LinearMap: the member's data, then zero rows.
func (p *PaddedRows) Apply(dst, src []float64, in tensor.Shape) error {
	n, own, all, err := p.sizes(in, dst)
	if err != nil {
		return err
	}
	b := p.scratch(n)
	defer p.pool.Put(b)
	if err := p.Op.Apply(*b, src, in); err != nil {
		return err
	}
	for k := range n {
		d := dst[k*all : (k+1)*all]
		copy(d, (*b)[k*own:(k+1)*own])
		clear(d[own:])
	}
	return nil
}

// Adjoint implements graph.LinearMap: the member's adjoint of the measured
// rows.
func (p *PaddedRows) Adjoint(dst, src []float64, in tensor.Shape) error {
	n, own, all, err := p.sizes(in, src)
	if err != nil {
		return err
	}
	b := p.scratch(n)
	defer p.pool.Put(b)
	for k := range n {
		copy((*b)[k*own:(k+1)*own], src[k*all:k*all+own])
	}
	return p.Op.Adjoint(dst, *b, in)
}

// zeroUnmeasured clears the rows of one function's data that the member
// does not measure.
func (p *PaddedRows) zeroUnmeasured(data []float64) { clear(data[p.rows*p.cols:]) }

// unmeasured is an operator some of whose data values are not measured
// (PaddedRows): Instantiate adds no noise there.
type unmeasured interface {
	zeroUnmeasured(data []float64)
}

// clearUnmeasured clears each function's unmeasured data (a PerFunction of
// PaddedRows members), y holding the data of len(p.Ops) functions.
func (p *PerFunction) clearUnmeasured(y []float64) {
	m := len(y) / len(p.Ops)
	for k, op := range p.Ops {
		if u, ok := op.(unmeasured); ok {
			u.zeroUnmeasured(y[k*m : (k+1)*m])
		}
	}
}
