package unroll

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// DefaultLearningRate is the Adam learning rate of the paper's unrolled baseline.
const DefaultLearningRate = 2e-5

// Config sets up unrolled training.
type Config struct {
	Method models.Method
	// T is the number of unrolled iterations (required, ≥ 1).
	T int
	// Tau is the step of the reference G = τI; 0 means 1/L of the training set.
	Tau float64
	// Weights holds ω1, …, ωT (nil: all ones).
	Weights []float64
	// LearningRate of Adam; 0 means DefaultLearningRate.
	LearningRate float64
	// Batch is the mini-batch size B; 0 means 4 (or N if N < 4).
	Batch int
	// Epochs is the number of passes over the training set (required, ≥ 1).
	// Each epoch visits a fresh permutation of the functions, drawn from Seed
	// and the epoch number, in ⌊N/B⌋ mini-batches; the N mod B functions left
	// over are skipped in that epoch.
	Epochs int
	// Seed drives the shuffling; it is also recorded in the manifest.
	Seed int64
	// Dir is the checkpoint directory ("" keeps nothing on disk).
	Dir string
	// Resume continues the run in Dir after its last completed epoch.
	Resume bool
	// Problem and DataHash are recorded in the manifest and checked on resume.
	Problem  string
	DataHash string
	// Provenance: see greedy.Problem.Provenance.
	Provenance *provenance.Record
	// Progress, if set, is called after every epoch.
	Progress func(EpochInfo)
	// MaxSeconds, if positive, ends training after the first epoch at which
	// the training time of all epochs so far (resumed ones included) reaches
	// it: a wall-clock budget for comparisons at equal training time. The
	// run can be continued with Resume and a larger budget.
	MaxSeconds float64
	// Device, if set, evaluates the unrolled loss with its array
	// operations (NewLossOn: gpu.CPU() in float64, the CUDA device in
	// float32), the trajectory kept on the device; nil: the gorgonia graph
	// on the CPU. Recorded in unroll.json ("device", the device's kind); a
	// resume must ask for the same kind.
	Device gpu.Ops
	// Stop, if set, is asked before every epoch; when it returns true the
	// run ends there with greedy.ErrInterrupted, its checkpoint complete
	// up to the previous epoch (Resume continues it).
	Stop func() bool
}

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

func (cfg *Config) defaults(n int) error {
	if cfg.Method.G == nil {
		return errors.New("unroll: no parametrization for G")
	}
	if cfg.T < 1 {
		return fmt.Errorf("unroll: T must be at least 1, got %d", cfg.T)
	}
	if cfg.Epochs < 1 {
		return fmt.Errorf("unroll: the number of epochs must be at least 1, got %d", cfg.Epochs)
	}
	if cfg.LearningRate == 0 {
		cfg.LearningRate = DefaultLearningRate
	}
	if cfg.LearningRate < 0 || math.IsNaN(cfg.LearningRate) || math.IsInf(cfg.LearningRate, 0) {
		return fmt.Errorf("unroll: learning rate %g must be positive and finite", cfg.LearningRate)
	}
	if cfg.Batch == 0 {
		cfg.Batch = min(4, n)
	}
	if cfg.Batch < 1 || cfg.Batch > n {
		return fmt.Errorf("unroll: batch size %d must be between 1 and the number of training functions %d", cfg.Batch, n)
	}
	if cfg.Resume && cfg.Dir == "" {
		return errors.New("unroll: resume needs a checkpoint directory")
	}
	return nil
}

// Permutation returns the order in which epoch e visits the n training functions.
func Permutation(n int, seed int64, epoch int) []int {
	return rand.New(rand.NewPCG(uint64(seed), uint64(epoch)^0x756e726f6c6c)).Perm(n)
}

// Train learns the T parameter pairs by unrolling on the training functions o.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	if o == nil || o.N < 1 {
		return nil, errors.New("unroll: no training functions")
	}
	if err := cfg.defaults(o.N); err != nil {
		return nil, err
	}
	tau := cfg.Tau
	if tau == 0 {
		tau = 1 / o.L
	}
	var loss *Loss
	var err error
	if cfg.Device != nil {
		loss, err = NewLossOn(cfg.Method, o, cfg.T, cfg.Batch, tau, cfg.Weights, cfg.Device)
	} else {
		loss, err = NewLoss(cfg.Method, o, cfg.T, cfg.Batch, tau, cfg.Weights)
	}
	if err != nil {
		return nil, err
	}
	defer loss.Close()
	st := newState(&cfg, o, loss, tau)
	u := loss.Reference()
	adam := optim.NewAdam(loss.Dim(), cfg.LearningRate)
	if cfg.Resume {
		old, err := readState(cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Dir, err)
		}
		if err := old.compatible(st); err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Dir, err)
		}
		st.Epochs = old.Epochs
		st.AdamStep = old.AdamStep
		st.Provenance = provenance.Continued(old.Provenance, cfg.Provenance)
		if u, adam.M, adam.V, err = readVectors(cfg.Dir, len(st.Epochs), loss.Dim(), old.Checksums); err != nil {
			return nil, fmt.Errorf("unroll: %w %s: %w", checkpoint.ErrCannotResume, cfg.Dir, err)
		}
		adam.Step = st.AdamStep
		// Rewrite the parameters and manifest from the committed state, in
		// case the previous run stopped between the commit and those files.
		if err := save(cfg.Dir, st, o, loss, u, adam, len(st.Epochs) >= cfg.Epochs); err != nil {
			return nil, err
		}
	} else if cfg.Dir != "" {
		if err := checkEmpty(cfg.Dir); err != nil {
			return nil, err
		}
		if err := save(cfg.Dir, st, o, loss, u, adam, false); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, loss.Dim())
	batches := o.N / cfg.Batch
	for e := len(st.Epochs); e < cfg.Epochs; e++ {
		if cfg.Stop != nil && cfg.Stop() {
			return nil, fmt.Errorf("unroll: %w after %d epochs: the checkpoint in %s holds them", checkpoint.ErrInterrupted, len(st.Epochs), cfg.Dir)
		}
		began := time.Now()
		perm := Permutation(o.N, cfg.Seed, e)
		info := EpochInfo{Epoch: e, Batches: batches}
		for b := 0; b < batches; b++ {
			if err := loss.SetBatch(perm[b*cfg.Batch : (b+1)*cfg.Batch]); err != nil {
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
		outOfTime := cfg.MaxSeconds > 0 && spent >= cfg.MaxSeconds
		if cfg.Dir != "" {
			if err := save(cfg.Dir, st, o, loss, u, adam, e+1 == cfg.Epochs || outOfTime); err != nil {
				return nil, err
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(info)
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
