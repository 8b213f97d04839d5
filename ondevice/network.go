package ondevice

import (
	"fmt"
	"math"
	"slices"

	"github.com/greedyl2o/greedyl2o/baselines/banert/arch"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/problem"
)

// CheckBanert reports, before anything is built, whether Banert's network
// with the given number of inputs can run on the device ops for the
// functions of o: the device must have network operations (per-plane
// reductions and combinations, the leaky ReLU mask, plane copies), the
// network 3 or 4 inputs, o a device form (problem.DeviceForm) and a
// positive, finite L.
func CheckBanert(ops gpu.Ops, o *problem.Objective, inputs int) error {
	if _, ok := ops.(gpu.NetOps); !ok {
		return fmt.Errorf("ondevice: device %s has no network operations for Banert's network; use --device cpu", ops.Name())
	}
	if err := arch.CheckInputs(inputs); err != nil {
		return fmt.Errorf("ondevice: Banert network: %w", err)
	}
	if o == nil || o.N < 1 {
		return fmt.Errorf("ondevice: Banert network: the objective has no functions")
	}
	if err := CheckObjective(o); err != nil {
		return err
	}
	if !(o.L > 0) || math.IsInf(o.L, 0) {
		return fmt.Errorf("ondevice: Banert network: the objective's smoothness constant L = %g is not positive and finite", o.L)
	}
	return nil
}

// stackInput writes the network's input channels ([n][C][hw], C =
// len(channels)) into in.
func stackInput(ops gpu.NetOps, in gpu.Buffer, n, hw int, channels ...gpu.Buffer) error {
	for c, b := range channels {
		if err := ops.CopyPlanes(in, c, len(channels), b, 0, 1, n, hw); err != nil {
			return err
		}
	}
	return nil
}

// dataPart writes gd = g − gr, the data term's part of ∇f.
func dataPart(ops gpu.NetOps, gd, g, gr gpu.Buffer) error {
	if err := ops.Copy(gd, g); err != nil {
		return err
	}
	return ops.Axpby(gd, -1, gr, 1)
}

// safeguardNorms returns ‖g_k‖ and ‖h_k‖² of each of the n images.
func safeguardNorms(ops gpu.NetOps, h, g gpu.Buffer, n, hw int) (gn, hn []float64, err error) {
	gn, hn = make([]float64, n), make([]float64, n)
	if err := ops.PlaneDots(gn, g, g, hw); err != nil {
		return nil, nil, err
	}
	if err := ops.PlaneDots(hn, h, h, hw); err != nil {
		return nil, nil, err
	}
	for k := range gn {
		gn[k] = math.Sqrt(gn[k])
	}
	return gn, hn, nil
}

// safeguardOn writes Δ_k = α·h_k·‖g_k‖/√(1 + ‖h_k‖²) for each of the n
// images into delta, with scale (length n) as scratch.
func safeguardOn(ops gpu.NetOps, delta, h, g gpu.Buffer, n, hw int, scale []float64) error {
	gn, hn, err := safeguardNorms(ops, h, g, n, hw)
	if err != nil {
		return err
	}
	for k := range scale {
		scale[k] = arch.SafeguardAlpha * gn[k] / math.Sqrt(1+hn[k])
	}
	return ops.PlaneCombine(delta, scale, h, nil, nil, nil, hw)
}

// sized is a buffer to allocate and its length.
type sized struct {
	p *gpu.Buffer
	n int
}

// allocAll allocates every buffer on mem; an error names what they are for.
func allocAll(mem *gpu.Arena, what string, bufs ...sized) error {
	for _, b := range bufs {
		var err error
		if *b.p, err = mem.Alloc(b.n); err != nil {
			return fmt.Errorf("ondevice: %s: %w", what, err)
		}
	}
	return nil
}

