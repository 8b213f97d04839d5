//go:build l2ocuda

package cuda

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/gpu/launch"
	"github.com/greedyl2o/greedyl2o/internal/testproblems"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/mconv"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/tomo"
	"github.com/greedyl2o/greedyl2o/wcrr"
)

// opCase is one device operation on fixed random inputs: the launches the
// model of package gpu/launch predicts for it (nil: none checked) and its
// outputs.
type opCase struct {
	name   string
	tol    float64 // the agreement tests' tolerance for it
	model  []launch.Config
	noLaun bool // launches not compared (a composite computation)
	run    func() ([]float64, error)
}

// sums runs add on a new readout of one sum and returns the sum.
func sums(t *testing.T, d *Device, add func(r gpu.Buffer) error) ([]float64, error) {
	r, err := d.AllocReadout(0, 1)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { d.Free(r) })
	v := make([]float64, 1)
	if err := add(r); err != nil {
		return nil, err
	}
	return v, d.ReadOut(nil, v, r)
}

// opCases builds every operation of the CUDA device once, at small sizes
// with every dimension distinct, on inputs from a fixed seed.
func opCases(t *testing.T, d *Device) []opCase {
	t.Helper()
	r := rand.New(rand.NewSource(30))
	const n, h, w, K = 3, 12, 10, 5
	s := gpu.Batch{N: n, H: h, W: w}
	hw := h * w
	x, y := upload(t, d, randVec(r, n*hw)), upload(t, d, randVec(r, n*hw))
	k := upload(t, d, randVec(r, K*K))
	const bigK = 19 // larger than the tiled convolutions take
	kBig := upload(t, d, randVec(r, bigK*bigK))
	field, u2 := upload(t, d, randVec(r, 2*n*hw)), upload(t, d, randVec(r, 2*n*hw))
	out := func(m int) *Buffer { return zeros(t, d, m) }
	get := func(b *Buffer) []float64 { return download(t, d, b) }
	// res returns o's values once the operation (evaluated first, as the
	// argument err) has run.
	res := func(o *Buffer, err error) ([]float64, error) {
		if err != nil {
			return nil, err
		}
		return get(o), nil
	}
	sl := s.SpectrumLen()
	spec, spec2 := upload(t, d, randVec(r, n*sl)), upload(t, d, randVec(r, n*sl))
	tspec := upload(t, d, randVec(r, sl))
	timg := upload(t, d, randVec(r, hw))

	ms := mconv.Shape{N: 2, Cin: 4, Cout: 6, H: 9, W: 7, K: 3}
	conv, err := mconv.NewDeviceConv(d)
	if err != nil {
		t.Fatal(err)
	}
	mIn, mOut := upload(t, d, randVec(r, ms.InputLen())), upload(t, d, randVec(r, ms.OutputLen()))
	mW, mB := upload(t, d, randVec(r, ms.WeightLen())), upload(t, d, randVec(r, ms.Cout))
	mshape := launch.MConvShape{N: int64(ms.N), Cin: int64(ms.Cin), Cout: int64(ms.Cout), H: int64(ms.H), W: int64(ms.W), K: int64(ms.K)}
	// 5×5 kernels take the one-block-a-weight adjoint (3×3 ones a block a pair of channels).
	ms5, mshape5 := ms, mshape
	ms5.K, mshape5.K = 5, 5
	planes, phw := ms.N*ms.Cout, ms.H*ms.W
	coef := func() []float64 { return randVec(r, planes) }
	ca, cb, cc := coef(), coef(), coef()

	const rc = 4 // ridge channels
	ridgeH, ridgeT := make([]float64, rc), make([]float64, rc)
	for c := range ridgeH {
		ridgeH[c], ridgeT[c] = 0.2+0.1*float64(c), 0.9+0.2*float64(c)
	}
	ridgeTotal := 2 * rc * phw
	rz, ru := upload(t, d, randVec(r, ridgeTotal)), upload(t, d, randVec(r, ridgeTotal))
	ridge, err := wcrr.NewDevicePotentials(d, ridgeH, ridgeT, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ridge.Close)

	geom, err := tomo.NewGeometry(16, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	ray, err := tomo.NewDeviceRay(d, geom)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ray.Close)
	const rayB = 2
	rImg, rSino := upload(t, d, randVec(r, rayB*geom.ImageLen())), upload(t, d, randVec(r, rayB*geom.SinoLen()))

	ps := gpu.Batch{N: 3, H: 6, W: 5}
	pm := ps.H * ps.W
	pA, pV, pR := upload(t, d, randVec(r, pm*pm)), upload(t, d, randVec(r, ps.Len())), upload(t, d, randVec(r, ps.Len()))

	// An adjoint for the norm's backward pass, independent of its input (the
	// input itself would cancel to rounding errors).
	mU := upload(t, d, randVec(r, planes*phw))
	nagG, nagRef, nagY := upload(t, d, randVec(r, hw)), upload(t, d, randVec(r, hw)), upload(t, d, randVec(r, hw))
	// AxpyAt's operands positive, so that y + 0.37·x does not cancel (fused or not).
	atY, atX := randVec(r, n*hw), randVec(r, hw)
	for _, v := range [][]float64{atY, atX} {
		for i := range v {
			v[i] = 1 + math.Abs(v[i])
		}
	}
	atXb := upload(t, d, atX)

	N, H, W, HW := int64(n), int64(h), int64(w), int64(hw)
	bnd := kernels.Boundary(1) // reflect
	cases := []opCase{
		{"Conv2D", tolDefault, launch.Conv2D(N, H, W, K), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.Conv2D(o, x, k, s, K, bnd))
		}},
		{"Conv2D", tolDefault, launch.Conv2D(N, H, W, bigK), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.Conv2D(o, x, kBig, s, bigK, kernels.Zero))
		}},
		{"Conv2DAdjointImage", tolDefault, launch.Conv2DAdjointImage(N, H, W, K, int64(bnd)), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.Conv2DAdjointImage(o, y, k, s, K, bnd))
		}},
		{"Conv2DAdjointImage", tolDefault, launch.Conv2DAdjointImage(N, H, W, K, int64(kernels.Zero)), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.Conv2DAdjointImage(o, y, k, s, K, kernels.Zero))
		}},
		{"Conv2DAdjointKernel", tolDefault, launch.Conv2DAdjointKernel(N, H, W, K), false, func() ([]float64, error) {
			o := out(K * K)
			return res(o, d.Conv2DAdjointKernel(o, x, y, s, K, bnd))
		}},
		{"Grad", tolDefault, launch.Grad(N, H, W), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			return res(o, d.Grad(o, x, s))
		}},
		{"GradAdjoint", tolDefault, launch.GradAdjoint(N, H, W), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.GradAdjoint(o, field, s))
		}},
		{"HuberValue", tolDefault, launch.HuberValue(N, HW), false, func() ([]float64, error) {
			v := make([]float64, n)
			return v, d.HuberValue(v, field, s, 0.3)
		}},
		{"HuberDerivative", tolDefault, launch.HuberDerivative(N, HW), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			return res(o, d.HuberDerivative(o, field, s, 0.3))
		}},
		{"HuberHessVec", tolHessian, launch.HuberHessVec(N, HW), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			return res(o, d.HuberHessVec(o, field, u2, s, 0.3))
		}},
		{"RidgePsi", tolDefault, launch.Ridge(int64(ridgeTotal))[:1], false, func() ([]float64, error) {
			o := out(ridgeTotal)
			return res(o, ridge.Psi(o, rz, phw))
		}},
		{"RidgePsiPrime", tolDefault, launch.Ridge(int64(ridgeTotal))[1:2], false, func() ([]float64, error) {
			o := out(ridgeTotal)
			return res(o, ridge.PsiPrime(o, rz, phw))
		}},
		{"RidgeHessVec", tolDefault, launch.Ridge(int64(ridgeTotal))[2:], false, func() ([]float64, error) {
			o := out(ridgeTotal)
			return res(o, ridge.HessVec(o, rz, ru, phw))
		}},
		{"Axpy", tolDefault, launch.Axpy(2 * N * HW), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			if err := d.Copy(o, field); err != nil {
				return nil, err
			}
			return res(o, d.Axpy(o, 0.37, u2))
		}},
		{"NAGUpdate", tolDefault, launch.NAGUpdate(HW), false, func() ([]float64, error) {
			u, y := out(hw), out(hw)
			if err := d.Copy(u, timg); err != nil {
				return nil, err
			}
			if err := d.Copy(y, nagY); err != nil {
				return nil, err
			}
			betas, count := upload(t, d, []float64{0.25, 0.5}), out(1)
			if err := d.NAGUpdate(u, y, nagG, nagRef, betas, count, -0.7, 0.3, 0.45); err != nil {
				return nil, err
			}
			return append(append(get(u), get(y)...), get(count)...), nil
		}},
		{"Axpby", tolDefault, launch.Axpby(2 * N * HW), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			if err := d.Copy(o, field); err != nil {
				return nil, err
			}
			return res(o, d.Axpby(o, 0.37, u2, -1.3))
		}},
		{"AxpyAt", tolDefault, launch.AxpyAt(HW, N*HW), false, func() ([]float64, error) {
			o := upload(t, d, atY)
			return res(o, d.AxpyAt(o, (n-1)*hw, 0.37, atXb))
		}},
		{"Dot", tolDefault, launch.Dot(2 * N * HW), false, func() ([]float64, error) {
			v, err := d.Dot(field, u2)
			return []float64{v}, err
		}},
		{"Sum", tolDefault, launch.Sum(2 * N * HW), false, func() ([]float64, error) {
			v, err := d.Sum(field)
			return []float64{v}, err
		}},
		{"AddDot", tolDefault, launch.AddDot(2 * N * HW), false, func() ([]float64, error) {
			return sums(t, d, func(r gpu.Buffer) error { return d.AddDot(r, 0, 0.5, field, u2) })
		}},
		{"AddSum", tolDefault, launch.AddSum(2 * N * HW), false, func() ([]float64, error) {
			return sums(t, d, func(r gpu.Buffer) error { return d.AddSum(r, 0, -2, field) })
		}},
		{"AddHuberValue", tolDefault, launch.AddHuberValue(N, HW), false, func() ([]float64, error) {
			return sums(t, d, func(r gpu.Buffer) error { return d.AddHuberValue(r, 0, 3, field, s, 0.3) })
		}},
		{"MulAdd", tolDefault, launch.MulAdd(N, HW), false, func() ([]float64, error) {
			o := out(n * hw)
			if err := d.Copy(o, y); err != nil {
				return nil, err
			}
			return res(o, d.MulAdd(o, timg, x, s, 0.8))
		}},
		{"ProductSum", tolDefault, launch.ProductSum(N, HW), false, func() ([]float64, error) {
			o := out(hw)
			return res(o, d.ProductSum(o, x, y, s))
		}},
		{"RFFT2", tolDefault, nil, false, func() ([]float64, error) { // cuFFT only
			o := out(n * sl)
			return res(o, d.RFFT2(o, x, s))
		}},
		{"IRFFT2", tolDefault, launch.IRFFT2(N, H, W), false, func() ([]float64, error) {
			sp, o := out(n*sl), out(n*hw)
			if err := d.RFFT2(sp, y, s); err != nil {
				return nil, err
			}
			return res(o, d.IRFFT2(o, sp, s))
		}},
		{"SpectralMulAdd", tolDefault, launch.SpectralMulAdd(N, H, W), false, func() ([]float64, error) {
			o := out(n * sl)
			if err := d.Copy(o, spec2); err != nil {
				return nil, err
			}
			return res(o, d.SpectralMulAdd(o, tspec, spec, s))
		}},
		{"SpectralConjSum", tolDefault, launch.SpectralConjSum(N, H, W), false, func() ([]float64, error) {
			o := out(sl)
			return res(o, d.SpectralConjSum(o, spec, spec2, s))
		}},
		{"MConv", tolLong, launch.MConv(mshape), false, func() ([]float64, error) {
			o := out(ms.OutputLen())
			return res(o, conv.Forward(o, mIn, mW, mB, ms))
		}},
		{"MConvAdjointInput", tolLong, launch.MConvAdjointInput(mshape), false, func() ([]float64, error) {
			o := out(ms.InputLen())
			return res(o, conv.AdjointInput(o, mOut, mW, ms))
		}},
		{"MConvAdjointWeights", tolLong, launch.MConvAdjointWeights(mshape5, false), false, func() ([]float64, error) {
			gw := out(ms5.WeightLen())
			return res(gw, conv.AdjointWeights(gw, nil, mIn, mOut, ms5))
		}},
		{"MConvAdjointWeights", tolLong, launch.MConvAdjointWeights(mshape, true), false, func() ([]float64, error) {
			gw, gb := out(ms.WeightLen()), out(ms.Cout)
			err := conv.AdjointWeights(gw, gb, mIn, mOut, ms)
			return append(get(gw), get(gb)...), err
		}},
		{"PlaneDots", tolDefault, launch.PlaneDots(int64(planes), int64(phw)), false, func() ([]float64, error) {
			v := make([]float64, planes)
			return v, d.PlaneDots(v, mOut, mOut, phw)
		}},
		{"PlaneCombine", tolDefault, launch.PlaneCombine(int64(planes), int64(phw)), false, func() ([]float64, error) {
			o := out(planes * phw)
			return res(o, d.PlaneCombine(o, ca, mOut, cb, mOut, cc, phw))
		}},
		{"PlaneDotsAdd", tolDefault, launch.PlaneDotsAdd(int64(planes), int64(phw)), false, func() ([]float64, error) {
			o := out(planes)
			return res(o, d.PlaneDotsAdd(o, mOut, mOut, planes, phw))
		}},
		{"PlaneNormalize", tolDefault, launch.PlaneNormalize(int64(planes), int64(phw)), false, func() ([]float64, error) {
			o, sc := out(planes*phw), out(planes)
			err := d.PlaneNormalize(o, sc, mOut, planes, phw, 1e-5)
			return append(get(o), get(sc)...), err
		}},
		{"PlaneNormalizeBackward", tolDefault, append(launch.PlaneNormalize(int64(planes), int64(phw)), launch.PlaneNormalizeBackward(int64(planes), int64(phw))...), false, func() ([]float64, error) {
			o, sc := out(planes*phw), out(planes)
			if err := d.PlaneNormalize(o, sc, mOut, planes, phw, 1e-5); err != nil {
				return nil, err
			}
			u := out(planes * phw)
			if err := d.Copy(u, mU); err != nil {
				return nil, err
			}
			return res(u, d.PlaneNormalizeBackward(u, o, sc, planes, phw))
		}},
		{"PlaneSafeguard", tolDefault, launch.PlaneSafeguard(int64(planes), int64(phw)), false, func() ([]float64, error) {
			o := out(planes * phw)
			return res(o, d.PlaneSafeguard(o, mOut, mOut, planes, phw, 0.7))
		}},
		{"PlaneSafeguardBackward", tolDefault, launch.PlaneSafeguardBackward(int64(planes), int64(phw)), false, func() ([]float64, error) {
			bh, bg := out(planes*phw), out(planes*phw)
			err := d.PlaneSafeguardBackward(bh, bg, mU, mOut, mOut, planes, phw, 0.7)
			return append(get(bh), get(bg)...), err
		}},
		{"LeakyMask", tolDefault, launch.LeakyMask(int64(planes * phw)), false, func() ([]float64, error) {
			o := out(planes * phw)
			return res(o, d.LeakyMask(o, mOut, mOut, 0.2))
		}},
		{"CopyPlanes", tolDefault, launch.CopyPlanes(int64(ms.N), int64(phw), int64(ms.N*ms.Cin)), false, func() ([]float64, error) {
			o := out(ms.InputLen())
			return res(o, d.CopyPlanes(o, 1, ms.Cin, mOut, 0, ms.Cout, ms.N, phw))
		}},
		{"MatMulAdd", tolDefault, launch.MatMulAdd(int64(ps.N), int64(pm)), false, func() ([]float64, error) {
			o := out(ps.Len())
			return res(o, d.MatMulAdd(o, pA, pV, ps, 0.6, true))
		}},
		{"OuterSum", tolDefault, launch.OuterSum(int64(ps.N), int64(pm)), false, func() ([]float64, error) {
			o := out(pm * pm)
			return res(o, d.OuterSum(o, pR, pV, ps))
		}},
		{"RayForward", tolLong, launch.Ray(rayB, int64(geom.N), int64(geom.Angles), int64(geom.Det))[:1], false, func() ([]float64, error) {
			o := out(rayB * geom.SinoLen())
			return res(o, ray.Forward(o, rImg, rayB))
		}},
		{"RayAdjoint", tolLong, launch.Ray(rayB, int64(geom.N), int64(geom.Angles), int64(geom.Det))[1:], false, func() ([]float64, error) {
			o := out(rayB * geom.ImageLen())
			return res(o, ray.Adjoint(o, rSino, rayB))
		}},
		{"Conv2DResidual", tolDefault, launch.Conv2D(N, H, W, K), false, func() ([]float64, error) {
			o := out(n * hw)
			return res(o, d.Conv2DResidual(o, x, k, y, s, K, bnd))
		}},
		{"GradAdjointAxpby", tolDefault, launch.GradAdjoint(N, H, W), false, func() ([]float64, error) {
			o := out(n * hw)
			if err := d.Copy(o, y); err != nil {
				return nil, err
			}
			return res(o, d.GradAdjointAxpby(o, 0.6, field, -0.4, s))
		}},
		{"SetDot", tolDefault, launch.AddDot(2 * N * HW), false, func() ([]float64, error) {
			return sums(t, d, func(r gpu.Buffer) error { return d.SetDot(r, 0, 0.5, field, u2) })
		}},
		{"AddHuberTV", tolDefault, launch.AddHuberTV(N, HW), false, func() ([]float64, error) {
			o := out(2 * n * hw)
			v, err := sums(t, d, func(r gpu.Buffer) error { return d.AddHuberTV(r, 0, 3, o, x, s, 0.3) })
			return append(v, get(o)...), err
		}},
		{"SpectralMulSum", tolDefault, launch.SpectralMulSum(N, H, W), false, func() ([]float64, error) {
			o := out(n * sl)
			return res(o, d.SpectralMulSum(o, s, gpu.SpectralProduct{T: tspec, V: spec, C: -1, Scaled: true}, gpu.SpectralProduct{T: tspec, V: spec2}))
		}},
		{"AddIRFFT2", tolDefault, launch.AddIRFFT2(N, H, W), false, func() ([]float64, error) {
			sp, o, tmp := out(n*sl), out(n*hw), out(n*hw)
			if err := d.RFFT2(sp, y, s); err != nil {
				return nil, err
			}
			return res(o, d.AddIRFFT2(o, x, sp, tmp, s))
		}},
		{"ConjSumIRFFT2", tolDefault, launch.SpectralConjSum(N, H, W), false, func() ([]float64, error) {
			o, sp := out(hw), out(sl)
			return res(o, d.ConjSumIRFFT2(o, spec, spec2, sp, s))
		}},
		{"RayResidual", tolLong, launch.Ray(rayB, int64(geom.N), int64(geom.Angles), int64(geom.Det))[:1], false, func() ([]float64, error) {
			o := out(rayB * geom.SinoLen())
			return res(o, ray.Residual(o, rImg, rSino, 0.7, rayB))
		}},
		{"RayAdjointScaled", tolLong, launch.Ray(rayB, int64(geom.N), int64(geom.Angles), int64(geom.Det))[1:], false, func() ([]float64, error) {
			o := out(rayB * geom.ImageLen())
			return res(o, ray.AdjointScaled(o, rSino, 1.3, rayB))
		}},
		{"objective: deblur 16×16, value, gradient, Hessian-vector product", tolHessian, nil, true, func() ([]float64, error) {
			return objectiveOutputs(t, d, testproblems.Deblur(t, 3, 16, "", -1, 3))
		}},
		{"objective: ct-small 16×16, value, gradient, Hessian-vector product", tolHessian, nil, true, func() ([]float64, error) {
			return objectiveOutputs(t, d, testproblems.CTSmall(t, 2, 16, 3))
		}},
	}
	return cases
}

