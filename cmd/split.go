package cmd

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/spf13/pflag"
)

// split is a problem and the training and test functions a command runs on,
// with the images they came from.
type split struct {
	prob        *problem.Problem
	train, test *problem.Objective // nil for a set of zero functions
	sel         *data.Selection
	noiseSeed   uint64
	// fewer says why the set holds fewer functions than --n-test asked
	// for ("" if it does not).
	fewer string
	// held, when this rank holds only a block of the training functions
	// (problemFlags.holdBlock): train holds them, held.val its block of
	// the validation functions.
	held *heldBlock
	// part, when this rank holds only its block of the test functions
	// (problemFlags.holdTest), is the record its curves carry; train is
	// nil then.
	part *eval.Part
}

// invocation is this run's provenance: the command line, l2o's version and
// VCS revision, the time and the machine.
func (env *Env) invocation() provenance.Invocation {
	inv := provenance.Here(env.Args)
	inv.Build.Version = Version
	return inv
}

// selectImages splits the --data source into training and test images. The
// test images never equal a training image or one of exclude (SHA-256s).
// With read, only the training images i with read(i) are read (and no test
// image): the others are nil, their refs their names alone. With blocks,
// only the test images of blocks.Read (data.Blocks).
func (p *problemFlags) selectImages(prob *problem.Problem, exclude map[string]bool, read func(int) bool, blocks *data.Blocks) (*data.Selection, error) {
	if p.Data != "" && p.Data != "synthetic" {
		sel, err := data.Select(p.Data, data.Request{NTrain: p.NTrain, NTest: max(p.NTest, 0), H: prob.H, W: prob.W, Seed: p.Seed, Exclude: exclude, TestOnly: p.testOnly, Read: read, Blocks: blocks})
		if err != nil {
			return nil, asUsage(fmt.Errorf("--data %s: %w", p.Data, err))
		}
		if p.NTest == 0 {
			sel.Test, sel.TestRefs = nil, nil
		}
		return sel, nil
	}
	sel := &data.Selection{Source: "synthetic", Layout: data.LayoutSynthetic, Seed: p.Seed}
	one, kind := data.SyntheticImage, "synthetic"
	if strings.HasPrefix(p.Problem, "ct") {
		one, kind = func(i, h, w int, seed int64) *data.Image { return data.Phantom(i, h, seed) }, "phantoms"
	}
	gen := func(n, h, w int, seed int64, read func(int) bool) []*data.Image {
		out := make([]*data.Image, max(n, 0))
		for i := range out {
			if read == nil || read(i) {
				out[i] = one(i, h, w, seed)
				sel.Loaded++
			}
		}
		return out
	}
	named := func(seed int64) func(int) string {
		return func(k int) string { return fmt.Sprintf("%s(seed %d)#%d", kind, seed, k) }
	}
	testSeed := p.Seed + 1_000_003
	if blocks != nil {
		// Each rank makes its part of every list for the overlap check
		// (refs shared) and the test images of its block.
		shared := func(n int, seed int64, keep func(int) bool) ([]*data.Image, []data.Ref, error) {
			lo, hi := blocks.Part(n)
			imgs := gen(n, prob.H, prob.W, seed, func(i int) bool { return (i >= lo && i < hi) || keep(i) })
			refs := data.Refs(imgs, named(seed))
			return imgs, refs, blocks.Share(refs, lo, hi)
		}
		var err error
		if _, sel.TrainRefs, err = shared(p.NTrain, p.Seed, func(int) bool { return false }); err != nil {
			return nil, err
		}
		if sel.Test, sel.TestRefs, err = shared(p.NTest, testSeed, blocks.Read); err != nil {
			return nil, err
		}
		for j := range sel.Test {
			if !blocks.Read(j) {
				sel.Test[j] = nil
			}
		}
	} else {
		sel.Train = gen(p.NTrain, prob.H, prob.W, p.Seed, read)
		sel.TrainRefs = data.Refs(sel.Train, named(p.Seed))
		sel.Test = gen(p.NTest, prob.H, prob.W, testSeed, nil)
		sel.TestRefs = data.Refs(sel.Test, named(testSeed))
	}
	bad := data.Overlap(sel.TrainRefs, sel.TestRefs)
	bad = append(bad, data.Overlap(refsOf(exclude), sel.TestRefs)...)
	if len(bad) > 0 {
		return nil, usagef("--seed %d: the synthetic test image %s equals a training image; choose another --seed", p.Seed, bad[0].Name)
	}
	return sel, nil
}

