package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/spf13/pflag"
)

// problemFlags are the flags that choose a problem and its data.
type problemFlags struct {
	Problem     string
	Data        string
	Size        int
	NTrain      int
	NTest       int
	Seed        int64
	WCRRWeights string
	Device      string
	// BlurBoundary is the deblurring problems' blur boundary ("" keeps the
	// problem's default, problem.DefaultBlurBoundary).
	BlurBoundary string
	// AlphaFlag is --alpha as written: a weight α, or a range A:B (a
	// family: each function draws its α); parsed by validate into Alpha
	// (0 keeps the problem's) or alphaRange.
	AlphaFlag  string
	Alpha      float64
	alphaRange [2]float64
	// BlurSigma is --blur-sigma as written: a width S, or a range A:B (a
	// family: each function draws its σ); parsed by validate.
	BlurSigma      string
	blurSigma      float64
	blurSigmaRange [2]float64
	// Noise is --noise as written: a level S or a range A:B (each function
	// draws its level); parsed by validate.
	Noise      string
	noise      float64
	noiseRange [2]float64
	// Angles is --angles as written: a number of CT projection angles, or
	// a list (a family: each function draws one); parsed by validate.
	Angles string
	angles []int
	// oneOperator: the command trains one graph for all its functions
	// (train unroll, train banert), so it refuses a family of operators.
	oneOperator bool
	// holdBlock: under mpirun each rank reads the images of, builds and
	// keeps only its block of the training functions and of the last
	// holdVal, the validation functions (rankBlocks): the trainers that
	// divide their work over the ranks.
	holdBlock bool
	holdVal   int
	// holdTest: under mpirun each rank reads the test images of, and
	// builds, only its block of the test functions (worldTestBlock): eval
	// and apply on the held-out functions.
	holdTest bool
	// target is --device and --precision resolved (resolveTarget): the
	// CPU in a precision, or a device. Commands that run on a device set
	// acceptsOps; those with a float32 path on the CPU set acceptsFloat32
	// (addPrecision does).
	target         execution.Target
	resolved       bool
	acceptsOps     bool
	acceptsFloat32 bool
	// precision is --precision as given, for the commands that define it
	// (addPrecision, which keeps their flags in precisionFS); prec is the
	// CPU's precision of target.
	precision   string
	precisionFS *pflag.FlagSet
	prec        problem.Precision
	// nTestGiven is set when --n-test was given (eval --set train).
	nTestGiven bool
	// preset names the flags a --protocol preset set (not the user).
	preset map[string]bool
	// testOnly takes every function of --data as a test candidate (eval and
	// apply on other data than a checkpoint was trained on).
	testOnly bool
}

// add defines the flags on fs with the default numbers of training and test
// functions; a negative default leaves that flag out (a command whose
// functions are not split that way).
func (p *problemFlags) add(fs *pflag.FlagSet, nTrain, nTest int) {
	fs.StringVar(&p.Problem, "problem", "deblur", "problem: "+strings.Join(problem.Names(), ", "))
	fs.StringVar(&p.Data, "data", "synthetic", "data: 'synthetic', a folder with train/ and test/ image folders, a folder of images, or an STL-10 *_X.bin file")
	fs.IntVar(&p.Size, "size", 0, "image size for synthetic data (0: the problem's default)")
	if nTrain >= 0 {
		fs.IntVar(&p.NTrain, "n-train", nTrain, "number of training functions")
	}
	if nTest >= 0 {
		fs.IntVar(&p.NTest, "n-test", nTest, "number of test functions")
	}
	fs.Int64Var(&p.Seed, "seed", 1, "seed for synthetic data and noise")
	fs.StringVar(&p.WCRRWeights, "wcrr-weights", "", "weights of the weakly convex ridge regularizer (JSON), for deblur-wcrr")
	fs.StringVar(&p.BlurBoundary, "blur-boundary", "", "blur boundary of deblur and deblur-wcrr: zero (default: a 'same' convolution with zero padding), circular or reflect; recorded in every checkpoint and curve file")
	fs.StringVar(&p.AlphaFlag, "alpha", "", "regularizer weight α (empty or 0: the problem's own; L follows it), or A:B for a family, each function drawing its α log-uniformly from [A, B] (L: the family's largest)")
	fs.StringVar(&p.Noise, "noise", "", "noise standard deviation: S (0 or empty: the problem's own), or A:B for a family, each function drawing its level uniformly from [A, B]")
	fs.StringVar(&p.BlurSigma, "blur-sigma", "", "Gaussian blur width of deblur: S (default 1.5), or A:B for a family of operators, each function drawing its own σ uniformly from [A, B] (each blur normalised to ‖A‖ = 1)")
	fs.StringVar(&p.Angles, "angles", "", "projection angles of ct and ct-small: K (default 180 and 90), or a list K1,K2,… for a family of operators (sparse view), each function drawing one number of angles (each ray transform normalised to ‖A‖ = 1)")
	fs.StringVar(&p.Device, "device", "cpu", "compute device: cpu (the CPU, in --precision where the command has it); cpu32 (the CPU in float32, as --precision float32: train greedy, train unroll, train banert, bench greedy, eval, apply); host and host32, aliases of cpu and cpu32; cuda in a binary built with -tags l2ocuda (float32 with float64 sums: train greedy, train unroll, train banert, apply, eval)")
}

