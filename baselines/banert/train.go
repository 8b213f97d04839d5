package banert

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/gpu"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// Config sets up Banert training.
type Config struct {
	// Inputs is the number of input channels of the network: 3 ([x, ∇f, Δ],
	// the default when 0) or 4 ([x, ∇f_data, ∇f_reg, Δ]).
	Inputs int
	// T is the number of unrolled iterations (10 or 50 in the paper).
	T int
	// RandomLength unrolls a length drawn uniformly from [T, 2T−1] at every
	// step, as the original code does.
	RandomLength bool
	// Epochs is the number of passes over the training functions; every pass
	// makes one Adam step per function (batch size 1), in a random order.
	Epochs int
	// LearningRate of Adam (0: 1e-3).
	LearningRate float64
	// Seed drives the initialisation, the order of the functions and the
	// random lengths.
	Seed uint64
	// Dir is the checkpoint directory ("" for none). A checkpoint is written
	// after every epoch.
	Dir string
	// Resume continues the run in Dir from its last completed epoch.
	Resume bool
	// Problem and DataHash are recorded in the manifest and checked on resume.
	Problem, DataHash string
	// Provenance: see greedy.Problem.Provenance.
	Provenance *provenance.Record
	// Progress, when set, is called after every epoch.
	Progress func(EpochInfo)
	// MaxSeconds, if positive, ends training after the first epoch at which
	// the training time of all epochs so far (resumed ones included) reaches
	// it; Resume with a larger budget continues the run.
	MaxSeconds float64
	// Device, if set, evaluates the unrolled loss with its array operations
	// (DeviceLoss: the device must implement gpu.NetOps) instead of the
	// gorgonia graph: the trajectory and the network's activations stay on
	// the device, its allocator meters them, and the parameters and Adam
	// stay float64 on the host. Deblurring with Huber-TV or no regularizer
	// (3 or 4 inputs). The manifest records the device's kind
	// and a resume must use the same.
	Device gpu.Ops
	// Stop, if set, is asked before every epoch; when it returns true the
	// run ends there with greedy.ErrInterrupted, its checkpoint complete
	// up to the previous epoch (Resume continues it).
	Stop func() bool
}

// EpochInfo reports one epoch of training.
type EpochInfo struct {
	Epoch int `json:"epoch"` // 1-based
	// MeanLoss is the mean of f(x^T) over the steps of the epoch.
	MeanLoss float64 `json:"mean_loss"`
	Steps    int     `json:"steps"`
	// Seconds is the wall-clock time of the epoch; StepSeconds its mean per Adam step.
	Seconds     float64 `json:"seconds"`
	StepSeconds float64 `json:"step_seconds"`
}

// Result is the outcome of Train.
type Result struct {
	Method  *Method
	History []EpochInfo
}

