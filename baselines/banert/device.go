package banert

import (
	"fmt"
	"math"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
)

// DeviceLoss is the unrolled training loss f(x^T) of the Banert method and
// its gradient in the network parameters, computed with a device's array
// operations (gpu.NetOps) by a hand-written reverse pass instead of a
// gorgonia graph: the same value and gradient as TrainingGraph.
//
// The forward pass keeps x^t, ∇f(x^t) and Δ_t on the device (3 images per
// iteration and function: memory linear in T, as the graph's, but without
// the network's activations); the reverse pass recomputes the network at
// each iteration and carries the adjoints b of x^{t+1} and c of Δ_t back:
//
//	b_Δ = −b/L + c,   b_g = −b/L + S_gᵀ b_Δ,   b_h = S_hᵀ b_Δ,
//	(b_x', b_g', c') = net(x^t, ∇f(x^t), Δ_{t−1})ᵀ b_h   (and the parameters' gradient),
//	b ← b + b_x' + ∇²f(x^t)(b_g + b_g'),   c ← c',
//
// where S is the safeguard Δ = α·h·‖g‖/√(1+‖h‖²). A DeviceLoss is not safe
// for concurrent use.
type DeviceLoss struct {
	ops    gpu.NetOps
	mem    *gpu.Arena // everything on the device: objective, network, trajectory
	s      gpu.Batch
	o      *problem.Objective
	obj    *ondevice.Objective
	net    *deviceNet
	maxT   int
	inputs int
	xs     []gpu.Buffer // x^t, t = 0..maxT
	gs, ds []gpu.Buffer // ∇f(x^t) and Δ_t, t = 0..maxT−1
	grs    []gpu.Buffer // 4 inputs: the regularizer's part of ∇f(x^t)
	gd     gpu.Buffer   // 4 inputs: the data term's part of ∇f (scratch)
	// adjoints and scratch: b, c, b_Δ, b_g, b_h, h, the stacked input and its adjoint, zero
	bx, carry, bd, bg, bh, h, in, din, zero, tmp gpu.Buffer
	scale                                        []float64
}