// maxFunctions caps --n-train and --n-test: a million 96×96 images already
// take 74 GB a copy.
const maxFunctions = 1_000_000

func (p *problemFlags) validate() error {
	if p.NTrain < 0 || p.NTest < 0 {
		return usagef("--n-train and --n-test must be ≥ 0 (got %d and %d)", p.NTrain, p.NTest)
	}
	if p.NTrain > maxFunctions || p.NTest > maxFunctions {
		return usagef("--n-train %d, --n-test %d: at most %d functions each", p.NTrain, p.NTest, maxFunctions)
	}
	if err := p.resolveTarget(); err != nil {
		return err
	}
	if p.target.Device != nil && !p.acceptsOps {
		return usagef("--device %s: only `l2o train greedy`, `l2o train unroll`, `l2o train banert`, `l2o apply` and `l2o eval` (learned iterations on the device, every other method's f and ∇f from it) run on a device in this version (ps, pp, pc-k, pc terms and Banert's network on deblurring); "+
			"this command runs on the CPU: use --device cpu", p.Device)
	}
	if p.WCRRWeights != "" && p.Problem != "deblur-wcrr" {
		return usagef("--wcrr-weights applies to --problem deblur-wcrr only (the weakly convex ridge regularizer); problem %s has its own regularizer: drop --wcrr-weights", p.Problem)
	}
	// Below 8 pixels a side the problems' stencils (a 5×5 blur, k×k
	// kernels) no longer fit the image; --shift size has the same floor.
	if p.Size != 0 && (p.Size < 8 || p.Size > 4096) {
		return usagef("--size %d out of range: use 0 (the problem's default) or a size from 8 to 4096", p.Size)
	}
	if err := p.parseBlurSigma(); err != nil {
		return err
	}
	// What the problem can check before it is built (no operator normed).
	return asUsage(problem.CheckOptions(p.Problem, p.options()))
}

// options are the problem options of the flags (after validate).
func (p *problemFlags) options() problem.Options {
	return problem.Options{H: p.Size, Seed: uint64(p.Seed), WCRRWeights: p.WCRRWeights, BlurBoundary: p.BlurBoundary, Alpha: p.Alpha,
		BlurSigma: p.blurSigma, BlurSigmaRange: p.blurSigmaRange, Noise: p.noise, NoiseRange: p.noiseRange, Angles: p.angles, AlphaRange: p.alphaRange}
}