// runCase runs c and returns its outputs.
func runCase(t *testing.T, c opCase) []float64 {
	t.Helper()
	v, err := c.run()
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return v
}

// objectiveOutputs is the objective's value, gradient and Hessian-vector
// product on the device (package ondevice: the blur or ray transform,
// Huber-TV) at x0 plus a perturbation.
func objectiveOutputs(t *testing.T, d *Device, o *problem.Objective) ([]float64, error) {
	mem := gpu.NewArena(d)
	defer mem.Close()
	ob, err := ondevice.NewObjective(mem, o, o.N)
	if err != nil {
		return nil, err
	}
	if err := ob.SetData(o.Y); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(31))
	x0 := slices.Clone(o.X0)
	for i := range x0 {
		x0[i] += 0.1 * r.NormFloat64()
	}
	x, v := upload(t, d, x0), upload(t, d, randVec(r, len(x0)))
	grad, hv := zeros(t, d, len(x0)), zeros(t, d, len(x0))
	f, err := ob.ValueGrad(x, grad)
	if err != nil {
		return nil, err
	}
	if err := ob.HessVec(hv, x, v); err != nil {
		return nil, err
	}
	return append(append([]float64{f}, download(t, d, grad)...), download(t, d, hv)...), nil
}

// TestLaunchesMatchModel checks that every launch the CUDA device makes is
// the one package gpu/launch's model predicts (kernel, grid, block, dynamic
// shared memory), so that the model the launch-limit tests check at the
// paper's sizes is the code's. Only the CPU emulation records launches
// (L2O_EMU_LAUNCH_LOG); on a GPU the test skips.
func TestLaunchesMatchModel(t *testing.T) {
	d := device(t)
	if !emulated(d) {
		t.Skip("launches are recorded by the CPU emulation (scripts/cuda-emu) only")
	}
	logPath := filepath.Join(t.TempDir(), "launches.txt")
	t.Setenv("L2O_EMU_LAUNCH_LOG", logPath)
	cases := opCases(t, d)
	for _, c := range cases {
		if c.noLaun {
			continue
		}
		if err := os.WriteFile(logPath, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := c.run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		raw, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if line != "" {
				got = append(got, line)
			}
		}
		var want []string
		for _, m := range c.model {
			want = append(want, fmt.Sprintf("%s %d %d %d", m.Kernel, m.Grid, m.Block, m.Shared))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: launched\n\t%s\nthe model (gpu/launch) says\n\t%s", c.name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
	// Every kernel is covered by a case.
	seen := map[string]bool{}
	for _, c := range cases {
		for _, m := range c.model {
			seen[m.Kernel] = true
		}
	}
	tab, err := launch.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		if r.Arch == "sm_52" && !seen[r.Kernel] {
			t.Errorf("kernel %s: no case launches it", r.Kernel)
		}
	}
}

// TestOutputsUnderFPContract runs every operation on fixed inputs and, with
// L2O_EMU_DUMP=FILE, writes the outputs there; with L2O_EMU_DUMP_REF=FILE,
// compares them with the outputs written by another build of the kernels
// (scripts/cuda-emu/run.sh: the kernels' C with -ffp-contract=fast and FMA
// instructions against -ffp-contract=off, as a GPU fuses multiply–adds and
// the CPU does not) and fails beyond the agreement tests' tolerances;
// L2O_EMU_FP_REPORT=FILE receives the differences as a table.
func TestOutputsUnderFPContract(t *testing.T) {
	d := device(t)
	outputs := map[string][]float64{}
	cases := opCases(t, d)
	for _, c := range cases {
		v := runCase(t, c)
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%s: output %v", c.name, x)
			}
		}
		outputs[c.name] = v
	}
	if p := os.Getenv("L2O_EMU_DUMP"); p != "" {
		raw, err := json.Marshal(outputs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refPath := os.Getenv("L2O_EMU_DUMP_REF")
	if refPath == "" {
		return
	}
	raw, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]float64
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	type row struct {
		name      string
		rel, tol  float64
		at, count int
	}
	var rows []row
	for _, c := range cases {
		got, want := outputs[c.name], ref[c.name]
		if len(got) != len(want) {
			t.Errorf("%s: %d outputs, the reference has %d", c.name, len(got), len(want))
			continue
		}
		var diff, scale float64
		at := 0
		for i := range want {
			if dd := math.Abs(got[i] - want[i]); dd > diff {
				diff, at = dd, i
			}
			scale = max(scale, math.Abs(want[i]))
		}
		if scale == 0 {
			scale = 1
		}
		rows = append(rows, row{c.name, diff / scale, c.tol, at, len(want)})
		if diff/scale > c.tol {
			t.Errorf("%s: max difference %.3g relative to max %.3g: %.3g > %g", c.name, diff, scale, diff/scale, c.tol)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].rel > rows[j].rel })
	var b strings.Builder
	b.WriteString("| operation | values | max |Δ| / max |reference| | tolerance |\n| --- | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %s | %g |\n", r.name, r.count, strconv.FormatFloat(r.rel, 'g', 3, 64), r.tol)
	}
	t.Logf("outputs against %s, largest difference first:\n%s", refPath, b.String())
	if p := os.Getenv("L2O_EMU_FP_REPORT"); p != "" {
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