// NewDeviceLoss returns the unrolled loss of up to maxT iterations on
// batches of n functions of o's kind (deblurring with Huber-TV or no
// regularizer, as ondevice.NewObjective), for a network with 3 input
// channels, on the device ops. Close frees its buffers.
func NewDeviceLoss(ops gpu.NetOps, o *problem.Objective, maxT, inputs, n int) (d *DeviceLoss, err error) {
	if err := checkInputs(inputs); err != nil {
		return nil, err
	}
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("banert: device loss needs an objective with at least one function")
	}
	if maxT < 1 || n < 1 {
		return nil, fmt.Errorf("banert: device loss with T = %d on %d functions: both must be at least 1", maxT, n)
	}
	if !(o.L > 0) || math.IsInf(o.L, 0) {
		return nil, fmt.Errorf("banert: objective's smoothness constant L = %g is not positive and finite", o.L)
	}
	s := gpu.Batch{N: n, H: o.H, W: o.W}
	loss := &DeviceLoss{ops: ops, mem: gpu.NewArena(ops), s: s, o: o, maxT: maxT, inputs: inputs, scale: make([]float64, n)}
	d = loss
	defer func() {
		if err != nil {
			loss.Close() // d is nil by now
		}
	}()
	if d.obj, err = ondevice.NewObjective(d.mem, o, n); err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	if d.net, err = newDeviceNet(d.mem, inputs, n, o.H, o.W); err != nil {
		return nil, err
	}
	for t := 0; t <= maxT; t++ {
		x, err := d.alloc(s.Len())
		if err != nil {
			return nil, err
		}
		d.xs = append(d.xs, x)
		if t == maxT {
			break
		}
		g, err := d.alloc(s.Len())
		if err != nil {
			return nil, err
		}
		dl, err := d.alloc(s.Len())
		if err != nil {
			return nil, err
		}
		d.gs, d.ds = append(d.gs, g), append(d.ds, dl)
		if inputs == 4 {
			gr, err := d.alloc(s.Len())
			if err != nil {
				return nil, err
			}
			d.grs = append(d.grs, gr)
		}
	}
	if inputs == 4 {
		if d.gd, err = d.alloc(s.Len()); err != nil {
			return nil, err
		}
	}
	for _, b := range []*gpu.Buffer{&d.bx, &d.carry, &d.bd, &d.bg, &d.bh, &d.h, &d.zero, &d.tmp} {
		if *b, err = d.alloc(s.Len()); err != nil {
			return nil, err
		}
	}
	for _, b := range []*gpu.Buffer{&d.in, &d.din} {
		if *b, err = d.alloc(inputs * s.Len()); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// CheckDevice reports, before training starts, whether Banert training with
// a network of the given number of inputs on o can run on the device d: it
// must implement gpu.NetOps, the network must have 3 or 4 inputs and o must
// be deblurring with Huber-TV or no regularizer.
func CheckDevice(d gpu.Ops, o *problem.Objective, inputs int) error {
	if _, ok := d.(gpu.NetOps); !ok {
		return fmt.Errorf("banert: device %s has no network operations (gpu.NetOps); use --device cpu", d.Name())
	}
	if err := checkInputs(inputs); err != nil {
		return err
	}
	if _, ok := o.DeviceForm(); !ok {
		return fmt.Errorf("banert: objective with operator %v and regularizer %v has no device path (deblurring or CT with Huber-TV, WCRR or no regularizer only); use --device cpu", o.A, o.Reg)
	}
	return nil
}

func (d *DeviceLoss) alloc(n int) (gpu.Buffer, error) {
	b, err := d.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	return b, nil
}

// Bytes is what the loss's device buffers hold: the trajectory, the
// objective's and the network's buffers (its arena's meter).
func (d *DeviceLoss) Bytes() int64 { return d.mem.Bytes() }

// Close frees the device buffers.
func (d *DeviceLoss) Close() { d.mem.Close() }

// stack writes the network's input [x^t, ∇f(x^t), Δ_{t−1}] (4 inputs:
// [x^t, ∇f_data, ∇f_reg, Δ_{t−1}]) into d.in.
func (d *DeviceLoss) stack(t int) error {
	prev := d.zero
	if t > 0 {
		prev = d.ds[t-1]
	}
	n, hw := d.s.N, d.s.H*d.s.W
	if d.inputs == 3 {
		return stackInput(d.ops, d.in, n, hw, d.xs[t], d.gs[t], prev)
	}
	if err := dataPart(d.ops, d.gd, d.gs[t], d.grs[t]); err != nil {
		return err
	}
	return stackInput(d.ops, d.in, n, hw, d.xs[t], d.gd, d.grs[t], prev)
}

// dataPart writes gd = g − gr, the data term's part of ∇f.
func dataPart(ops gpu.NetOps, gd, g, gr gpu.Buffer) error {
	if err := ops.Copy(gd, g); err != nil {
		return err
	}
	return ops.Axpby(gd, -1, gr, 1)
}

// norms returns ‖g_k‖ and ‖h_k‖² of every function k of the batch.
func (d *DeviceLoss) norms(h, g gpu.Buffer) (gn, hn []float64, err error) {
	n, hw := d.s.N, d.s.H*d.s.W
	gn, hn = make([]float64, n), make([]float64, n)
	if err := d.ops.PlaneDots(gn, g, g, hw); err != nil {
		return nil, nil, err
	}
	if err := d.ops.PlaneDots(hn, h, h, hw); err != nil {
		return nil, nil, err
	}
	for k := range gn {
		gn[k] = math.Sqrt(gn[k])
	}
	return gn, hn, nil
}

// Eval runs T ≤ maxT iterations from x0 on the functions with data y (one
// batch: n images each) with network parameters theta, returns f(x^T)
// summed over the batch, and writes its gradient in theta into grad.
func (d *DeviceLoss) Eval(T int, theta, x0, y, grad []float64) (float64, error) {
	if T < 1 || T > d.maxT {
		return 0, fmt.Errorf("banert: device loss of %d iterations, built for 1 to %d", T, d.maxT)
	}
	if len(grad) != len(theta) {
		return 0, fmt.Errorf("banert: gradient has %d slots for %d parameters", len(grad), len(theta))
	}
	if len(x0) != d.s.Len() {
		return 0, fmt.Errorf("banert: starting points of %d values, want %d", len(x0), d.s.Len())
	}
	if err := d.net.setParams(theta); err != nil {
		return 0, err
	}
	if err := d.obj.SetData(y); err != nil {
		return 0, err
	}
	ops, s, step := d.ops, d.s, 1/d.o.L
	hw := s.H * s.W
	if err := ops.CopyIn(d.xs[0], x0); err != nil {
		return 0, fmt.Errorf("banert: copy x⁰ to %s: %w", ops.Name(), err)
	}
	// Forward: x^{t+1} = x^t − (∇f(x^t) + Δ_t)/L.
	for t := 0; t < T; t++ {
		if _, err := d.obj.ValueGrad(d.xs[t], d.gs[t]); err != nil {
			return 0, err
		}
		if d.inputs == 4 {
			if err := d.obj.RegGrad(d.grs[t], d.xs[t]); err != nil {
				return 0, err
			}
		}
		if err := d.stack(t); err != nil {
			return 0, err
		}
		if err := d.net.forward(d.h, d.in); err != nil {
			return 0, err
		}
		if err := safeguardOn(ops, d.ds[t], d.h, d.gs[t], s.N, hw, d.scale); err != nil {
			return 0, err
		}
		if err := ops.Copy(d.xs[t+1], d.xs[t]); err != nil {
			return 0, err
		}
		if err := ops.Axpby(d.xs[t+1], -step, d.gs[t], 1); err != nil {
			return 0, err
		}
		if err := ops.Axpby(d.xs[t+1], -step, d.ds[t], 1); err != nil {
			return 0, err
		}
	}
	clear(grad)
	loss, err := d.obj.ValueGrad(d.xs[T], d.bx)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		// Diverged: the loss says so; the gradient is left at zero.
		return loss, nil
	}
	if err := ops.Zero(d.carry); err != nil {
		return 0, err
	}
	for t := T - 1; t >= 0; t-- {
		// b_Δ = −b/L + c, b_g = −b/L.
		if err := ops.Copy(d.bd, d.carry); err != nil {
			return 0, err
		}
		if err := ops.Axpby(d.bd, -step, d.bx, 1); err != nil {
			return 0, err
		}
		if err := ops.Copy(d.bg, d.bx); err != nil {
			return 0, err
		}
		if err := ops.Axpby(d.bg, 0, d.bx, -step); err != nil {
			return 0, err
		}
		if err := d.stack(t); err != nil {
			return 0, err
		}
		if err := d.net.forward(d.h, d.in); err != nil {
			return 0, err
		}
		if err := d.safeguardBackward(d.gs[t]); err != nil {
			return 0, err
		}
		if err := d.net.backward(d.din, d.bh, grad); err != nil {
			return 0, err
		}
		if err := d.unstack(t); err != nil {
			return 0, err
		}
	}
	return loss, nil
}