// dataBuilds counts the problems buildSplit began to build (operators
// normed, data read): tests check that a refusal came before.
var dataBuilds atomic.Int64

// buildSplit returns the problem (sized for the data) and the training and
// test objectives with the images they came from.
func (p *problemFlags) buildSplit(exclude map[string]bool) (*split, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := p.checkFamily(); err != nil {
		return nil, err
	}
	dataBuilds.Add(1)
	prob, err := problem.Lookup(p.Problem, p.options())
	if err != nil {
		return nil, asUsage(err)
	}
	held := p.rankBlocks(prob)
	var tb *testBlock
	if p.holdTest {
		if tb, err = worldTestBlock(prob, p.NTest); err != nil {
			return nil, err
		}
	}
	sel, err := p.selectImages(prob, exclude, held.reads(), tb.blocks())
	if err != nil {
		return nil, err
	}
	s := &split{prob: prob, sel: sel, noiseSeed: prob.Seed, held: held}
	if tb != nil { // the training images were hashed, not read
		s.part = tb.part()
		s.test, err = tb.instantiate(sel.Test, p.Data)
		return s, err
	}
	mk := func(imgs []*data.Image, offset uint64) (*problem.Objective, error) {
		if len(imgs) == 0 {
			return nil, nil
		}
		n, h, w, pix, err := data.Stack(imgs)
		if err != nil {
			return nil, asUsage(err)
		}
		if h != prob.H || w != prob.W {
			return nil, usagef("--data %s: images are %d×%d but problem %s needs %d×%d", p.Data, h, w, prob.Name, prob.H, prob.W)
		}
		o, err := prob.Instantiate(pix, n, offset)
		if err != nil {
			return nil, err
		}
		return o, finiteStart(o, 0)
	}
	if held != nil {
		s.train, err = held.instantiate(prob, sel, 0)
	} else {
		s.train, err = mk(sel.Train, 0)
	}
	if err != nil {
		return nil, err
	}
	if s.test, err = mk(sel.Test, 1); err != nil {
		return nil, err
	}
	return s, nil
}

// finiteStart refuses functions whose value at the starting point is not
// finite (a noise level or α past what float64 holds, or such data): no
// method could run on them.
// The functions are numbered from first.
func finiteStart(o *problem.Objective, first int) error {
	vals := make([]float64, o.N)
	if err := o.Eval(vals, nil, o.X0, nil); err != nil {
		return err
	}
	for k, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return usagef("function %d is %g at its starting point: check --noise, --alpha and the data", first+k, v)
		}
	}
	return nil
}

// trainRecord is the data record a checkpoint keeps: the training images
// (the last nVal of them validation images) and the noise.
func (s *split) trainRecord(nVal int) *data.Record {
	path := ""
	if s.sel.Layout != data.LayoutSynthetic {
		path, _ = filepath.Abs(s.sel.Source)
	}
	return &data.Record{
		Source: s.sel.Source, Path: path, Layout: s.sel.Layout, Seed: s.sel.Seed, NTrain: len(s.sel.TrainRefs), NVal: nVal,
		Noise: s.prob.Noise, NoiseSeed: s.noiseSeed, Fingerprint: data.Fingerprint(s.sel.TrainRefs), Train: s.sel.TrainRefs,
	}
}

// trainingProvenance is the provenance a trainer records in its checkpoint.
func (env *Env) trainingProvenance(s *split, nVal int) *provenance.Record {
	return &provenance.Record{Invocation: env.invocation(), Data: s.trainRecord(nVal)}
}

// testRecord describes the functions an evaluation runs on: refs are the
// images' (the test images, or the training images for --set train).
func (s *split) testRecord(set string, refs []data.Ref, note string) *provenance.Test {
	return &provenance.Test{
		Source: s.sel.Source, Layout: s.sel.Layout, Set: set, Seed: s.sel.Seed, Noise: s.prob.Noise, NoiseSeed: s.noiseSeed,
		Fingerprint: data.Fingerprint(refs), Images: refs, Skipped: s.sel.Skipped, Note: note,
	}
}