// checkFamily refuses a family of functions (family) where every function
// must share its operator and α: a command that trains one graph
// (oneOperator), a device, float32 evaluations.
func (p *problemFlags) checkFamily() error {
	if !p.family() {
		return nil
	}
	flag := "--blur-sigma " + p.BlurSigma + ": give one width"
	switch {
	case len(p.angles) > 1:
		flag = "--angles " + p.Angles + ": give one number of angles"
	case p.alphaRange != ([2]float64{}):
		flag = "--alpha " + p.AlphaFlag + ": give one weight"
	}
	switch {
	case p.oneOperator:
		return usagef("%s (a family of functions trains greedy only: unrolled and Banert training build one graph, with one operator and one α, for every mini-batch)", flag)
	case p.target.Device != nil:
		return usagef("%s, or use --device cpu (a family of functions, each with its own operator or α, has no device path)", flag)
	case p.prec == problem.Float32:
		return usagef("%s, or compute in float64 (a family of functions, each with its own operator or α, has no float32 evaluation)", flag)
	}
	return nil
}

// parseBlurSigma reads --blur-sigma and --noise: S or A:B each.
func (p *problemFlags) parseBlurSigma() error {
	var err error
	if p.blurSigma, p.blurSigmaRange, err = parseValueOrRange("--blur-sigma", p.BlurSigma, "a width (1.5) or a range (1:2)"); err != nil {
		return err
	}
	if p.BlurSigma != "" && p.blurSigmaRange == ([2]float64{}) && !(p.blurSigma > 0) {
		return usagef("--blur-sigma %s: give a width > 0, or leave the flag out for the problem's own (1.5)", p.BlurSigma)
	}
	if p.noise, p.noiseRange, err = parseValueOrRange("--noise", p.Noise, "a level (0.01) or a range (0.005:0.02)"); err != nil {
		return err
	}
	if p.Alpha, p.alphaRange, err = parseValueOrRange("--alpha", p.AlphaFlag, "a weight (2e-4) or a range (1e-4:1e-3)"); err != nil {
		return err
	}
	p.angles, err = parseAngles(p.Angles)
	return err
}

// parseAngles reads --angles: K or K1,K2,… ("" is none).
func parseAngles(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, usagef("--angles %q: write a number of projection angles (60) or a list (60,90,180)", s)
		}
		if k < 1 {
			return nil, usagef("--angles %s: a scan has at least 1 projection angle; write a number of angles (60) or a list (60,90,180), or leave the flag out for the problem's own (ct 180, ct-small 90)", s)
		}
		out = append(out, k)
	}
	return out, nil
}

// family reports whether the flags ask for functions that differ in more
// than their data (--blur-sigma A:B, --angles with several values, --alpha
// A:B).
func (p *problemFlags) family() bool {
	return p.blurSigmaRange != ([2]float64{}) || len(p.angles) > 1 || p.alphaRange != ([2]float64{})
}

// parseValueOrRange parses S or A:B ("" is 0 and no range).
func parseValueOrRange(flag, s, what string) (float64, [2]float64, error) {
	if s == "" {
		return 0, [2]float64{}, nil
	}
	lo, hi, isRange := strings.Cut(s, ":")
	a, err := strconv.ParseFloat(lo, 64)
	if err != nil {
		return 0, [2]float64{}, usagef("%s %q: write %s", flag, s, what)
	}
	if !isRange {
		return a, [2]float64{}, nil
	}
	b, err := strconv.ParseFloat(hi, 64)
	if err != nil {
		return 0, [2]float64{}, usagef("%s %q: write %s", flag, s, what)
	}
	return 0, [2]float64{a, b}, nil
}

// precisionHelp is --precision's one help text.
const precisionHelp = "arithmetic of the CPU's evaluations: float64, or float32 (as --device cpu32; assembly kernels on AVX2 CPUs): " +
	"the step losses and training iterates of train greedy and bench greedy (parameters stay float64, recorded in the checkpoint), every method's f and ∇f in eval and apply " +
	"(curves measured in float64). Every parametrization trains in float32 (PS and PC with float32 kernels, the others' float64 terms on float32 operands); problems without a float32 objective (WCRR, non-separable blurs) are refused (exit 2)"

// addPrecision defines --precision on fs (train greedy, bench greedy, eval,
// apply); resolveTarget reads it with --device.
func (p *problemFlags) addPrecision(fs *pflag.FlagSet) {
	fs.StringVar(&p.precision, "precision", "float64", precisionHelp)
	p.precisionFS, p.acceptsFloat32 = fs, true
}