// unstack adds the adjoint of the network's input at iteration t: its x
// channel to b, its Δ_{t−1} channel into c, and its gradient channels, with
// b_g, through ∇²f(x^t) to b (the 4-input network's two parts through their
// own Hessians).
func (d *DeviceLoss) unstack(t int) error {
	ops, n, hw, C := d.ops, d.s.N, d.s.H*d.s.W, d.inputs
	if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, 0, C, n, hw); err != nil {
		return err
	}
	if err := ops.Axpby(d.bx, 1, d.tmp, 1); err != nil {
		return err
	}
	if err := ops.CopyPlanes(d.carry, 0, 1, d.din, C-1, C, n, hw); err != nil {
		return err
	}
	if C == 3 {
		if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, 1, C, n, hw); err != nil {
			return err
		}
		if err := ops.Axpby(d.bg, 1, d.tmp, 1); err != nil {
			return err
		}
		if err := d.obj.HessVec(d.tmp, d.xs[t], d.bg); err != nil {
			return err
		}
		return ops.Axpby(d.bx, 1, d.tmp, 1)
	}
	for part := 1; part <= 2; part++ {
		// u = b_g + the channel's adjoint; b += H_part(x^t) u.
		if err := ops.CopyPlanes(d.tmp, 0, 1, d.din, part, C, n, hw); err != nil {
			return err
		}
		if err := ops.Axpby(d.tmp, 1, d.bg, 1); err != nil {
			return err
		}
		var err error
		if part == 1 {
			err = d.obj.HessVecData(d.gd, d.tmp)
		} else {
			err = d.obj.HessVecReg(d.gd, d.xs[t], d.tmp)
		}
		if err != nil {
			return err
		}
		if err := ops.Axpby(d.bx, 1, d.gd, 1); err != nil {
			return err
		}
	}
	return nil
}

