package problem

import (
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/tomo"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

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
	if form.Alpha, form.Eps, ok = o.huberTV(); !ok {
		return DeblurForm{}, false
	}
	return form, true
}

// huberTV returns α and ε of o's regularizer when it is Huber-TV (or none:
// α = 0), and false for any other regularizer.
func (o *Objective) huberTV() (alpha, eps float64, ok bool) {
	if o.Alpha == 0 || o.Reg == nil || o.Reg.Zero() {
		return 0, 0, true
	}
	switch r := o.Reg.(type) {
	case HuberTV:
		return o.Alpha, r.Eps, true
	case *HuberTV:
		return o.Alpha, r.Eps, true
	}
	return 0, 0, false
}

// DeviceForm is an objective in the terms of a device's operations
// (packages gpu and ondevice): image k's function is
//
//	f_k(x) = ½‖A x − y_k‖² + Alpha·S(x),
//
// with A the blur of the embedded DeblurForm when Ray is nil (Problems 1
// and 3), and RayScale times the parallel-beam ray transform of geometry
// *Ray otherwise (Problem 2, CT); S is Huber-TV with parameter Eps
// (Σ_pixels huber_Eps(|Dx|)) when Ridge is nil, and the weakly convex ridge
// regularizer Ridge otherwise (Problem 3); Alpha is 0 without a regularizer.
type DeviceForm struct {
	DeblurForm
	Ray      *tomo.Geometry
	RayScale float64
	Ridge    *wcrr.Model
}

// DataLen is the number of data values of one function: H·W for the blur,
// the sinogram's Angles·Det for the ray transform.
func (f DeviceForm) DataLen(h, w int) int {
	if f.Ray != nil {
		return f.Ray.SinoLen()
	}
	return h * w
}

// DeviceForm returns o as a DeviceForm, or false if o has no device form:
// its operator must be a blur or a ray transform (problems "deblur",
// "deblur-wcrr", "ct" and "ct-small"), possibly scaled, and its regularizer
// Huber-TV, WCRR or none.
func (o *Objective) DeviceForm() (DeviceForm, bool) {
	s := 1.0
	a := o.A
	if sc, ok := a.(*Scaled); ok {
		s, a = sc.Scale, sc.Op
	}
	var form DeviceForm
	switch op := a.(type) {
	case *Blur:
		if len(o.Y) != o.N*o.ImageLen() || op.K*op.K != len(op.Kernel) {
			return DeviceForm{}, false
		}
		form.Kernel, form.K, form.Boundary = make([]float64, len(op.Kernel)), op.K, op.Boundary
		for i, v := range op.Kernel {
			form.Kernel[i] = s * v
		}
	case *RayTransform:
		g := op.P.Geometry()
		if o.H != g.N || o.W != g.N || len(o.Y) != o.N*g.SinoLen() {
			return DeviceForm{}, false
		}
		form.Ray, form.RayScale = &g, s
	default:
		return DeviceForm{}, false
	}
	if alpha, eps, ok := o.huberTV(); ok {
		form.Alpha, form.Eps = alpha, eps
		return form, true
	}
	if r, ok := o.Reg.(*WCRR); ok && r.Model != nil {
		form.Alpha, form.Ridge = o.Alpha, r.Model
		return form, true
	}
	return DeviceForm{}, false
}
