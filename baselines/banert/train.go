package banert

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

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
// cfg.Method.T iterations and minimising the objective at the final
// iterate with Adam, one function per step.
func Train(o *problem.Objective, cfg Config) (*Result, error) {
	if err := cfg.prepare(o); err != nil {
		return nil, err
	}
	net, err := NewNetwork(cfg.Method.Inputs, cfg.Problem.Seed)
	if err != nil {
		return nil, err
	}
	opt := optim.NewAdam(len(net.Theta), cfg.Solver.LearningRate)
	man := newManifest(o, cfg)
	if cfg.Run.Resume {
		if man, err = resume(cfg.Run.Dir, man, net, opt); err != nil {
			return nil, err
		}
		man.Provenance = provenance.Continued(man.Provenance, cfg.Problem.Provenance)
	} else if cfg.Run.Dir != "" && manifestExists(cfg.Run.Dir) {
		return nil, fmt.Errorf("banert: %s already holds a checkpoint: resume it or choose another directory", cfg.Run.Dir)
	}
	man.Epochs = cfg.Solver.Epochs
	res := &Result{Method: &Method{Net: net, Label: label(cfg.Method.T, cfg.Method.Inputs)}, History: man.History}

	var tg *TrainingGraph
	var dl arraysLoss
	defer func() {
		if tg != nil {
			tg.Close()
		}
		if dl != nil {
			dl.Close()
		}
	}()
	if cfg.Target.Arrays() != nil {
		maxT := cfg.Method.T
		if cfg.Method.RandomLength {
			maxT = 2*cfg.Method.T - 1
		}
		if dl, err = newArraysLoss(cfg.Target, o, maxT, cfg.Method.Inputs, 1); err != nil {
			return nil, err
		}
	}
	grad := make([]float64, len(net.Theta))
	for epoch := len(man.History); epoch < cfg.Solver.Epochs; epoch++ {
		if cfg.Run.Stop != nil && cfg.Run.Stop() {
			return nil, fmt.Errorf("banert: %w after %d epochs: the checkpoint in %s holds them", checkpoint.ErrInterrupted, len(man.History), cfg.Run.Dir)
		}
		start := time.Now()
		rng := rand.New(rand.NewPCG(cfg.Problem.Seed, uint64(epoch)+1))
		var sum float64
		for _, k := range rng.Perm(o.N) {
			length := cfg.Method.T
			if cfg.Method.RandomLength {
				length += rng.IntN(cfg.Method.T)
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
				if tg, err = BuildTrainingGraph(o, length, cfg.Method.Inputs); err != nil {
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
		if cfg.Run.Dir != "" {
			if err := save(cfg.Run.Dir, man, net, opt); err != nil {
				return nil, err
			}
		}
		if cfg.Run.Progress != nil {
			cfg.Run.Progress(info)
		}
		if cfg.Run.MaxSeconds > 0 {
			spent := 0.0
			for _, h := range man.History {
				spent += h.Seconds
			}
			if spent >= cfg.Run.MaxSeconds {
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

// deviceLossAndGradient evaluates the loss on array operations of length
// iterations on function k with parameters theta.
func deviceLossAndGradient(dl arraysLoss, o *problem.Objective, length, k int, theta, grad []float64) (float64, error) {
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