// safeguardBackward adds S_gᵀ b_Δ to b_g and writes b_h = S_hᵀ b_Δ at
// h = d.h and g:
//
//	S_hᵀu = α‖g‖(u/s − h⟨h,u⟩/s³),  S_gᵀu = α⟨h,u⟩ g/(‖g‖ s),  s = √(1+‖h‖²).
func (d *DeviceLoss) safeguardBackward(g gpu.Buffer) error {
	n, hw := d.s.N, d.s.H*d.s.W
	gn, hn, err := d.norms(d.h, g)
	if err != nil {
		return err
	}
	hu := make([]float64, n)
	if err := d.ops.PlaneDots(hu, d.h, d.bd, hw); err != nil {
		return err
	}
	a, b, cg, ones := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for k := range a {
		sk := math.Sqrt(1 + hn[k])
		a[k] = SafeguardAlpha * gn[k] / sk
		b[k] = -SafeguardAlpha * gn[k] * hu[k] / (sk * sk * sk)
		if gn[k] > 0 {
			cg[k] = SafeguardAlpha * hu[k] / (gn[k] * sk)
		}
		ones[k] = 1
	}
	if err := d.ops.PlaneCombine(d.bh, a, d.bd, b, d.h, nil, hw); err != nil {
		return err
	}
	return d.ops.PlaneCombine(d.bg, ones, d.bg, cg, g, nil, hw)
}

// deviceNet is the network's forward pass on a device, keeping what its
// transposed Jacobian needs, and that transposed Jacobian.
type deviceNet struct {
	ops                    gpu.NetOps
	conv                   mconv.DeviceConv
	inputs, n, hw          int
	s1, s2, s3             mconv.Shape
	w1, b1, w2, b2, w3, b3 gpu.Buffer   // convolution weights and biases
	gw, gb                 []gpu.Buffer // their gradients (conv1..3)
	n0, u0                 gpu.Buffer   // normalised input, its affine map
	a1, r1, a2, r2         gpu.Buffer   // normalised conv1/conv2 outputs, leaky ReLU outputs
	d1, d2                 gpu.Buffer   // adjoint scratch (Width channels)
	inv                    [3][]float64 // 1/√(σ²+ε) of every plane of the three norms
	gamma, beta            [3][]float64 // scale and offset of the three norms, per channel
	theta                  []float64
	mem                    *gpu.Arena // the network's buffers belong to its run's arena
}

