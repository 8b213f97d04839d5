package cmd

import (
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/eval"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/mpi"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// heldBlock is what a rank holds of the training under mpirun
// (problemFlags.rankBlocks): training functions [lo, hi) of total and
// validation functions [valLo, valHi) of valTotal (blocks of
// steploss.GroupBlocks, in rank order; a rank past the validation
// functions' groups holds none), built from the images they need alone
// (problem.Problem.BlockImages). instantiate fills in the rest.
type heldBlock struct {
	lo, hi, total          int
	valLo, valHi, valTotal int
	// val is the rank's validation functions (nil when it holds none),
	// family every training function's operators and weights, dataHash
	// the hash of every training image (data.Hash of them all).
	val      *problem.Objective
	family   *problem.Objective
	dataHash string
	// loaded counts the images this rank read.
	loaded int
	prob   *problem.Problem
}

// rankBlocks returns this rank's blocks under mpirun for a trainer that
// holds blocks (holdBlock), nil on one process, without a number of
// training images, or where the ranks outnumber the groups of training
// functions (divideTraining refuses those).
func (p *problemFlags) rankBlocks(prob *problem.Problem) *heldBlock {
	n, g := p.NTrain, prob.BatchGroup()
	nt := n - p.holdVal
	if !p.holdBlock || mpi.Size() <= 1 || nt < 1 || mpi.Size() > groups(nt, g) {
		return nil
	}
	blk, vb := rankBlock(nt, g), rankBlock(p.holdVal, g)
	return &heldBlock{lo: blk[0], hi: blk[1], total: nt, valLo: vb[0], valHi: vb[1], valTotal: p.holdVal, prob: prob}
}

// groups is the number of groups of g that n functions make.
func groups(n, g int) int { return (n + g - 1) / g }

// rankBlock is this rank's block of n functions whose operator applies
// images in groups of g (steploss.GroupBlocks): empty, [n, n), for a
// rank past the groups.
func rankBlock(n, g int) [2]int {
	blocks := steploss.GroupBlocks(n, mpi.Size(), g)
	if r := mpi.Rank(); r < len(blocks) {
		return blocks[r]
	}
	return [2]int{n, n}
}

// reads reports which of the training and validation images the rank
// reads: those its blocks' data are computed from (BlockImages); nil (all)
// without blocks.
func (h *heldBlock) reads() func(int) bool {
	if h == nil {
		return nil
	}
	n := h.total + h.valTotal
	var in [][2]int
	for _, b := range [][2]int{{h.lo, h.hi}, {h.total + h.valLo, h.total + h.valHi}} {
		if b[0] < b[1] {
			lo, hi := h.prob.BlockImages(n, b[0], b[1])
			in = append(in, [2]int{lo, hi})
		}
	}
	return func(i int) bool {
		for _, b := range in {
			if i >= b[0] && i < b[1] {
				return true
			}
		}
		return false
	}
}

// instantiate builds the rank's blocks of the training and validation
// functions from the images it read (sel), each as Instantiate builds it,
// bit for bit, and every training function's operators and weights; then,
// with the other ranks, the hash of every training image (the SHA-256
// state passed along the ranks) and every image's ref in sel.TrainRefs.
func (h *heldBlock) instantiate(prob *problem.Problem, sel *data.Selection, offset uint64) (*problem.Objective, error) {
	n := h.total + h.valTotal
	if len(sel.Train) != n {
		return nil, fmt.Errorf("%d training images selected, want %d", len(sel.Train), n)
	}
	h.loaded = sel.Loaded
	build := func(lo, hi int) (*problem.Objective, error) {
		glo, ghi := prob.BlockImages(n, lo, hi)
		_, ih, iw, pix, err := data.Stack(sel.Train[glo:ghi])
		if err != nil {
			return nil, asUsage(err)
		}
		if ih != prob.H || iw != prob.W {
			return nil, usagef("--data %s: images are %d×%d but problem %s needs %d×%d", sel.Source, ih, iw, prob.Name, prob.H, prob.W)
		}
		o, err := prob.InstantiateBlock(pix, n, lo, hi, offset)
		if err != nil {
			return nil, err
		}
		return o, finiteStart(o, lo)
	}
	o, err := build(h.lo, h.hi)
	if err != nil {
		return nil, err
	}
	if h.valLo < h.valHi {
		if h.val, err = build(h.total+h.valLo, h.total+h.valHi); err != nil {
			return nil, err
		}
	}
	if h.family, err = prob.Family(h.total, offset); err != nil {
		return nil, err
	}
	sum := data.NewHash(h.total)
	err = greedy.HashAlong(mpi.Chain{Tag: 11}, sum, func(s hash.Hash) {
		for _, im := range sel.Train[h.lo:h.hi] {
			data.HashImage(s, im)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("hashing the training images: %w", err)
	}
	h.dataHash = data.HashSum(sum)
	if err := shareRefs(sel.TrainRefs[:h.total], h.lo, h.hi); err != nil {
		return nil, err
	}
	return o, shareRefs(sel.TrainRefs[h.total:], h.valLo, h.valHi)
}

// shareRefs completes refs from every rank, this rank having read
// refs[lo:hi) (the ranks' blocks one after another in rank order): each
// ref's SHA-256 and content hash, 64 bytes.
func shareRefs(refs []data.Ref, lo, hi int) error {
	const size = 64
	local := make([]float64, 0, size*(hi-lo))
	for _, r := range refs[lo:hi] {
		for _, x := range []string{r.SHA256, r.Content} {
			b, err := hex.DecodeString(x)
			if err != nil || len(b) != size/2 {
				return fmt.Errorf("the ref of image %s has no SHA-256 (%q)", r.Name, x)
			}
			for _, c := range b {
				local = append(local, float64(c))
			}
		}
	}
	all, _, err := mpi.Chain{}.Gather(local)
	if err != nil {
		return fmt.Errorf("gathering the images' refs: %w", err)
	}
	if len(all) != size*len(refs) {
		return fmt.Errorf("gathered the refs of %d images, want %d", len(all)/size, len(refs))
	}
	for i := range refs {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(all[size*i+j])
		}
		refs[i].SHA256, refs[i].Content = hex.EncodeToString(b[:size/2]), hex.EncodeToString(b[size/2:])
	}
	return nil
}

// testBlock is what a rank of eval or apply under mpirun reads and builds:
// test functions [lo, hi) of total (its eval.Shard), from the test images
// BlockImages(total, lo, hi) alone.
type testBlock struct {
	lo, hi, total int
	prob          *problem.Problem
}

// worldTestBlock is this rank's block of the nTest test functions under
// mpirun (nil on one process); more ranks than test functions are refused.
func worldTestBlock(prob *problem.Problem, nTest int) (*testBlock, error) {
	w := worldShard()
	if w.Whole() {
		return nil, nil
	}
	if w.Count > nTest {
		return nil, usagef("mpirun -np %d: %d shards of %d test functions: give at most %d ranks, or a larger --n-test", w.Count, w.Count, nTest, nTest)
	}
	lo, hi := w.Bounds(nTest)
	return &testBlock{lo: lo, hi: hi, total: nTest, prob: prob}, nil
}

// blocks is the data.Blocks of the rank: its shard of every list, the
// refs shared along the ranks, the test images of its block read.
func (t *testBlock) blocks() *data.Blocks {
	if t == nil {
		return nil
	}
	glo, ghi := t.prob.BlockImages(t.total, t.lo, t.hi)
	return &data.Blocks{
		Part:  func(n int) (int, int) { return worldShard().Bounds(n) },
		Share: shareRefs,
		Read:  func(j int) bool { return j >= glo && j < ghi },
	}
}

// instantiate builds the rank's test functions from the images it read
// (test: every test image's place, nil for those not read), as
// Instantiate builds them, bit for bit.
func (t *testBlock) instantiate(test []*data.Image, source string) (*problem.Objective, error) {
	glo, ghi := t.prob.BlockImages(t.total, t.lo, t.hi)
	_, ih, iw, pix, err := data.Stack(test[glo:ghi])
	if err != nil {
		return nil, asUsage(err)
	}
	if ih != t.prob.H || iw != t.prob.W {
		return nil, usagef("--data %s: images are %d×%d but problem %s needs %d×%d", source, ih, iw, t.prob.Name, t.prob.H, t.prob.W)
	}
	o, err := t.prob.InstantiateBlock(pix, t.total, t.lo, t.hi, 1)
	if err != nil {
		return nil, err
	}
	return o, finiteStart(o, t.lo)
}

// part is the record the rank's curves carry (as --shard's).
func (t *testBlock) part() *eval.Part {
	return &eval.Part{Shard: worldShard(), First: t.lo, Total: t.total}
}