// Train trains a Banert network on the functions of o by unrolling
// cfg.T iterations and minimising the objective at the final iterate with
// Adam, one function per step.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	if cfg.Inputs == 0 {
		cfg.Inputs = 3
	}
	if cfg.LearningRate == 0 {
		cfg.LearningRate = 1e-3
	}
	if err := checkInputs(cfg.Inputs); err != nil {
		return nil, err
	}
	if cfg.T < 1 || cfg.Epochs < 1 {
		return nil, fmt.Errorf("banert: training with T = %d and %d epochs: both must be at least 1", cfg.T, cfg.Epochs)
	}
	if !(cfg.LearningRate > 0) || math.IsInf(cfg.LearningRate, 0) {
		return nil, fmt.Errorf("banert: learning rate %g must be positive and finite", cfg.LearningRate)
	}
	if o == nil || o.N < 1 {
		return nil, fmt.Errorf("banert: training needs at least one function")
	}
	if cfg.Resume && cfg.Dir == "" {
		return nil, fmt.Errorf("banert: resume needs a checkpoint directory")
	}
	net, err := NewNetwork(cfg.Inputs, cfg.Seed)
	if err != nil {
		return nil, err
	}
	opt := optim.NewAdam(len(net.Theta), cfg.LearningRate)
	man := newManifest(o, cfg)
	if cfg.Resume {
		if man, err = resume(cfg.Dir, man, net, opt); err != nil {
			return nil, err
		}
		man.Provenance = provenance.Continued(man.Provenance, cfg.Provenance)
	} else if cfg.Dir != "" && manifestExists(cfg.Dir) {
		return nil, fmt.Errorf("banert: %s already holds a checkpoint: resume it or choose another directory", cfg.Dir)
	}
	man.Epochs = cfg.Epochs
	res := &Result{Method: &Method{Net: net, Label: label(cfg.T, cfg.Inputs)}, History: man.History}

	var tg *TrainingGraph
	var dl *DeviceLoss
	defer func() {
		if tg != nil {
			tg.Close()
		}
		if dl != nil {
			dl.Close()
		}
	}()
	if cfg.Device != nil {
		if err := CheckDevice(cfg.Device, o, cfg.Inputs); err != nil {
			return nil, err
		}
		ops := cfg.Device.(gpu.NetOps)
		maxT := cfg.T
		if cfg.RandomLength {
			maxT = 2*cfg.T - 1
		}
		if dl, err = NewDeviceLoss(ops, o, maxT, cfg.Inputs, 1); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, len(net.Theta))
	for epoch := len(man.History); epoch < cfg.Epochs; epoch++ {
		if cfg.Stop != nil && cfg.Stop() {
			return nil, fmt.Errorf("banert: %w after %d epochs: the checkpoint in %s holds them", checkpoint.ErrInterrupted, len(man.History), cfg.Dir)
		}
		start := time.Now()
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(epoch)+1))
		var sum float64
		for _, k := range rng.Perm(o.N) {
			length := cfg.T
			if cfg.RandomLength {
				length += rng.IntN(cfg.T)
			}
			if dl != nil {
				loss, err := deviceLossAndGradient(dl, o, length, k, net.Theta, grad)
				if err != nil {
					return nil, fmt.Errorf("banert: epoch %d, function %d: %w", epoch+1, k, err)
				}
				sum += loss
				if err := opt.Update(net.Theta, grad); err != nil {
					return nil, err
				}
				continue
			}
			if tg == nil || tg.T != length {
				if tg != nil {
					tg.Close()
				}
				if tg, err = BuildTrainingGraph(o, length, cfg.Inputs); err != nil {
					return nil, err
				}
			}
			loss, err := lossAndGradient(tg, k, net.Theta, grad)
			if err != nil {
				return nil, fmt.Errorf("banert: epoch %d, function %d: %w", epoch+1, k, err)
			}
			sum += loss
			if err := opt.Update(net.Theta, grad); err != nil {
				return nil, err
			}
		}
		secs := time.Since(start).Seconds()
		info := EpochInfo{Epoch: epoch + 1, MeanLoss: sum / float64(o.N), Steps: o.N, Seconds: secs, StepSeconds: secs / float64(o.N)}
		man.History = append(man.History, info)
		man.AdamSteps = opt.Step
		res.History = man.History
		if cfg.Dir != "" {
			if err := save(cfg.Dir, man, net, opt); err != nil {
				return nil, err
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(info)
		}
		if cfg.MaxSeconds > 0 {
			spent := 0.0
			for _, h := range man.History {
				spent += h.Seconds
			}
			if spent >= cfg.MaxSeconds {
				break
			}
		}
	}
	return res, nil
}

// lossAndGradient runs the unrolled graph on function k with parameters theta.
func lossAndGradient(tg *TrainingGraph, k int, theta, grad []float64) (float64, error) {
	if err := tg.SetFunction(k); err != nil {
		return 0, err
	}
	if err := tg.SetParams(theta); err != nil {
		return 0, err
	}
	if err := tg.Run(); err != nil {
		return 0, err
	}
	loss, err := tg.Loss()
	if err != nil {
		return 0, err
	}
	if err := tg.Gradient(grad); err != nil {
		return 0, err
	}
	if err := checkFinite(loss, grad); err != nil {
		return 0, err
	}
	return loss, nil
}

// deviceLossAndGradient evaluates the device loss of length iterations on
// function k with parameters theta.
func deviceLossAndGradient(dl *DeviceLoss, o *problem.Objective, length, k int, theta, grad []float64) (float64, error) {
	hw, m := o.ImageLen(), o.DataLen()
	loss, err := dl.Eval(length, theta, o.X0[k*hw:(k+1)*hw], o.Y[k*m:(k+1)*m], grad)
	if err != nil {
		return 0, err
	}
	return loss, checkFinite(loss, grad)
}

// checkFinite reports a loss or gradient that is not finite as divergence.
func checkFinite(loss float64, grad []float64) error {
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return fmt.Errorf("unrolled loss is %g: training diverged; try a smaller learning rate", loss)
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("gradient of the unrolled loss is not finite: training diverged; try a smaller learning rate")
		}
	}
	return nil
}

// label is the method name of a network trained with T iterations.
func label(T, inputs int) string {
	if inputs == 4 {
		return fmt.Sprintf("banert-T%d-4in", T)
	}
	return fmt.Sprintf("banert-T%d", T)
}