// banertNet is Banert's network (package arch) on a device: its forward
// pass, keeping what its transposed Jacobian needs, and that transposed
// Jacobian with the parameters' gradient. The convolutions' weights live
// on the device; the norms' scales and offsets, and every gradient, on the
// host.
type banertNet struct {
	ops                    gpu.NetOps
	conv                   mconv.DeviceConv
	inputs, n, hw          int
	s                      [3]mconv.Shape // the three convolutions
	w1, b1, w2, b2, w3, b3 gpu.Buffer     // convolution weights and biases
	gw, gb                 []gpu.Buffer   // their gradients (conv1..3)
	n0, u0                 gpu.Buffer     // normalised input, its affine map
	a1, r1, a2, r2         gpu.Buffer     // normalised conv1/conv2 outputs, leaky ReLU outputs
	d1, d2                 gpu.Buffer     // adjoint scratch (arch.Width channels)
	inv                    [3][]float64   // 1/√(σ²+ε) of every plane of the three norms
	gamma, beta            [3][]float64   // scale and offset of the three norms, per channel
}

// newBanertNet returns the network with the given number of inputs for
// batches of n images of h×w, its buffers allocated on mem (they belong to
// the run that owns mem). Set its parameters with setParams.
func newBanertNet(mem *gpu.Arena, inputs, n, h, w int) (net *banertNet, err error) {
	ops, ok := mem.Ops().(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("ondevice: Banert network: device %s has no network operations (gpu.NetOps)", mem.Ops().Name())
	}
	conv, err := mconv.NewDeviceConv(ops)
	if err != nil {
		return nil, fmt.Errorf("ondevice: Banert network: %w", err)
	}
	net = &banertNet{ops: ops, conv: conv, inputs: inputs, n: n, hw: h * w}
	for i, c := range arch.Convs(inputs) {
		net.s[i] = mconv.Shape{N: n, Cin: c.In, Cout: c.Out, H: h, W: w, K: arch.KernelSize}
		if err := net.s[i].Validate(); err != nil {
			return nil, fmt.Errorf("ondevice: Banert network: %w", err)
		}
	}
	s1, s2, s3 := net.s[0], net.s[1], net.s[2]
	bufs := []sized{
		{&net.w1, s1.WeightLen()}, {&net.b1, s1.Cout}, {&net.w2, s2.WeightLen()}, {&net.b2, s2.Cout},
		{&net.w3, s3.WeightLen()}, {&net.b3, s3.Cout},
		{&net.n0, s1.InputLen()}, {&net.u0, s1.InputLen()},
		{&net.a1, s1.OutputLen()}, {&net.r1, s1.OutputLen()},
		{&net.a2, s2.OutputLen()}, {&net.r2, s2.OutputLen()},
		{&net.d1, s2.OutputLen()}, {&net.d2, s2.OutputLen()},
	}
	net.gw, net.gb = make([]gpu.Buffer, len(net.s)), make([]gpu.Buffer, len(net.s))
	for i, s := range net.s {
		bufs = append(bufs, sized{&net.gw[i], s.WeightLen()}, sized{&net.gb[i], s.Cout})
	}
	if err := allocAll(mem, "Banert network", bufs...); err != nil {
		return nil, err
	}
	return net, nil
}

// setParams copies theta (in the order of arch.Layout) to the device's weights
// and the norms' scales and offsets to the host slices.
func (net *banertNet) setParams(theta []float64) error {
	if len(theta) != arch.NumParams(net.inputs) {
		return fmt.Errorf("ondevice: Banert network: %d parameters, want %d for %d inputs", len(theta), arch.NumParams(net.inputs), net.inputs)
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ondevice: Banert network: parameter %d is not finite", i)
		}
	}
	block := func(i int) []float64 { return arch.Params(theta, net.inputs, i) }
	for i, b := range [][2]gpu.Buffer{{net.w1, net.b1}, {net.w2, net.b2}, {net.w3, net.b3}} {
		for j, buf := range b {
			k := arch.ConvWeight(i) + j
			if err := net.ops.CopyIn(buf, block(k)); err != nil {
				return fmt.Errorf("ondevice: Banert network: copy %s to %s: %w", arch.Layout(net.inputs)[k].Name, net.ops.Name(), err)
			}
		}
	}
	for l := 0; l < 3; l++ {
		net.gamma[l], net.beta[l] = block(arch.NormScale(l)), block(arch.NormScale(l)+1)
	}
	return nil
}

