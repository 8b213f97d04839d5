package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/greedyl2o/greedyl2o/baselines/banert"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/problem"
)

func init() {
	register(&Command{Name: "train banert", Summary: "train the Banert et al. baseline by unrolling T iterations (checkpoints, --resume)", Run: runTrainBanert})
	learnedLoaders[banert.FormatVersion] = loadBanert
	learnedLoaders[banert.LegacyFormat] = loadBanert
}

// loadBanert loads a Banert checkpoint.
func loadBanert(dir string) (*LearnedInfo, error) {
	m, man, err := banert.Load(dir)
	if err != nil {
		return nil, err
	}
	var secs float64
	for _, ep := range man.History {
		secs += ep.Seconds
	}
	return &LearnedInfo{Method: m, Problem: man.Problem, Conventions: man.Conventions, H: man.H, W: man.W, Unverified: man.Checksums == nil, TrainSeconds: secs,
		Provenance: man.Provenance, NTrain: man.NTrain, Seed: int64(man.Seed), ManifestSHA256: man.SHA256, Steps: man.T}, nil
}

// banertBanner checks the network operations of the target, if it runs on
// them, and prints what is trained, on what, and the table's header.
func banertBanner(env *Env, pf *problemFlags, prob *problem.Problem, train *problem.Objective, inputs, T int, out string) error {
	if arrays := pf.target.Arrays(); arrays != nil {
		if err := banert.CheckTarget(pf.target, train, inputs); err != nil {
			return usagef("--device %s: %v", pf.Device, err)
		}
		fmt.Fprintf(env.Stdout, "on %s (float%d): the unrolled loss and its gradient by a reverse pass on the network operations\n", arrays.Name(), 8*arrays.ValueSize())
	}
	fmt.Fprintf(env.Stdout, "training Banert (%d inputs, %d parameters, T = %d) on %d %s functions (%d×%d, L = %.4g) → %s\n",
		inputs, banert.NumParams(inputs), T, train.N, prob.Name, prob.H, prob.W, train.L, out)
	fmt.Fprintf(env.Stdout, "%6s %16s %10s %12s\n", "epoch", "mean f(x^T)", "seconds", "s/step")
	return nil
}

func runTrainBanert(env *Env, args []string) error {
	var pf problemFlags
	fs := newFlags(env, "train banert", "train banert --problem deblur --data DIR|synthetic --T 10 --epochs E --banert-inputs 3|4 --out DIR [--resume]")
	pf.add(fs, 25, -1)
	T := fs.Int("T", 10, "number of unrolled iterations")
	randomLength := fs.Bool("random-length", false, "unroll a random length in [T, 2T−1] at every step, as the original code does")
	epochs := fs.Int("epochs", 100, "passes over the training functions (one Adam step per function)")
	maxMinutes := fs.Float64("max-minutes", 0, "stop after the epoch at which the training time reaches this many minutes (0: no budget; --resume continues)")
	inputs := fs.Int("banert-inputs", 3, "network input channels: 3 ([x, ∇f, Δ]) or 4 ([x, ∇f_data, ∇f_reg, Δ])")
	lr := fs.Float64("lr", 1e-3, "Adam learning rate")
	out := fs.String("out", "runs/banert", "checkpoint directory")
	resume := fs.Bool("resume", false, "continue the run in --out from its last completed epoch")
	args, err := resumeArgs(fs, "train banert", args)
	if err != nil {
		return err
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if *maxMinutes < 0 {
		return usagef("--max-minutes must be ≥ 0, got %g", *maxMinutes)
	}
	if pf.NTrain < 1 {
		return usagef("--n-train must be at least 1")
	}
	if *T < 1 || *epochs < 1 {
		return usagef("--T and --epochs must be at least 1 (got %d and %d)", *T, *epochs)
	}
	if *inputs != 3 && *inputs != 4 {
		return usagef("--banert-inputs %d: use 3 or 4", *inputs)
	}
	if !(*lr > 0) || *lr > 1 {
		return usagef("--lr %g: use a learning rate in (0, 1]", *lr)
	}
	lock, err := claimCheckpointDir(*out, *resume, "manifest.json")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if *resume {
		if man, err := banert.ReadManifest(*out); err == nil {
			fmt.Fprintf(env.Stdout, "resuming %s after %d completed epochs (of %d)\n", *out, len(man.History), *epochs)
		}
	}
	pf.acceptsOps, pf.acceptsFloat32, pf.oneOperator = true, true, true
	sp, err := pf.buildSplit(nil)
	if err != nil {
		return err
	}
	prob, train := sp.prob, sp.train
	if err := banertBanner(env, &pf, prob, train, *inputs, *T, *out); err != nil {
		return err
	}
	start := time.Now()
	intr := catchInterrupts(env, *out, resumeCommand("train banert", args))
	defer intr.release()
	cfg := banert.Config{
		Problem: banert.Problem{Name: prob.Name, DataHash: dataHash(train), Seed: uint64(pf.Seed), Provenance: env.trainingProvenance(sp, 0)},
		Method:  banert.MethodConfig{Inputs: *inputs, T: *T, RandomLength: *randomLength},
		Target:  pf.target,
		Solver:  banert.Solver{Epochs: *epochs, LearningRate: *lr},
		Run: banert.Run{Dir: *out, Resume: *resume, MaxSeconds: *maxMinutes * 60, Stop: intr.Stop,
			Progress: func(e banert.EpochInfo) {
				fmt.Fprintf(env.Stdout, "%6d %16.8g %10.2f %12.4f\n", e.Epoch, e.MeanLoss, e.Seconds, e.StepSeconds)
			}},
	}
	if _, err := banert.Train(train, cfg); err != nil {
		if errors.Is(err, checkpoint.ErrInterrupted) {
			return intr.interrupted(err.Error())
		}
		return resumeUsage(err)
	}
	fmt.Fprintf(env.Stdout, "done in %.1f s; network in %s\n", time.Since(start).Seconds(), *out)
	return nil
}