// resolveTarget resolves --device and --precision into the execution
// target, once (execution.Resolve: cpu and host are the CPU in
// --precision, cpu32 and host32 the CPU in float32), and refuses a
// contradiction between them and float32 where the command runs in
// float64, before any data is built (validate then refuses a device where
// the command runs on the CPU).
func (p *problemFlags) resolveTarget() error {
	if p.resolved {
		return nil
	}
	precision := ""
	if p.precisionFS != nil && p.precisionFS.Changed("precision") {
		precision = p.precision
	}
	t, err := execution.Resolve(p.Device, precision)
	if err != nil {
		return usagef("%v", err)
	}
	if t.Prec() == problem.Float32 && !p.acceptsFloat32 {
		return usagef("--device %s (float32 on the CPU) runs train greedy, train unroll, train banert, bench greedy, eval and apply; this command runs in float64: use --device cpu", p.Device)
	}
	p.target, p.prec, p.resolved = t, t.Prec(), true
	return nil
}

// precisionFlag names the flag that chose the CPU's precision: --device
// cpu32 (or host32), or --precision.
func (p *problemFlags) precisionFlag() string {
	if p.Device == "cpu32" || p.Device == gpu.Host32Name {
		return "--device " + p.Device
	}
	return "--precision " + string(p.prec)
}

// checkMethod checks a greedy method's parametrization on the training
// functions o and the target (greedy.Method.Check, the one library check
// of their combinations), naming the flags.
func (p *problemFlags) checkMethod(m greedy.Method, o *problem.Objective) error {
	err := m.Check(o, p.target)
	var fe *greedy.FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe) && fe.Field == "Target.Precision":
		return usagef("%s: %v", p.precisionFlag(), fe.Err)
	case errors.As(err, &fe) && fe.Field == "Target.Device":
		return usagef("--device %s: %v", p.Device, fe.Err)
	case errors.As(err, &fe) && fe.Field == "Method.Param":
		return usagef("--param %s: %v", m.Param.Name(), fe.Err)
	}
	return asUsage(err)
}

// build returns the problem (sized for the data) and the training and test objectives.
// A set with zero functions is returned as nil.
func (p *problemFlags) build() (*problem.Problem, *problem.Objective, *problem.Objective, error) {
	s, err := p.buildSplit(nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return s.prob, s.train, s.test, nil
}

// dataHash identifies the ground truth of an objective.
func dataHash(o *problem.Objective) string {
	if o == nil {
		return ""
	}
	return data.Hash(data.Unstack(o.N, o.H, o.W, o.Truth))
}

// splitValidation returns the objective of the first n−nVal functions and
// that of the last nVal (nil when nVal is 0), for validation during greedy
// training. The caller loads nVal functions more than it trains on.
func splitValidation(o *problem.Objective, nVal int) (train, val *problem.Objective, err error) {
	if nVal == 0 {
		return o, nil, nil
	}
	if o == nil || o.N <= nVal {
		return nil, nil, usagef("--n-val %d needs more images than that in --data", nVal)
	}
	idx := func(lo, hi int) []int {
		out := make([]int, 0, hi-lo)
		for k := lo; k < hi; k++ {
			out = append(out, k)
		}
		return out
	}
	if train, err = o.Subset(idx(0, o.N-nVal)); err != nil {
		return nil, nil, err
	}
	if val, err = o.Subset(idx(o.N-nVal, o.N)); err != nil {
		return nil, nil, err
	}
	return train, val, nil
}

// validationFlags choose validation functions and candidate penalty scales
// for greedy training.
type validationFlags struct {
	NVal      int
	Scales    []float64
	Lookahead int
	StopOn    string
	Patience  int
}

func (v *validationFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&v.NVal, "n-val", 0, "validation functions, loaded after the training functions: they follow the learned steps during training and choose among --weight-scales")
	fs.Float64SliceVar(&v.Scales, "weight-scales", nil, "candidate multipliers of λt and μt, e.g. 10,1,0.1: each step keeps the one with the lowest validation objective (needs --n-val)")
	fs.IntVar(&v.Lookahead, "val-lookahead", 1, "score a candidate step by the validation objective after applying it this many times in a row, as Algorithm 2 repeats the last step")
	fs.StringVar(&v.StopOn, "stop-on", "train", "which functions' tolerance ends training: train (the paper) or validation (the --n-val functions following the learned steps; the training functions' tolerance step is recorded)")
	fs.IntVar(&v.Patience, "val-patience", 0, "with --stop-on validation, also stop when the validation objective has not improved for this many steps (0: off)")
}

