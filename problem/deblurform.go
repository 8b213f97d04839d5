package problem

import "github.com/greedyl2o/greedyl2o/kernels"

// DeblurForm is a deblurring objective written in the terms of a device's
// array operations (package gpu's Ops): image k's function is
//
//	f_k(x) = ½‖(Kernel ⋆ x) − y_k‖² + Alpha·Σ_pixels huber_Eps(|Dx|),
//
// with ⋆ the correlation of kernels.Conv with the K×K kernel under Boundary,
// D the forward differences of kernels.Grad and huber the Huber function of
// kernels.Huber. The operator's scale is folded into Kernel. Alpha is 0 for a
// least-squares objective.
type DeblurForm struct {
	Kernel   []float64 // K×K, row-major, scale included
	K        int
	Boundary kernels.Boundary
	Alpha    float64
	Eps      float64 // the Huber parameter (unused when Alpha is 0)
}

// DeblurForm returns o as a DeblurForm, or false if o is not of that kind:
// its operator must be a blur (problem "deblur", possibly scaled), its
// regularizer Huber-TV or none, and its data of image size.
func (o *Objective) DeblurForm() (DeblurForm, bool) {
	s := 1.0
	a := o.A
	if sc, ok := a.(*Scaled); ok {
		s, a = sc.Scale, sc.Op
	}
	b, ok := a.(*Blur)
	if !ok || len(o.Y) != o.N*o.ImageLen() || b.K*b.K != len(b.Kernel) {
		return DeblurForm{}, false
	}
	form := DeblurForm{Kernel: make([]float64, len(b.Kernel)), K: b.K, Boundary: b.Boundary}
	for i, v := range b.Kernel {
		form.Kernel[i] = s * v
	}
	if o.Alpha == 0 || o.Reg == nil || o.Reg.Zero() {
		return form, true
	}
	switch r := o.Reg.(type) {
	case HuberTV:
		form.Alpha, form.Eps = o.Alpha, r.Eps
	case *HuberTV:
		form.Alpha, form.Eps = o.Alpha, r.Eps
	default:
		return DeblurForm{}, false
	}
	return form, true
}