// perPlane repeats per-channel values over the n images: c channels per image.
func (net *banertNet) perPlane(v []float64) []float64 { return slices.Repeat(v, net.n) }

// normalize writes z = (x − μ)/√(σ² + ε) per plane (z may be x) and keeps
// 1/√(σ² + ε) in inv.
func (net *banertNet) normalize(z, x gpu.Buffer, planes int, inv *[]float64) error {
	ops, hw := net.ops, net.hw
	mu := make([]float64, planes)
	if err := ops.PlaneDots(mu, x, nil, hw); err != nil {
		return err
	}
	for p := range mu {
		mu[p] = -mu[p] / float64(hw)
	}
	if err := ops.PlaneCombine(z, slices.Repeat([]float64{1}, planes), x, nil, nil, mu, hw); err != nil {
		return err
	}
	v := make([]float64, planes)
	if err := ops.PlaneDots(v, z, z, hw); err != nil {
		return err
	}
	for p := range v {
		v[p] = 1 / math.Sqrt(v[p]/float64(hw)+arch.NormEps)
	}
	*inv = v
	return ops.PlaneCombine(z, v, z, nil, nil, nil, hw)
}

// normalizeBackward writes dx = inv·(u − mean(u) − z·mean(u·z)) per plane
// into u, at the normalised output z.
func (net *banertNet) normalizeBackward(u, z gpu.Buffer, inv []float64) error {
	ops, hw, planes := net.ops, net.hw, len(inv)
	su, suz := make([]float64, planes), make([]float64, planes)
	if err := ops.PlaneDots(su, u, nil, hw); err != nil {
		return err
	}
	if err := ops.PlaneDots(suz, u, z, hw); err != nil {
		return err
	}
	for p := range su {
		su[p], suz[p] = -inv[p]*su[p]/float64(hw), -inv[p]*suz[p]/float64(hw)
	}
	return ops.PlaneCombine(u, inv, u, suz, z, su, hw)
}

// affineGrads adds to the gradients of norm l's scale and offset (blocks
// arch.NormScale(l) and the next) the sums over images of ⟨u, z⟩ and of u per channel.
func (net *banertNet) affineGrads(grad []float64, l, channels int, u, z gpu.Buffer) error {
	planes := net.n * channels
	dz, du := make([]float64, planes), make([]float64, planes)
	if err := net.ops.PlaneDots(dz, u, z, net.hw); err != nil {
		return err
	}
	if err := net.ops.PlaneDots(du, u, nil, net.hw); err != nil {
		return err
	}
	gs, gb := arch.Params(grad, net.inputs, arch.NormScale(l)), arch.Params(grad, net.inputs, arch.NormScale(l)+1)
	for p := range dz {
		gs[p%channels] += dz[p]
		gb[p%channels] += du[p]
	}
	return nil
}