func (v *validationFlags) validate() error {
	if v.NVal < 0 {
		return usagef("--n-val must be ≥ 0 (got %d)", v.NVal)
	}
	if v.Lookahead < 1 || v.Lookahead > 1000 {
		return usagef("--val-lookahead must be in [1, 1000] (got %d)", v.Lookahead)
	}
	if v.StopOn != "train" && v.StopOn != "validation" {
		return usagef("--stop-on must be train or validation (got %q)", v.StopOn)
	}
	if v.StopOn == "validation" && v.NVal == 0 {
		return usagef("--stop-on validation needs validation functions: set --n-val")
	}
	if v.Patience < 0 {
		return usagef("--val-patience must be ≥ 0 (got %d)", v.Patience)
	}
	if v.Patience > 0 && v.StopOn != "validation" {
		return usagef("--val-patience %d applies with --stop-on validation only: add it, or drop --val-patience", v.Patience)
	}
	if len(v.Scales) > 1 && v.NVal == 0 {
		return usagef("--weight-scales with several values needs validation functions: set --n-val")
	}
	for i, s := range v.Scales {
		if !(s >= 0) || math.IsInf(s, 0) {
			return usagef("--weight-scales: %g is not a finite value ≥ 0", s)
		}
		if slices.Contains(v.Scales[:i], s) {
			return usagef("--weight-scales gives %g twice: each candidate is trained once a step", s)
		}
	}
	return nil
}

// adoptTrained makes a command that runs trained parameters use the problem
// and conventions they were trained under when the user did not choose them
// (--problem, --blur-boundary), and refuses an explicit choice that differs
// (exit 2). Several parameter sets must agree with each other.
func (p *problemFlags) adoptTrained(fs *pflag.FlagSet, infos []*LearnedInfo, dirs []string) error {
	for i, info := range infos {
		if info.Problem != "" {
			if !fs.Changed("problem") {
				p.Problem = info.Problem
				fs.Set("problem", info.Problem) // later parameter sets must agree
			} else if p.Problem != info.Problem {
				return usagef("--params %s was trained on problem %s, not %s: drop --problem or pass --problem %s", dirs[i], info.Problem, p.Problem, info.Problem)
			}
		}
		if b, ok := info.Conventions[problem.ConventionBlurBoundary]; ok {
			if !fs.Changed("blur-boundary") {
				p.BlurBoundary = b
				fs.Set("blur-boundary", b)
			} else if p.BlurBoundary != b {
				return usagef("--params %s was trained with --blur-boundary %s, not %s: a learned optimizer does not transfer between boundary conventions (docs/reproduction.md); drop --blur-boundary or pass --blur-boundary %s",
					dirs[i], b, p.BlurBoundary, b)
			}
		}
	}
	return nil
}

// trainedFunctionFlags are the problem flags that, besides --problem, the
// conventions and the data, define the functions a checkpoint was trained
// on.
var trainedFunctionFlags = []string{"alpha", "noise", "blur-sigma", "angles", "wcrr-weights"}