// sameSource reports whether two --data values name the same source.
func sameSource(a, b string) bool {
	norm := func(s string) string {
		if s == "" || s == "synthetic" {
			return "synthetic"
		}
		if abs, err := filepath.Abs(s); err == nil {
			return abs
		}
		return filepath.Clean(s)
	}
	return norm(a) == norm(b)
}

// heldOut is what eval and apply know of the training data of the
// checkpoints they run: the hashes of every recorded training image (the
// test functions never include one), the reference record whose split the
// test functions follow, and a note when the data differ from it.
type heldOut struct {
	exclude map[string]bool
	ref     *data.Record // nil when no checkpoint records its data
	refDir  string
	// differs names a later checkpoint trained on other images or noise
	// than ref's ("" if none): --set train cannot re-create both.
	differs string
	note    string
}

// adoptData makes the functions of eval and apply follow the training split
// of the checkpoints: --data, --n-train and --seed, when not given, are the
// first checkpoint's; a --n-train or --seed that contradicts it on the same
// data is refused (exit 2). Other data is allowed and said in one line.
func (p *problemFlags) adoptData(env *Env, fs *pflag.FlagSet, infos []*LearnedInfo, dirs []string) (*heldOut, error) {
	if err := p.adoptFunctions(env, fs, infos, dirs); err != nil {
		return nil, err
	}
	h := &heldOut{exclude: map[string]bool{}}
	refDir := ""
	for i, info := range infos {
		rec := info.trainingData()
		if rec == nil {
			continue
		}
		for k := range data.Hashes(rec.Train) {
			h.exclude[k] = true
		}
		if h.ref == nil {
			h.ref, refDir, h.refDir = rec, dirs[i], dirs[i]
		} else if h.differs == "" && (!data.SameRefs(rec.Train, h.ref.Train) || rec.Seed != h.ref.Seed || rec.NTrain != h.ref.NTrain) {
			h.differs = dirs[i]
		}
	}
	if h.ref == nil {
		return h, p.adoptLegacy(env, fs, infos, dirs)
	}
	src := h.ref.Source
	if _, err := os.Stat(src); err != nil && h.ref.Path != "" {
		src = h.ref.Path // trained from another working directory
	}
	if !fs.Changed("data") {
		p.Data = src
	}
	if !sameSource(p.Data, src) && !sameSource(p.Data, h.ref.Path) {
		h.note = fmt.Sprintf("tested on --data %s; %s was trained on %s (its %d training images are kept out by content)", p.Data, refDir, h.ref.Source, len(h.ref.Train))
		fmt.Fprintf(env.Stderr, "note: %s\n", h.note)
		p.testOnly = fs.Lookup("n-train") == nil || !fs.Changed("n-train")
		return h, nil
	}
	for _, f := range []struct {
		flag      string
		got, want int64
		set       func()
	}{
		{"n-train", int64(p.NTrain), int64(h.ref.NTrain), func() { p.NTrain = h.ref.NTrain }},
		{"seed", p.Seed, h.ref.Seed, func() { p.Seed = h.ref.Seed }},
	} {
		if !p.userGave(fs, f.flag) {
			f.set()
		} else if f.got != f.want {
			return nil, usagef("--%s %d: %s was trained with --%s %d on %s, and its test functions follow that split: drop --%s", f.flag, f.got, refDir, f.flag, f.want, h.ref.Source, f.flag)
		}
	}
	return h, nil
}

// adoptLegacy takes --n-train and --seed from checkpoints written before
// data records: their manifests record both, not the data.
func (p *problemFlags) adoptLegacy(env *Env, fs *pflag.FlagSet, infos []*LearnedInfo, dirs []string) error {
	for i, info := range infos {
		if info.NTrain <= 0 {
			continue
		}
		if fs.Lookup("n-train") == nil || !fs.Changed("n-train") {
			p.NTrain = info.NTrain
		}
		if !fs.Changed("seed") {
			p.Seed = info.Seed
		}
		fmt.Fprintf(env.Stderr, "note: %s does not record its training images (written by an older l2o): the held-out split follows its n_train %d and seed %d; give --data as in its training\n",
			dirs[i], info.NTrain, info.Seed)
		return nil
	}
	return nil
}

