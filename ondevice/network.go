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

// safeguardOn writes Δ_k = α·h_k·‖g_k‖/√(1 + ‖h_k‖²) for each of the n
// images into delta, on the device.
func safeguardOn(ops gpu.NetOps, delta, h, g gpu.Buffer, n, hw int) error {
	return ops.PlaneSafeguard(delta, h, g, n, hw, arch.SafeguardAlpha)
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
// Jacobian with the parameters' gradient. The convolutions' weights, the
// norms' statistics and the gradients' sums over backward passes live on
// the device (gatherGrads lays the sums out in a readout, which one copy
// brings to the host once an evaluation); the norms' scales and offsets on
// the host.
type banertNet struct {
	ops                    gpu.NetOps
	conv                   mconv.DeviceConv
	inputs, n, hw          int
	s                      [3]mconv.Shape // the three convolutions
	w1, b1, w2, b2, w3, b3 gpu.Buffer     // convolution weights and biases
	gw, gb                 []gpu.Buffer   // their gradients (conv1..3)
	gwSum, gbSum           []gpu.Buffer   // the gradients' sums over backward passes
	dzSum, duSum           [3]gpu.Buffer  // per plane sums of ⟨u, z⟩ and of u of the three norms
	n0, u0                 gpu.Buffer     // normalised input, its affine map
	a1, r1, a2, r2         gpu.Buffer     // normalised conv1/conv2 outputs, leaky ReLU outputs
	d1, d2                 gpu.Buffer     // adjoint scratch (arch.Width channels)
	inv                    [3]gpu.Buffer  // 1/√(σ²+ε) of every plane of the three norms
	gamma, beta            [3][]float64   // scale and offset of the three norms, per channel
	planes                 [3]int         // the three norms' planes
	// On a device with gpu.PlaneCombinerOn, the norms' coefficients per
	// plane on the device: (γ, 0, β) for the forward affine maps, (γ, 0, 0)
	// for their transposes; setParams uploads them.
	on             gpu.PlaneCombinerOn
	affine, scaled [3]gpu.Buffer
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
	net.planes = [3]int{n * inputs, n * s1.Cout, n * s2.Cout}
	net.on, _ = ops.(gpu.PlaneCombinerOn)
	for l, p := range net.planes {
		bufs = append(bufs, sized{&net.inv[l], p}, sized{&net.dzSum[l], p}, sized{&net.duSum[l], p})
		if net.on != nil {
			bufs = append(bufs, sized{&net.affine[l], 3 * p}, sized{&net.scaled[l], 3 * p})
		}
	}
	k := len(net.s)
	net.gw, net.gb, net.gwSum, net.gbSum = make([]gpu.Buffer, k), make([]gpu.Buffer, k), make([]gpu.Buffer, k), make([]gpu.Buffer, k)
	for i, s := range net.s {
		bufs = append(bufs, sized{&net.gw[i], s.WeightLen()}, sized{&net.gb[i], s.Cout},
			sized{&net.gwSum[i], s.WeightLen()}, sized{&net.gbSum[i], s.Cout})
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
	return net.uploadCoefficients()
}

// uploadCoefficients copies the norms' per-plane coefficients to their
// device buffers, on a device with gpu.PlaneCombinerOn.
func (net *banertNet) uploadCoefficients() error {
	if net.on == nil {
		return nil
	}
	for l, p := range net.planes {
		affine, scaled := make([]float64, 3*p), make([]float64, 3*p)
		g, b := net.gamma[l], net.beta[l]
		for q := range p {
			affine[3*q], affine[3*q+2] = g[q%len(g)], b[q%len(b)]
			scaled[3*q] = g[q%len(g)]
		}
		if err := net.ops.CopyIn(net.affine[l], affine); err != nil {
			return fmt.Errorf("ondevice: Banert network: copy norm %d's coefficients to %s: %w", l, net.ops.Name(), err)
		}
		if err := net.ops.CopyIn(net.scaled[l], scaled); err != nil {
			return fmt.Errorf("ondevice: Banert network: copy norm %d's coefficients to %s: %w", l, net.ops.Name(), err)
		}
	}
	return nil
}

// combine writes y = γ·x + β per plane of norm l (offset false: y = γ·x),
// the coefficients from the device where it has them.
func (net *banertNet) combine(y, x gpu.Buffer, l int, offset bool) error {
	if net.on != nil {
		coef := net.scaled[l]
		if offset {
			coef = net.affine[l]
		}
		return net.on.PlaneCombineOn(y, coef, x, nil, net.planes[l], net.hw)
	}
	var c []float64
	if offset {
		c = net.perPlane(net.beta[l])
	}
	return net.ops.PlaneCombine(y, net.perPlane(net.gamma[l]), x, nil, nil, c, net.hw)
}

// perPlane repeats per-channel values over the n images: c channels per image.
func (net *banertNet) perPlane(v []float64) []float64 { return slices.Repeat(v, net.n) }

// normalize writes z = (x − μ)/√(σ² + ε) per plane (z may be x) and keeps
// 1/√(σ² + ε) in inv, on the device.
func (net *banertNet) normalize(z, x gpu.Buffer, planes int, inv gpu.Buffer) error {
	return net.ops.PlaneNormalize(z, inv, x, planes, net.hw, arch.NormEps)
}

// normalizeBackward writes dx = inv·(u − mean(u) − z·mean(u·z)) per plane
// into u, at the normalised output z.
func (net *banertNet) normalizeBackward(u, z gpu.Buffer, planes int, inv gpu.Buffer) error {
	return net.ops.PlaneNormalizeBackward(u, z, inv, planes, net.hw)
}

// affineGrads adds to the device's sums for norm l's scale and offset the
// per-plane sums of ⟨u, z⟩ and of u.
func (net *banertNet) affineGrads(l, channels int, u, z gpu.Buffer) error {
	planes := net.n * channels
	if err := net.ops.PlaneDotsAdd(net.dzSum[l], u, z, planes, net.hw); err != nil {
		return err
	}
	return net.ops.PlaneDotsAdd(net.duSum[l], u, nil, planes, net.hw)
}

// zeroGrads sets the device's gradient sums to zero, before the backward
// passes of one evaluation.
func (net *banertNet) zeroGrads() error {
	for _, b := range net.gradSums() {
		if err := net.ops.Zero(b); err != nil {
			return err
		}
	}
	return nil
}

// gradSums are the device's gradient sums in the order gatherGrads lays
// them out: each convolution's weights and bias, then each norm's per-plane
// sums of ⟨u, z⟩ (its scale's) and of u (its offset's).
func (net *banertNet) gradSums() []gpu.Buffer {
	var bufs []gpu.Buffer
	for i := range net.gwSum {
		bufs = append(bufs, net.gwSum[i], net.gbSum[i])
	}
	for l := range net.dzSum {
		bufs = append(bufs, net.dzSum[l], net.duSum[l])
	}
	return bufs
}

// gradLen is the number of values of the gradient sums.
func (net *banertNet) gradLen() int {
	n := 0
	for _, b := range net.gradSums() {
		n += b.Len()
	}
	return n
}

// gatherGrads copies the gradient sums one after the other into the first
// gradLen values of r, on the device: each as planes of one value
// (NetOps.CopyPlanes), so that one copy brings them all to the host.
func (net *banertNet) gatherGrads(r gpu.Buffer) error {
	off := 0
	for _, b := range net.gradSums() {
		if err := net.ops.CopyPlanes(r, off, 1, b, 0, 1, b.Len(), 1); err != nil {
			return fmt.Errorf("ondevice: Banert network: gather the gradient: %w", err)
		}
		off += b.Len()
	}
	return nil
}

// addGrads adds the gradient sums, as gatherGrads lays them out in vals, to
// grad (in the order of arch.Layout): the convolutions' weights and biases,
// and the norms' scales and offsets summed over images.
func (net *banertNet) addGrads(grad, vals []float64) error {
	if len(vals) != net.gradLen() {
		return fmt.Errorf("ondevice: Banert network: %d gradient values, want %d", len(vals), net.gradLen())
	}
	next := func(n int) []float64 {
		v := vals[:n]
		vals = vals[n:]
		return v
	}
	for i := range net.gwSum {
		for j := range 2 {
			dst := arch.Params(grad, net.inputs, arch.ConvWeight(i)+j)
			for k, x := range next(len(dst)) {
				dst[k] += x
			}
		}
	}
	for l := range net.dzSum {
		channels := arch.Width
		if l == 0 {
			channels = net.inputs
		}
		dz, du := next(net.n*channels), next(net.n*channels)
		gs, gb := arch.Params(grad, net.inputs, arch.NormScale(l)), arch.Params(grad, net.inputs, arch.NormScale(l)+1)
		for p := range dz {
			gs[p%channels] += dz[p]
			gb[p%channels] += du[p]
		}
	}
	return nil
}

// forward writes the network's output h at the stacked input in, keeping
// the activations for backward.
func (net *banertNet) forward(h, in gpu.Buffer) error {
	ops := net.ops
	cin := net.inputs
	if err := net.normalize(net.n0, in, net.n*cin, net.inv[0]); err != nil {
		return err
	}
	if err := net.combine(net.u0, net.n0, 0, true); err != nil {
		return err
	}
	layer := func(l int, out, r, x, w, b gpu.Buffer, s mconv.Shape) error {
		if err := net.conv.Forward(out, x, w, b, s); err != nil {
			return err
		}
		if err := net.normalize(out, out, net.n*s.Cout, net.inv[l]); err != nil {
			return err
		}
		if err := net.combine(r, out, l, true); err != nil {
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
// output adjoint y to the device's sums.
func (net *banertNet) addConvGrads(i int, x, y gpu.Buffer, s mconv.Shape) error {
	if err := net.conv.AdjointWeights(net.gw[i], net.gb[i], x, y, s); err != nil {
		return err
	}
	if err := net.ops.Axpby(net.gwSum[i], 1, net.gw[i], 1); err != nil {
		return err
	}
	return net.ops.Axpby(net.gbSum[i], 1, net.gb[i], 1)
}

// backward writes din, the transposed Jacobian of the last forward pass in
// its input applied to dh, and adds the parameters' gradient to the
// device's sums (gatherGrads lays them out for the host).
func (net *banertNet) backward(din, dh gpu.Buffer) error {
	ops := net.ops
	if err := net.addConvGrads(2, net.r2, dh, net.s[2]); err != nil {
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
		if err := net.affineGrads(l, arch.Width, du, z); err != nil {
			return err
		}
		if err := net.combine(du, du, l, false); err != nil {
			return err
		}
		return net.normalizeBackward(du, z, net.n*arch.Width, net.inv[l])
	}
	if err := layer(2, net.d1, net.r2, net.a2); err != nil {
		return err
	}
	if err := net.addConvGrads(1, net.r1, net.d1, net.s[1]); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(net.d2, net.d1, net.w2, net.s[1]); err != nil {
		return err
	}
	if err := layer(1, net.d2, net.r1, net.a1); err != nil {
		return err
	}
	if err := net.addConvGrads(0, net.u0, net.d2, net.s[0]); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(din, net.d2, net.w1, net.s[0]); err != nil {
		return err
	}
	if err := net.affineGrads(0, net.inputs, din, net.n0); err != nil {
		return err
	}
	if err := net.combine(din, din, 0, false); err != nil {
		return err
	}
	return net.normalizeBackward(din, net.n0, net.n*net.inputs, net.inv[0])
}