// adoptFunctions makes eval and apply run on functions like the training
// functions of the checkpoints: each flag of trainedFunctionFlags that the
// command line does not give takes the value the first checkpoint's
// training took (its recorded command line; the default where it gave
// none), said in a note. A value given here or taken from an earlier
// checkpoint that differs from a checkpoint's, and a family a checkpoint
// was trained on (A:B, K1,K2,…: this run keeps the problem's own value, a
// point of many families, as the --shift experiments expect), are run as
// they are, with a note. Checkpoints without a recorded command line are
// passed over.
func (p *problemFlags) adoptFunctions(env *Env, fs *pflag.FlagSet, infos []*LearnedInfo, dirs []string) error {
	from, given := map[string]string{}, map[string]bool{}
	for _, name := range trainedFunctionFlags {
		given[name] = p.userGave(fs, name)
	}
	for i, info := range infos {
		if info.Provenance == nil || len(info.Provenance.Args) == 0 {
			continue
		}
		took := map[string]string{}
		for _, g := range groupFlags(fs, info.Provenance.Args) {
			took[g.name] = g.value
		}
		for _, name := range trainedFunctionFlags {
			f := fs.Lookup(name)
			if f == nil {
				continue
			}
			want, ok := took[name]
			if !ok {
				want = f.DefValue
			}
			cur := f.Value.String()
			if name == "noise" && !ok && info.TrainNoise != "" {
				// A level the training set without the flag (the demo's):
				// compare numbers, the problem's own level standing for "".
				want = info.TrainNoise
				if cur == "" {
					cur = p.ownNoise()
				}
			}
			switch {
			case sameFlagValue(cur, want):
				from[name] = cmp.Or(from[name], dirs[i])
			case given[name]:
				fmt.Fprintf(env.Stderr, "note: %s was trained with %s; this run uses --%s %s: functions unlike its training functions\n", dirs[i], flagSetting(name, want), name, cur)
			case from[name] != "":
				fmt.Fprintf(env.Stderr, "note: %s was trained with %s, unlike %s (%s), whose setting this run uses\n", dirs[i], flagSetting(name, want), from[name], flagSetting(name, cur))
			case strings.ContainsAny(want, ":,"):
				// A family (A:B, K1,K2,…): its functions include this run's.
				fmt.Fprintf(env.Stderr, "note: %s was trained on the family %s; this run uses %s (give --%s to choose)\n", dirs[i], flagSetting(name, want), flagSetting(name, cur), name)
			default:
				if err := fs.Set(name, want); err != nil {
					return usagef("--params %s: its training's --%s %s: %v", dirs[i], name, want, err)
				}
				fmt.Fprintf(env.Stderr, "note: %s, as %s was trained (give --%s to choose)\n", flagSetting(name, want), dirs[i], name)
				from[name] = dirs[i]
			}
		}
	}
	return nil
}

// ownNoise is the noise level of the problem's functions when --noise is
// not given ("" if the problem cannot be looked up here).
func (p *problemFlags) ownNoise() string {
	prob, err := problem.Lookup(p.Problem, problem.Options{H: 8, WCRRWeights: p.WCRRWeights})
	if err != nil {
		return ""
	}
	return strconv.FormatFloat(prob.Noise, 'g', -1, 64)
}

// userGave reports whether the command line gave the flag (a --protocol
// preset's value is not the user's).
func (p *problemFlags) userGave(fs *pflag.FlagSet, name string) bool {
	return fs.Lookup(name) != nil && fs.Changed(name) && !p.preset[name]
}

// setPreset records the flags a --protocol preset set ("flag=value" items).
func (p *problemFlags) setPreset(items []string) {
	p.preset = map[string]bool{}
	for _, it := range items {
		name, _, _ := strings.Cut(it, "=")
		p.preset[name] = true
	}
}

// flagSetting names a flag's value as a command line gives it, or its
// default.
func flagSetting(name, value string) string {
	if value == "" {
		return "--" + name + "'s default"
	}
	return "--" + name + " " + value
}

// checkTrained refuses trained parameters whose problem or conventions
// differ from those of the functions they are to run on (exit 2).
func checkTrained(infos []*LearnedInfo, dirs []string, o *problem.Objective) error {
	for i, info := range infos {
		if err := problem.CheckTrainedFor(info.Problem, info.Conventions, o); err != nil {
			return usagef("--params %s: %v", dirs[i], err)
		}
	}
	return nil
}