func newDeviceNet(mem *gpu.Arena, inputs, n, h, w int) (net *deviceNet, err error) {
	ops, ok := mem.Ops().(gpu.NetOps)
	if !ok {
		return nil, fmt.Errorf("banert: device %s has no network operations (gpu.NetOps)", mem.Ops().Name())
	}
	conv, err := mconv.NewDeviceConv(ops)
	if err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	net = &deviceNet{ops: ops, conv: conv, mem: mem, inputs: inputs, n: n, hw: h * w}
	net.s1 = mconv.Shape{N: n, Cin: inputs, Cout: Width, H: h, W: w, K: KernelSize}
	net.s2 = mconv.Shape{N: n, Cin: Width, Cout: Width, H: h, W: w, K: KernelSize}
	net.s3 = mconv.Shape{N: n, Cin: Width, Cout: 1, H: h, W: w, K: KernelSize}
	for _, s := range []mconv.Shape{net.s1, net.s2, net.s3} {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("banert: %w", err)
		}
	}
	sizes := []struct {
		b *gpu.Buffer
		n int
	}{
		{&net.w1, net.s1.WeightLen()}, {&net.b1, Width}, {&net.w2, net.s2.WeightLen()}, {&net.b2, Width},
		{&net.w3, net.s3.WeightLen()}, {&net.b3, 1},
		{&net.n0, net.s1.InputLen()}, {&net.u0, net.s1.InputLen()},
		{&net.a1, net.s1.OutputLen()}, {&net.r1, net.s1.OutputLen()},
		{&net.a2, net.s2.OutputLen()}, {&net.r2, net.s2.OutputLen()},
		{&net.d1, net.s2.OutputLen()}, {&net.d2, net.s2.OutputLen()},
	}
	for _, sz := range sizes {
		if *sz.b, err = net.alloc(sz.n); err != nil {
			return nil, err
		}
	}
	for _, s := range []mconv.Shape{net.s1, net.s2, net.s3} {
		gw, err := net.alloc(s.WeightLen())
		if err != nil {
			return nil, err
		}
		gb, err := net.alloc(s.Cout)
		if err != nil {
			return nil, err
		}
		net.gw, net.gb = append(net.gw, gw), append(net.gb, gb)
	}
	return net, nil
}

func (net *deviceNet) alloc(n int) (gpu.Buffer, error) {
	b, err := net.mem.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("banert: %w", err)
	}
	return b, nil
}

// setParams copies theta (in the order of Layout) to the device's weights
// and the norms' scales and offsets to the host slices.
func (net *deviceNet) setParams(theta []float64) error {
	if len(theta) != NumParams(net.inputs) {
		return fmt.Errorf("banert: %d parameters, want %d for %d inputs", len(theta), NumParams(net.inputs), net.inputs)
	}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("banert: parameter %d is not finite", i)
		}
	}
	net.theta = theta
	whole := &Network{Inputs: net.inputs, Theta: theta}
	for i, b := range []gpu.Buffer{nil, nil, net.w1, net.b1, nil, nil, net.w2, net.b2, nil, nil, net.w3, net.b3} {
		if b == nil {
			continue
		}
		if err := net.ops.CopyIn(b, whole.Block(i)); err != nil {
			return fmt.Errorf("banert: copy %s to %s: %w", Layout(net.inputs)[i].Name, net.ops.Name(), err)
		}
	}
	for l := 0; l < 3; l++ {
		net.gamma[l], net.beta[l] = whole.Block(4*l), whole.Block(4*l+1)
	}
	return nil
}

// perPlane repeats per-channel values over the n images: c channels per image.
func (net *deviceNet) perPlane(v []float64) []float64 {
	out := make([]float64, net.n*len(v))
	for i := 0; i < net.n; i++ {
		copy(out[i*len(v):], v)
	}
	return out
}

func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// normalize writes z = (x − μ)/√(σ² + ε) per plane (z may be x) and keeps
// 1/√(σ² + ε) in inv.
func (net *deviceNet) normalize(z, x gpu.Buffer, planes int, inv *[]float64) error {
	ops, hw := net.ops, net.hw
	mu := make([]float64, planes)
	if err := ops.PlaneDots(mu, x, nil, hw); err != nil {
		return err
	}
	for p := range mu {
		mu[p] = -mu[p] / float64(hw)
	}
	if err := ops.PlaneCombine(z, constant(planes, 1), x, nil, nil, mu, hw); err != nil {
		return err
	}
	v := make([]float64, planes)
	if err := ops.PlaneDots(v, z, z, hw); err != nil {
		return err
	}
	for p := range v {
		v[p] = 1 / math.Sqrt(v[p]/float64(hw)+NormEps)
	}
	*inv = v
	return ops.PlaneCombine(z, v, z, nil, nil, nil, hw)
}

