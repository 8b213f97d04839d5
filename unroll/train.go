package unroll

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// EpochInfo records one epoch of training.
type EpochInfo struct {
	Epoch   int `json:"epoch"`
	Batches int `json:"batches"`
	// MeanLoss is the mean of the mini-batch losses ℓ met during the epoch
	// (before each Adam step).
	MeanLoss float64 `json:"mean_loss"`
	// MeanFinal is the mean over the epoch's mini-batches of (1/B) Σk fk(xk^T).
	MeanFinal      float64 `json:"mean_final"`
	Seconds        float64 `json:"seconds"`
	SecondsPerStep float64 `json:"seconds_per_step"`
	// HeldBytes is what the graph held after a run (values and gradients).
	HeldBytes int64 `json:"held_bytes"`
}

// Result is the outcome of Train.
type Result struct {
	// Theta and Phi hold (θt, φt) for t = 0..T−1 (Phi is nil without momentum).
	Theta, Phi [][]float64
	Epochs     []EpochInfo
	// HeldBytes is the size of the unrolled graph's values and gradients.
	HeldBytes int64
	// AdamSteps counts all Adam updates, including those before a resume.
	AdamSteps int
}

// Permutation returns the order in which epoch e visits the n training functions.
func Permutation(n int, seed int64, epoch int) []int {
	return rand.New(rand.NewPCG(uint64(seed), uint64(epoch)^0x756e726f6c6c)).Perm(n)
}

// NewLossFor is the unrolled loss for the execution target t: NewLoss (the
// gorgonia graph) on the CPU in float64; otherwise on t's array operations
// (execution.Target.Arrays: the device, or the CPU's float32 arrays) by the
// update's reverse pass on the device (ondevice.Unrolled) instead of a
// gorgonia graph: the same loss and gradient, the trajectory kept on the
// device. Every parametrization runs there (PF and user ones as
// ondevice.GraphTerm: their graph's products on the host) on objectives
// with a device form (problem.DeviceForm); others get an error naming what
// has no device path.
func NewLossFor(m models.Method, o *problem.Objective, steps, batch int, tau float64, weights []float64, t execution.Target) (*Loss, error) {
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("unroll: %w", err)
	}
	if ops := t.Arrays(); ops != nil {
		l, err := newLoss(m, o, steps, batch, tau, weights, func(m models.Method, o *problem.Objective, steps, batch int) (*ondevice.Unrolled, error) {
			return ondevice.NewUnrolled(ops, m, o, steps, batch)
		})
		if err == nil {
			l.recordOn = t.Device
		}
		return l, err
	}
	return NewLoss(m, o, steps, batch, tau, weights)
}

// Train learns the T parameter pairs by unrolling on the training functions o.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	if o == nil || o.N < 1 {
		return nil, errors.New("unroll: no training functions")
	}
	if err := cfg.prepare(o.N); err != nil {
		return nil, err
	}
	if err := cfg.Method.Param.CheckSize(o.H, o.W); err != nil {
		return nil, fieldError("Method.Param", err)
	}
	tau := cfg.Method.Tau
	if tau == 0 {
		tau = 1 / o.L
	}
	loss, err := NewLossFor(cfg.Method.Param, o, cfg.Method.T, cfg.Solver.Batch, tau, cfg.Method.Weights, cfg.Target)
	if err != nil {
		return nil, err
	}
	defer loss.Close()
	st := newState(&cfg, o, loss, tau)
	u := loss.Reference()
	adam := optim.NewAdam(loss.Dim(), cfg.Solver.LearningRate)
	if cfg.Run.Resume {
		old, err := readState(cfg.Run.Dir)
		if err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Run.Dir, err)
		}
		if err := old.compatible(st); err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Run.Dir, err)
		}
		st.Epochs = old.Epochs
		st.AdamStep = old.AdamStep
		st.Provenance = provenance.Continued(old.Provenance, cfg.Problem.Provenance)
		if u, adam.M, adam.V, err = readVectors(cfg.Run.Dir, len(st.Epochs), loss.Dim(), old.Checksums); err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Run.Dir, err)
		}
		adam.Step = st.AdamStep
		// Rewrite the parameters and manifest from the committed state, in
		// case the previous run stopped between the commit and those files.
		if err := save(cfg.Run.Dir, st, o, loss, u, adam, len(st.Epochs) >= cfg.Solver.Epochs); err != nil {
			return nil, err
		}
	} else if cfg.Run.Dir != "" {
		if err := checkEmpty(cfg.Run.Dir); err != nil {
			return nil, err
		}
		if err := save(cfg.Run.Dir, st, o, loss, u, adam, false); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, loss.Dim())
	batches := o.N / cfg.Solver.Batch
	for e := len(st.Epochs); e < cfg.Solver.Epochs; e++ {
		if cfg.Run.Stop != nil && cfg.Run.Stop() {
			return nil, fmt.Errorf("unroll: %w after %d epochs: the checkpoint in %s holds them", checkpoint.ErrInterrupted, len(st.Epochs), cfg.Run.Dir)
		}
		began := time.Now()
		perm := Permutation(o.N, cfg.Problem.Seed, e)
		info := EpochInfo{Epoch: e, Batches: batches}
		for b := 0; b < batches; b++ {
			if err := loss.SetBatch(perm[b*cfg.Solver.Batch : (b+1)*cfg.Solver.Batch]); err != nil {
				return nil, err
			}
			v, err := loss.Eval(u, grad)
			if err != nil {
				return nil, err
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("unroll: epoch %d, mini-batch %d: the unrolled loss is not finite: training diverged; use a smaller --lr", e, b)
			}
			fv, err := loss.StepValues()
			if err != nil {
				return nil, err
			}
			info.MeanLoss += v / float64(batches)
			info.MeanFinal += fv[len(fv)-1] / float64(batches)
			if err := adam.Update(u, grad); err != nil {
				return nil, err
			}
		}
		info.Seconds = time.Since(began).Seconds()
		info.SecondsPerStep = info.Seconds / float64(batches)
		info.HeldBytes = loss.HeldBytes()
		st.Epochs = append(st.Epochs, info)
		st.AdamStep = adam.Step
		spent := 0.0
		for _, ep := range st.Epochs {
			spent += ep.Seconds
		}
		outOfTime := cfg.Run.MaxSeconds > 0 && spent >= cfg.Run.MaxSeconds
		if cfg.Run.Dir != "" {
			if err := save(cfg.Run.Dir, st, o, loss, u, adam, e+1 == cfg.Solver.Epochs || outOfTime); err != nil {
				return nil, err
			}
		}
		if cfg.Run.Progress != nil {
			cfg.Run.Progress(info)
		}
		if outOfTime {
			break
		}
	}
	res := &Result{Epochs: st.Epochs, HeldBytes: loss.HeldBytes(), AdamSteps: adam.Step}
	theta, phi := loss.Split(u)
	for t := range theta {
		res.Theta = append(res.Theta, append([]float64(nil), theta[t]...))
		if phi != nil {
			res.Phi = append(res.Phi, append([]float64(nil), phi[t]...))
		}
	}
	return res, nil
}
