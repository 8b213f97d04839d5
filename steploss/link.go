package steploss

import (
	"fmt"

	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/problem"
)

// Link joins the step losses of processes that each hold one block of
// contiguous functions, in block order (NewStepLossBlock). At every
// evaluation each process first does the work of its own functions; then
// the running sums (partialSums, as a flat slice: the value, the
// one-parameter terms' sums, the spectral terms' sums, the bound terms'
// gradients) go from block to block, each block adding its functions in
// order, and every process ends with the complete sums. An implementation
// is a pipeline over the processes (MPI: receive from rank r−1, send to
// rank r+1, then a broadcast from the last), or channels between
// goroutines (tests).
type Link interface {
	// Before fills sums with the running sums the blocks before this
	// process's left; on the first block it leaves them as they are (zero).
	Before(sums []float64) error
	// After passes sums, this block's functions added, to the next block,
	// and leaves in sums the complete sums of the last block, the same
	// slice length on every process.
	After(sums []float64) error
}

// A Gatherer is a Link that also gives every block the values of all the
// blocks in block order. A reduced term (PF in its step's subspace) needs
// it: the subspace is built from every function's operand, and each block
// then keeps its own functions' coordinates (models.Reduction.Restrict).
type Gatherer interface {
	Link
	// Gather returns the concatenation, in block order, of every block's
	// local values (every process calls it at once), and the index in it
	// where this block's begin.
	Gather(local []float64) (all []float64, at int, err error)
}

// NewStepLossBlock is NewStepLossIn for one process of several: block holds
// this process's functions, a contiguous block of the total functions of the
// step loss, and link joins it to the processes holding the other blocks,
// in block order. Every process must call Eval, EvalBlock (and SetStep,
// SetWeights) at the same points; each then returns the step loss of all
// total functions, bitwise that of one process holding them all, and Next
// writes the next iterates of its own block. The engine's paths divide
// (one-parameter, spectral and bound terms, both precisions); a reduced
// term (PF in its step's subspace: its basis is built from every
// function's gradient) divides when link is a Gatherer; the
// graph-oracle path does not (for a device: NewStepLossBlockOn).
func NewStepLossBlock(m models.Method, block *problem.Objective, total int, tau float64, prec Precision, link Link) (*StepLoss, error) {
	prec, err := ParsePrecision(string(prec))
	if err != nil {
		return nil, fmt.Errorf("step loss: %w", err)
	}
	return newStepLossBlock(m, block, total, tau, stepPaths{precision: prec}, link)
}

// NewStepLossBlockOn is NewStepLossBlock with the block's pass on a device's
// array operations (NewStepLossOn): the processes' sums are then those of
// their blocks, each summed on its device, so they agree with one process
// holding every function to rounding, not bitwise.
func NewStepLossBlockOn(m models.Method, block *problem.Objective, total int, tau float64, device gpu.Ops, link Link) (*StepLoss, error) {
	if device == nil {
		return nil, fmt.Errorf("step loss: no device")
	}
	return newStepLossBlock(m, block, total, tau, stepPaths{device: device}, link)
}

func newStepLossBlock(m models.Method, block *problem.Objective, total int, tau float64, paths stepPaths, link Link) (*StepLoss, error) {
	if link == nil {
		return nil, fmt.Errorf("step loss: no link between the blocks")
	}
	if block == nil || total < block.N {
		return nil, fmt.Errorf("step loss: a block of %d functions of %d", block.N, total)
	}
	_, gathers := link.(Gatherer)
	paths.noReduce, paths.link, paths.total = !gathers, link, total
	return newStepLoss(m, block, tau, paths)
}

// linked is the evaluator of one block joined to the others by a Link: its
// engine holds its spectral products (addHeld) so that its pass runs while
// the other blocks run theirs, and only the additions wait for the sums.
type linked struct {
	e    shardEngine
	link Link
	buf  []float64
}

func newLinked(m models.Method, o *problem.Objective, refs [][]float64, paths stepPaths) (stepEvaluator, []models.Reducer, error) {
	link, total := paths.link, paths.total
	paths.link = nil
	ev, reds, err := newEvaluator(m, o, refs, paths)
	if err != nil {
		return nil, nil, err
	}
	e, ok := ev.(shardEngine)
	g, gathers := link.(Gatherer)
	if !ok || (reds != nil && !gathers) {
		ev.close()
		return nil, nil, fmt.Errorf("step loss: the %s evaluator does not divide into blocks (the engine's paths do; a reduced term needs a Link that gathers every function's operand: a Gatherer)", ev.kind())
	}
	e.setTotal(total)
	e.holdProducts()
	if reds != nil {
		e.gatherOperands(g.Gather)
	}
	return &linked{e: e, link: link}, reds, nil
}

func (l *linked) kind() string { return l.e.kind() + " (a linked block)" }

// deviceObjective is the block engine's (StepLoss.DeviceObjective): this
// process's functions.
func (l *linked) deviceObjective() (problem.BatchEvaluator, error) {
	if d, ok := l.e.(interface {
		deviceObjective() (problem.BatchEvaluator, error)
	}); ok {
		return d.deviceObjective()
	}
	return nil, nil
}

func (l *linked) setStep(x, g, p []float64) ([]models.Reduction, error) {
	return l.e.setStep(x, g, p)
}