// normalizeBackward writes dx = inv·(u − mean(u) − z·mean(u·z)) per plane
// into u, at the normalised output z.
func (net *deviceNet) normalizeBackward(u, z gpu.Buffer, inv []float64) error {
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

// affineGrads adds to the gradients of a norm's scale and offset (blocks
// 4l and 4l+1) the sums over images of ⟨u, z⟩ and of u per channel.
func (net *deviceNet) affineGrads(grad []float64, l, channels int, u, z gpu.Buffer) error {
	planes := net.n * channels
	dz, du := make([]float64, planes), make([]float64, planes)
	if err := net.ops.PlaneDots(dz, u, z, net.hw); err != nil {
		return err
	}
	if err := net.ops.PlaneDots(du, u, nil, net.hw); err != nil {
		return err
	}
	whole := &Network{Inputs: net.inputs, Theta: grad}
	gs, gb := whole.Block(4*l), whole.Block(4*l+1)
	for p := range dz {
		gs[p%channels] += dz[p]
		gb[p%channels] += du[p]
	}
	return nil
}

// forward writes the network's output h at the stacked input in, keeping
// the activations for backward.
func (net *deviceNet) forward(h, in gpu.Buffer) error {
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
		if err := net.normalize(out, out, net.n*Width, &net.inv[l]); err != nil {
			return err
		}
		if err := ops.PlaneCombine(r, net.perPlane(net.gamma[l]), out, nil, nil, net.perPlane(net.beta[l]), hw); err != nil {
			return err
		}
		return ops.LeakyMask(r, r, r, LeakySlope)
	}
	if err := layer(1, net.a1, net.r1, net.u0, net.w1, net.b1, net.s1); err != nil {
		return fmt.Errorf("banert: network layer 1 on %s: %w", ops.Name(), err)
	}
	if err := layer(2, net.a2, net.r2, net.r1, net.w2, net.b2, net.s2); err != nil {
		return fmt.Errorf("banert: network layer 2 on %s: %w", ops.Name(), err)
	}
	if err := net.conv.Forward(h, net.r2, net.w3, net.b3, net.s3); err != nil {
		return fmt.Errorf("banert: network output on %s: %w", ops.Name(), err)
	}
	return nil
}

// addConvGrads adds the gradients of convolution i (0..2) at input x and
// output adjoint y to blocks 2+4i and 3+4i of grad.
func (net *deviceNet) addConvGrads(grad []float64, i int, x, y gpu.Buffer, s mconv.Shape) error {
	if err := net.conv.AdjointWeights(net.gw[i], net.gb[i], x, y, s); err != nil {
		return err
	}
	whole := &Network{Inputs: net.inputs, Theta: grad}
	for j, b := range []gpu.Buffer{net.gw[i], net.gb[i]} {
		dst := whole.Block(2 + 4*i + j)
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
func (net *deviceNet) backward(din, dh gpu.Buffer, grad []float64) error {
	ops, hw := net.ops, net.hw
	if err := net.addConvGrads(grad, 2, net.r2, dh, net.s3); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(net.d1, dh, net.w3, net.s3); err != nil {
		return err
	}
	// Back through leaky ReLU, the norm's affine map and the norm of layer
	// l, from du (the leaky ReLU output's adjoint) to the conv output's.
	layer := func(l int, du, r, z gpu.Buffer) error {
		if err := ops.LeakyMask(du, r, du, LeakySlope); err != nil {
			return err
		}
		if err := net.affineGrads(grad, l, Width, du, z); err != nil {
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
	if err := net.addConvGrads(grad, 1, net.r1, net.d1, net.s2); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(net.d2, net.d1, net.w2, net.s2); err != nil {
		return err
	}
	if err := layer(1, net.d2, net.r1, net.a1); err != nil {
		return err
	}
	if err := net.addConvGrads(grad, 0, net.u0, net.d2, net.s1); err != nil {
		return err
	}
	if err := net.conv.AdjointInput(din, net.d2, net.w1, net.s1); err != nil {
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
