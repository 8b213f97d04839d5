package ondevice

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// ridgeReg is the weakly convex ridge regularizer (package wcrr) on a
// device: S(x) = Σ ψ_c((W x)_c), W = C/√L with C three multi-channel
// convolutions (the first layer's weights carry 1/√L), and
//
//	∇S(x) = Wᵀ ψ'(W x),   ∇²S(x) v = Wᵀ(ψ”(W x) ⊙ W v).
type ridgeReg struct {
	ops           gpu.NetOps
	conv          mconv.DeviceConv
	pot           wcrr.DevicePotentials
	w             [3]gpu.Buffer
	s             [3]mconv.Shape
	a1, a2, z, zv gpu.Buffer
	hw, c         int
	mem           *gpu.Arena
}

func newRidgeReg(mem *gpu.Arena, m *wcrr.Model, n, h, w int) (r *ridgeReg, err error) {
	ops := mem.Ops()
	net, ok := ops.(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("ondevice: device %s has no per-plane reductions (gpu.NetOps) for WCRR; use --device cpu", ops.Name())
	}
	conv, err := mconv.NewDeviceConv(ops)
	if err != nil {
		return nil, fmt.Errorf("ondevice: wcrr: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	r = &ridgeReg{ops: net, conv: conv, hw: h * w, c: m.Channels(), mem: mem}
	for l, layer := range m.Layers {
		r.s[l] = mconv.Shape{N: n, Cin: layer.Cin, Cout: layer.Cout, H: h, W: w, K: layer.K}
		if err := r.s[l].Validate(); err != nil {
			return nil, fmt.Errorf("ondevice: wcrr layer %d: %w", l+1, err)
		}
		wts := layer.Weight
		if l == 0 {
			scale := 1 / math.Sqrt(m.L)
			wts = make([]float64, len(layer.Weight))
			for i, v := range layer.Weight {
				wts[i] = scale * v
			}
		}
		if r.w[l], err = r.alloc(len(wts)); err != nil {
			return nil, err
		}
		if err := ops.CopyIn(r.w[l], wts); err != nil {
			return nil, fmt.Errorf("ondevice: copy wcrr layer %d to %s: %w", l+1, ops.Name(), err)
		}
	}
	for _, b := range []struct {
		p *gpu.Buffer
		n int
	}{{&r.a1, r.s[0].OutputLen()}, {&r.a2, r.s[1].OutputLen()}, {&r.z, r.s[2].OutputLen()}, {&r.zv, r.s[2].OutputLen()}} {
		if *b.p, err = r.alloc(b.n); err != nil {
			return nil, err
		}
	}
	if r.pot, err = wcrr.NewDevicePotentials(ops, m.H, m.T, m.Mu); err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	mem.OnClose(r.pot.Close)
	return r, nil
}

func (r *ridgeReg) alloc(n int) (gpu.Buffer, error) {
	b, err := r.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("ondevice: %w", err)
	}
	return b, nil
}

// apply writes z = W x.
func (r *ridgeReg) apply(z, x gpu.Buffer) error {
	if err := r.conv.Forward(r.a1, x, r.w[0], nil, r.s[0]); err != nil {
		return err
	}
	if err := r.conv.Forward(r.a2, r.a1, r.w[1], nil, r.s[1]); err != nil {
		return err
	}
	return r.conv.Forward(z, r.a2, r.w[2], nil, r.s[2])
}

// adjoint writes dst = Wᵀ z.
func (r *ridgeReg) adjoint(dst, z gpu.Buffer) error {
	if err := r.conv.AdjointInput(r.a2, z, r.w[2], r.s[2]); err != nil {
		return err
	}
	if err := r.conv.AdjointInput(r.a1, r.a2, r.w[1], r.s[1]); err != nil {
		return err
	}
	return r.conv.AdjointInput(dst, r.a1, r.w[0], r.s[0])
}

// addValueGrad adds c·Σ_k S(x_k) to sum i of the readout sums (unless it
// is nil) and, if grad is not nil, adds alpha·∇S(x) to grad (tmp is an
// image batch of scratch).
func (r *ridgeReg) addValueGrad(sums gpu.Buffer, i int, c float64, x, grad, tmp gpu.Buffer, alpha float64) error {
	if err := r.apply(r.z, x); err != nil {
		return err
	}
	if sums != nil {
		if err := r.pot.Psi(r.zv, r.z, r.hw); err != nil {
			return err
		}
		if err := r.ops.AddSum(sums, i, c, r.zv); err != nil {
			return err
		}
	}
	if grad == nil {
		return nil
	}
	if err := r.pot.PsiPrime(r.z, r.z, r.hw); err != nil {
		return err
	}
	if err := r.adjoint(tmp, r.z); err != nil {
		return err
	}
	return r.ops.Axpby(grad, alpha, tmp, 1)
}

// values writes S(x_k) of every function k into vals.
func (r *ridgeReg) values(vals []float64, x gpu.Buffer) error {
	if err := r.apply(r.z, x); err != nil {
		return err
	}
	if err := r.pot.Psi(r.zv, r.z, r.hw); err != nil {
		return err
	}
	return r.ops.PlaneDots(vals, r.zv, nil, r.c*r.hw)
}

// grad writes out = ∇S(x).
func (r *ridgeReg) grad(out, x gpu.Buffer) error {
	if err := r.apply(r.z, x); err != nil {
		return err
	}
	if err := r.pot.PsiPrime(r.z, r.z, r.hw); err != nil {
		return err
	}
	return r.adjoint(out, r.z)
}

// hessVec writes out = ∇²S(x) v.
func (r *ridgeReg) hessVec(out, x, v gpu.Buffer) error {
	if err := r.apply(r.z, x); err != nil {
		return err
	}
	if err := r.apply(r.zv, v); err != nil {
		return err
	}
	if err := r.pot.HessVec(r.zv, r.z, r.zv, r.hw); err != nil {
		return err
	}
	return r.adjoint(out, r.zv)
}