func (l *linked) eval(params, grads [][]float64) (float64, error) {
	if err := l.e.pass(params, grads, nil); err != nil {
		return 0, err
	}
	acc := l.e.startSums(grads)
	l.buf = acc.flatten(l.buf[:0])
	if err := l.link.Before(l.buf); err != nil {
		return 0, fmt.Errorf("step loss: receiving the running sums: %w", err)
	}
	acc.load(l.buf)
	if err := l.e.addTo(grads, acc); err != nil {
		return 0, err
	}
	l.buf = acc.flatten(l.buf[:0])
	if err := l.link.After(l.buf); err != nil {
		return 0, fmt.Errorf("step loss: passing the running sums on: %w", err)
	}
	acc.load(l.buf)
	return l.e.finish(acc, grads), nil
}

func (l *linked) next(dst []float64, params [][]float64) error { return l.e.next(dst, params) }
func (l *linked) bytes() int64                                 { return l.e.bytes() + 8*int64(cap(l.buf)) }
func (l *linked) close() error                                 { return l.e.close() }

// flatten appends the sums to dst: value, dots, then each spectral term's
// sum (real and imaginary parts) and each bound term's gradient or running
// sum, in term order, as far as they are active.
func (a *partialSums) flatten(dst []float64) []float64 {
	dst = append(dst, a.value, a.dots[0], a.dots[1])
	for i := range a.spectra {
		if a.on[i] {
			for _, c := range a.spectra[i] {
				dst = append(dst, c.Re, c.Im)
			}
		}
		if a.grads[i] != nil {
			dst = append(dst, a.grads[i]...)
		}
		if i < len(a.sums) {
			dst = append(dst, a.sums[i]...)
		}
	}
	return dst
}

// load sets the sums from src, laid out as flatten lays them.
func (a *partialSums) load(src []float64) {
	a.value, a.dots[0], a.dots[1] = src[0], src[1], src[2]
	src = src[3:]
	for i := range a.spectra {
		if a.on[i] {
			for q := range a.spectra[i] {
				a.spectra[i][q] = kernels.Complex[float64]{Re: src[2*q], Im: src[2*q+1]}
			}
			src = src[2*len(a.spectra[i]):]
		}
		if a.grads[i] != nil {
			src = src[copy(a.grads[i], src):]
		}
		if i < len(a.sums) {
			src = src[copy(a.sums[i], src):]
		}
	}
}

// holdProducts makes the engine keep its spectral products for addTo.
func (s *engine[F]) holdProducts() {
	if s.dev == nil && s.run.spectral() && s.run.held == nil {
		s.run.held = make([]kernels.Complex[F], s.n*s.run.sl)
	}
}

// Pipes returns k Links joining k goroutines in block order, as an MPI
// chain joins ranks: block b receives the running sums from block b−1 and
// passes them to block b+1, and the last block hands the complete sums to
// every other block. Each goroutine uses its own Link, Pipes(k)[b], for the
// step loss of block b.
func Pipes(k int) []Link {
	from, done := make([]chan []float64, k), make([]chan []float64, k)
	for b := range k {
		from[b], done[b] = make(chan []float64, 1), make(chan []float64, 1)
	}
	// A block's gather channel holds at most two rounds of the others'
	// values (a block finishes round r only with every block's value of r,
	// so none can send r+2 before this block has sent r+1) and its own:
	// with 2k places no send waits on a block that is sending itself.
	gather := make([]chan gathered, k)
	for b := range k {
		gather[b] = make(chan gathered, 2*k)
	}
	links := make([]Link, k)
	for b := range k {
		links[b] = &pipe{b: b, from: from, done: done, gather: gather}
	}
	return links
}

// gathered is one block's values on their way to every block (Gather).
type gathered struct {
	b, round int
	v        []float64
}

// pipe is one block's end of Pipes.
type pipe struct {
	b    int
	from []chan []float64 // from[b]: into block b from block b−1
	done []chan []float64 // done[b]: the complete sums, into block b
	// gather[b]: every block's values, into block b (Gather); round counts
	// this block's Gathers, early holds values of a later round that
	// arrived first.
	gather []chan gathered
	round  int
	early  []gathered
}

// Gather implements Gatherer: each block sends its values to every block.
func (l *pipe) Gather(local []float64) ([]float64, int, error) {
	l.round++
	for _, ch := range l.gather {
		ch <- gathered{l.b, l.round, append(make([]float64, 0, len(local)), local...)}
	}
	parts := make([][]float64, len(l.gather))
	keep := l.early[:0]
	for _, g := range l.early {
		if g.round == l.round {
			parts[g.b] = g.v
		} else {
			keep = append(keep, g)
		}
	}
	l.early = keep
	for got := len(l.gather) - countNil(parts); got < len(l.gather); {
		g := <-l.gather[l.b]
		if g.round != l.round {
			l.early = append(l.early, g)
			continue
		}
		parts[g.b] = g.v
		got++
	}
	var all []float64
	at := 0
	for b, p := range parts {
		if b == l.b {
			at = len(all)
		}
		all = append(all, p...)
	}
	return all, at, nil
}

func (l *pipe) Before(sums []float64) error {
	if l.b > 0 {
		copy(sums, <-l.from[l.b])
	}
	return nil
}

func (l *pipe) After(sums []float64) error {
	last := len(l.from) - 1
	if l.b < last {
		l.from[l.b+1] <- append([]float64(nil), sums...)
		copy(sums, <-l.done[l.b])
		return nil
	}
	for b := range last {
		l.done[b] <- append([]float64(nil), sums...)
	}
	return nil
}

// countNil counts the nil slices of parts.
func countNil(parts [][]float64) int {
	n := 0
	for _, p := range parts {
		if p == nil {
			n++
		}
	}
	return n
}
