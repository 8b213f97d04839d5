package cmd

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/unroll"
)

func init() {
	register(&Command{Name: "train unroll", Summary: "unrolled training of T iterations with Adam, checkpoints and --resume", Run: runTrainUnroll})
	// Unrolled checkpoints use the greedy layout; label them as unrolled.
	for _, format := range greedyFormats {
		learnedLoaders[format] = loadUnrolledOrGreedy
	}
}

// loadUnrolledOrGreedy loads a checkpoint of the greedy layout, labelled as
// unrolled when unrolled training wrote it.
func loadUnrolledOrGreedy(dir string) (*LearnedInfo, error) {
	info, man, err := loadGreedy(dir)
	if err != nil {
		return nil, err
	}
	if l, ok := info.Method.(*learned.Optimizer); ok && unroll.IsUnrolled(man) {
		l.Label = "unrolled " + man.Method
		info.TrainSeconds = 0
		if st, err := unroll.ReadState(dir); err == nil {
			for _, ep := range st.Epochs {
				info.TrainSeconds += ep.Seconds
			}
		}
	}
	return info, nil
}

func runTrainUnroll(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "train unroll", "train unroll --problem deblur --data DIR|synthetic --param m-pc --T 10 --lr 2e-5 --batch 4 --epochs E --out DIR [--resume]")
	pf.add(fs, 25, -1)
	paramName := fs.String("param", "m-pc", "parametrization, a registered name (l2o param list): ps, pp, pc, pcK[-boundary], pf; m- prefix learns momentum; G:H pairs types")
	steps := fs.Int("T", 10, "number of unrolled iterations")
	lr := fs.Float64("lr", unroll.DefaultLearningRate, "Adam learning rate")
	batch := fs.Int("batch", 4, "mini-batch size (functions per Adam step)")
	epochs := fs.Int("epochs", 10, "passes over the training set")
	maxMinutes := fs.Float64("max-minutes", 0, "stop after the epoch at which the training time reaches this many minutes (0: no budget; --resume continues)")
	tau := fs.Float64("tau", 0, "reference step τ of the initial G = τI (0: 1/L)")
	weights := fs.String("weights", "1", "loss weights ω1..ωT: one value for all, or T comma-separated values")
	out := fs.String("out", "runs/unroll", "checkpoint directory")
	resume := fs.Bool("resume", false, "continue the run in --out after its last completed epoch")
	args, err := resumeArgs(fs, "train unroll", args)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkUnrollFlags(pf.NTrain, *steps, *epochs, *batch, *lr, *tau, *maxMinutes); err != nil {
		return err
	}
	w, err := parseWeights(*weights, *steps)
	if err != nil {
		return err
	}
	method, err := models.ParseMethod(*paramName)
	if err != nil {
		return asUsage(err)
	}
	lock, err := claimCheckpointDir(*out, *resume, "manifest.json", "unroll.json")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	pf.acceptsOps, pf.acceptsFloat32, pf.oneOperator = true, true, true
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return err
	}
	prob, train := sp.prob, sp.train
	if err := method.CheckSize(train.H, train.W); err != nil {
		return usagef("--param %s: %v", *paramName, err)
	}
	if *tau >= 2/train.L {
		return usagef("--tau %g ≥ 2/L = %.4g (L = %.4g of the training functions): gradient steps of this size do not decrease f; use --tau 0 (1/L) or a smaller τ", *tau, 2/train.L, train.L)
	}
	if err := unrollBanner(env, &pf, method, sp.prob, train, *steps, *lr, *batch, *epochs, *out, *resume); err != nil {
		return err
	}
	start := time.Now()
	intr := catchInterrupts(env, *out, resumeCommand("train unroll", args))
	defer intr.release()
	res, err := unroll.Train(train, unroll.Config{
		Problem: unroll.Problem{Name: prob.Name, DataHash: dataHash(train), Seed: pf.Seed, Provenance: env.trainingProvenance(sp, 0)},
		Method:  unroll.Method{Param: method, T: *steps, Tau: *tau, Weights: w},
		Target:  pf.target,
		Solver:  unroll.Solver{LearningRate: *lr, Batch: *batch, Epochs: *epochs},
		Run: unroll.Run{Dir: *out, Resume: *resume, MaxSeconds: *maxMinutes * 60, Stop: intr.Stop,
			Progress: func(e unroll.EpochInfo) {
				fmt.Fprintf(env.Stdout, "%6d %8d %14.8g %14.8g %9.2f %11.4f %10.1f\n", e.Epoch, e.Batches, e.MeanLoss, e.MeanFinal, e.Seconds, e.SecondsPerStep, float64(e.HeldBytes)/1e6)
			}},
	})
	if errors.Is(err, checkpoint.ErrInterrupted) {
		return intr.interrupted(err.Error())
	}
	if err != nil {
		return resumeUsage(err)
	}
	fmt.Fprintf(env.Stdout, "done: %d epochs (%d Adam steps) in %.1f s; parameters in %s (run them with 'l2o apply --params %s')\n",
		len(res.Epochs), res.AdamSteps, time.Since(start).Seconds(), *out, *out)
	return nil
}