// forward writes the network's output h at the stacked input in, keeping
// the activations for backward.
func (net *banertNet) forward(h, in gpu.Buffer) error {
	ops, hw := net.ops, net.hw
	cin := net.inputs
	if err := net.normalize(net.n0, in, net.n*cin, &net.inv[0]); err != nil {
		return err
	}
	if err := ops.PlaneCombine(net.u0, net.perPlane(net.gamma[0]), net.n0, nil, nil, net.perPlane(net.beta[0]), hw); err != nil {
		return err
	}
	layer := func(l int, out, r, x, w, b gpu.Buffer, s mconv.Shape) error {
		if err := net.conv.Forward(out, x, w, b, s); err != nil {
			return err
		}
		if err := net.normalize(out, out, net.n*s.Cout, &net.inv[l]); err != nil {
			return err
		}
		if err := ops.PlaneCombine(r, net.perPlane(net.gamma[l]), out, nil, nil, net.perPlane(net.beta[l]), hw); err != nil {
			return err
		}
		return ops.LeakyMask(r, r, r, arch.LeakySlope)
	}
	if err := layer(1, net.a1, net.r1, net.u0, net.w1, net.b1, net.s[0]); err != nil {
		return fmt.Errorf("ondevice: Banert network: network layer 1 on %s: %w", ops.Name(), err)
	}
	if err := layer(2, net.a2, net.r2, net.r1, net.w2, net.b2, net.s[1]); err != nil {
		return fmt.Errorf("ondevice: Banert network: network layer 2 on %s: %w", ops.Name(), err)
	}
	if err := net.conv.Forward(h, net.r2, net.w3, net.b3, net.s[2]); err != nil {
		return fmt.Errorf("ondevice: Banert network: network output on %s: %w", ops.Name(), err)
	}
	return nil
}

// addConvGrads adds the gradients of convolution i (0..2) at input x and
// output adjoint y to blocks arch.ConvWeight(i) and the next of grad.
func (net *banertNet) addConvGrads(grad []float64, i int, x, y gpu.Buffer, s mconv.Shape) error {
	if err := net.conv.AdjointWeights(net.gw[i], net.gb[i], x, y, s); err != nil {
		return err
	}
	for j, b := range []gpu.Buffer{net.gw[i], net.gb[i]} {
		dst := arch.Params(grad, net.inputs, arch.ConvWeight(i)+j)
		v := make([]float64, len(dst))
		if err := net.ops.CopyOut(v, b); err != nil {
			return err
		}
		for k, x := range v {
			dst[k] += x
		}
	}
	return nil
}

// backward writes din, the transposed Jacobian of the last forward pass in
// its input applied to dh, and adds the parameters' gradient to grad.
func (net *banertNet) backward(din, dh gpu.Buffer, grad []float64) error {
	ops, hw := net.ops, net.hw
	if err := net.addConvGrads(grad, 2, net.r2, dh, net.s[2]); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(net.d1, dh, net.w3, net.s[2]); err != nil {
		return err
	}
	// Back through leaky ReLU, the norm's affine map and the norm of layer
	// l, from du (the leaky ReLU output's adjoint) to the conv output's.
	layer := func(l int, du, r, z gpu.Buffer) error {
		if err := ops.LeakyMask(du, r, du, arch.LeakySlope); err != nil {
			return err
		}
		if err := net.affineGrads(grad, l, arch.Width, du, z); err != nil {
			return err
		}
		if err := ops.PlaneCombine(du, net.perPlane(net.gamma[l]), du, nil, nil, nil, hw); err != nil {
			return err
		}
		return net.normalizeBackward(du, z, net.inv[l])
	}
	if err := layer(2, net.d1, net.r2, net.a2); err != nil {
		return err
	}
	if err := net.addConvGrads(grad, 1, net.r1, net.d1, net.s[1]); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(net.d2, net.d1, net.w2, net.s[1]); err != nil {
		return err
	}
	if err := layer(1, net.d2, net.r1, net.a1); err != nil {
		return err
	}
	if err := net.addConvGrads(grad, 0, net.u0, net.d2, net.s[0]); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(din, net.d2, net.w1, net.s[0]); err != nil {
		return err
	}
	if err := net.affineGrads(grad, 0, net.inputs, din, net.n0); err != nil {
		return err
	}
	if err := ops.PlaneCombine(din, net.perPlane(net.gamma[0]), din, nil, nil, nil, hw); err != nil {
		return err
	}
	return net.normalizeBackward(din, net.n0, net.inv[0])
}