// evalSplit builds the functions eval and apply run on: the held-out test
// functions (set "test"), or the recorded training functions re-created
// exactly (set "train"; refused when the data no longer give them).
func (p *problemFlags) evalSplit(h *heldOut, set string) (*split, *provenance.Test, error) {
	if set == "train" {
		return p.trainingSplit(h)
	}
	if p.NTest < 1 {
		return nil, nil, usagef("--n-test must be at least 1")
	}
	p.holdTest = true
	s, err := p.buildSplit(h.exclude)
	if err != nil {
		return nil, nil, err
	}
	return s, s.testRecord("test", s.sel.TestRefs, h.note), nil
}

// trainingSplit re-creates the training functions of h's checkpoint.
func (p *problemFlags) trainingSplit(h *heldOut) (*split, *provenance.Test, error) {
	if h.differs != "" {
		return nil, nil, usagef("--set train: %s and %s were trained on different functions (images, their number or the seed); evaluate each on its own training functions in its own eval", h.refDir, h.differs)
	}
	if h.ref != nil && h.note != "" {
		return nil, nil, usagef("--set train re-creates the training functions: drop --data (they came from %s)", h.ref.Source)
	}
	nTest := p.NTest
	p.NTest = 0
	defer func() { p.NTest = nTest }()
	s, err := p.buildSplit(nil)
	if err != nil {
		return nil, nil, err
	}
	if s.train == nil {
		return nil, nil, usagef("--set train needs --n-train ≥ 1")
	}
	refs := s.sel.TrainRefs
	if r := h.ref; r != nil {
		if !data.SameRefs(refs, r.Train) {
			return nil, nil, usagef("--set train: %s no longer gives the checkpoint's training images (fingerprint %.12s…, recorded %.12s…): the data changed since training", p.Data, data.Fingerprint(refs), r.Fingerprint)
		}
		refs = refs[:r.NTrain-r.NVal] // the validation images were not trained on
	}
	keep := len(refs)
	if nTest > 0 && nTest < keep && (h.ref == nil || p.nTestGiven) {
		keep = nTest
	}
	idx := make([]int, keep)
	for i := range idx {
		idx[i] = i
	}
	if s.test, err = s.train.Subset(idx); err != nil {
		return nil, nil, err
	}
	if p.nTestGiven && nTest > keep {
		s.fewer = fmt.Sprintf("--n-test %d: --set train evaluates the %d functions the checkpoint was trained on", nTest, keep)
	}
	return s, s.testRecord("train", refs[:keep], ""), nil
}

// refsOf is a ref for each key of an exclusion set (Overlap matches keys
// as a ref's SHA256).
func refsOf(keys map[string]bool) []data.Ref {
	out := make([]data.Ref, 0, len(keys))
	for k := range keys {
		out = append(out, data.Ref{SHA256: k})
	}
	return out
}

// noteSkipped says how many candidate test images were left out because
// their content equals a training image's.
func noteSkipped(env *Env, s *split) {
	if p := s.part; p != nil {
		fmt.Fprintf(env.Stderr, "note: rank %d of %d holds test functions [%d, %d) of %d; it read %d images\n", p.Shard.Index-1, p.Shard.Count, p.First, p.First+s.test.N, p.Total, s.sel.Loaded)
	}
	if s.fewer != "" {
		fmt.Fprintf(env.Stderr, "note: %s\n", s.fewer)
	}
	if s.sel.Skipped > 0 {
		fmt.Fprintf(env.Stderr, "note: %d candidate test images of %s equal training images and were left out\n", s.sel.Skipped, s.sel.Source)
	}
}

// checkpointsOf names the checkpoints of infos for a provenance record.
func checkpointsOf(infos []*LearnedInfo) []provenance.Checkpoint {
	out := make([]provenance.Checkpoint, len(infos))
	for i, info := range infos {
		out[i] = info.Checkpoint
		out[i].Label = info.Method.Name()
	}
	return out
}

// trainHash is the data hash of the training functions, train being this
// rank's (all of them, or its held block).
func (s *split) trainHash(train *problem.Objective) string {
	if s.held != nil {
		return s.held.dataHash
	}
	return dataHash(train)
}