// checkUnrollFlags refuses train unroll's numbers out of range, before any
// data is built.
func checkUnrollFlags(nTrain, steps, epochs, batch int, lr, tau, maxMinutes float64) error {
	if maxMinutes < 0 {
		return usagef("--max-minutes must be ≥ 0, got %g", maxMinutes)
	}
	if nTrain < 1 {
		return usagef("--n-train must be at least 1")
	}
	if steps < 1 || epochs < 1 || batch < 1 {
		return usagef("--T, --epochs and --batch must be at least 1 (got %d, %d, %d)", steps, epochs, batch)
	}
	if batch > nTrain {
		return usagef("--batch %d is larger than --n-train %d", batch, nTrain)
	}
	if !(lr > 0) || math.IsInf(lr, 0) || tau < 0 || math.IsNaN(tau) {
		return usagef("--lr must be positive and --tau ≥ 0")
	}
	return nil
}

// parseWeights reads "1" (all ones), "v" (all v) or T comma-separated weights.
func parseWeights(s string, steps int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 1 && len(parts) != steps {
		return nil, usagef("--weights: %d values for T = %d: give one value or T values", len(parts), steps)
	}
	out := make([]float64, steps)
	for i := range out {
		p := strings.TrimSpace(parts[min(i, len(parts)-1)])
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, usagef("--weights: %q must be a number ≥ 0", p)
		}
		out[i] = v
	}
	if slices.Max(out) == 0 {
		return nil, usagef("--weights %s: every weight is 0, so the loss is 0 and nothing is trained; give a weight > 0", s)
	}
	return out, nil
}

// unrollBanner checks the device and prints what is trained, on what, and
// the table's header.
func unrollBanner(env *Env, pf *problemFlags, method models.Method, prob *problem.Problem, train *problem.Objective, steps int, lr float64, batch, epochs int, out string, resume bool) error {
	if arrays := pf.target.Arrays(); arrays != nil {
		if err := ondevice.CheckObjective(train); err != nil {
			return usagef("--device %s: %v", pf.Device, err)
		}
		fmt.Fprintf(env.Stdout, "on %s (float%d): the loss and its gradient by a reverse pass on the array operations\n", arrays.Name(), 8*arrays.ValueSize())
	}
	fmt.Fprintf(env.Stdout, "unrolled training of %s, T = %d, on %d %s functions (%d×%d, L = %.4g): Adam lr %g, batch %d, %d epochs → %s\n",
		method.Name(), steps, train.N, prob.Name, prob.H, prob.W, train.L, lr, batch, epochs, out)
	if resume {
		if st, err := unroll.ReadState(out); err == nil {
			fmt.Fprintf(env.Stdout, "resuming %s after %d completed epochs (of %d)\n", out, len(st.Epochs), epochs)
		}
	}
	fmt.Fprintf(env.Stdout, "%6s %8s %14s %14s %9s %11s %10s\n", "epoch", "batches", "mean loss", "mean f(x^T)", "seconds", "s/step", "graph MB")
	return nil
}
