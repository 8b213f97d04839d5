package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
	"github.com/greedyl2o/greedyl2o/steploss"
)

// LearnedInfo describes a trained optimizer loaded from a checkpoint directory.
type LearnedInfo struct {
	Method  baselines.Method
	Problem string // problem it was trained on ("" if unknown)
	// Conventions it was trained under (problem.Conventions; nil if unknown).
	Conventions problem.Conventions
	H, W        int // image size it was trained on
	// Tau is the reference step τ of a greedy or unrolled optimizer (0 for
	// others): the gradient step its safeguard falls back to.
	Tau float64
	// L is the smoothness constant of the training functions (0 if not
	// recorded): convergence is certified only for L < 2·L_train's range.
	L float64
	// Unverified is set for a checkpoint written before checksums were
	// recorded: its parameter files were loaded without verification.
	Unverified bool
	// TrainSeconds is the training's recorded wall-clock time (the sum over
	// greedy steps, or over unrolled and Banert epochs); 0 if unknown. The
	// break-even counts of eval divide it by the time saved per problem.
	TrainSeconds float64
	// TrainPrecision is the arithmetic a greedy optimizer was trained in
	// ("" for float64 or not recorded). Learned steps are applied in float64.
	TrainPrecision steploss.Precision
	// TrainNoise is the training functions' noise level as the manifest
	// records it ("" if not recorded; checkpoint.Manifest.Noise).
	TrainNoise string
	// Provenance is the checkpoint's record (nil for checkpoints written
	// before it was recorded); its Data names the training images.
	Provenance *provenance.Record
	// NTrain and Seed are the training split's count and seed as every
	// manifest records them (for checkpoints without Provenance).
	NTrain int
	Seed   int64
	// Checkpoint names the directory, its manifest's SHA-256 and its steps.
	Checkpoint provenance.Checkpoint
	// ManifestSHA256 is the SHA-256 of the manifest as the loader read it
	// and Steps its learned steps (T), for Checkpoint; "" where the loader
	// does not say.
	ManifestSHA256 string
	Steps          int
	// trainerPID is the pid of the run that held the checkpoint's lock
	// while it was read (Checkpoint.Training; 0 if unknown).
	trainerPID int
}

// trainingData is the checkpoint's data record, or nil.
func (info *LearnedInfo) trainingData() *data.Record {
	if info.Provenance == nil {
		return nil
	}
	return info.Provenance.Data
}

// noteUnverified tells the user which checkpoints loaded without checksums.
func noteUnverified(env *Env, infos []*LearnedInfo, dirs []string) {
	for i, info := range infos {
		if info.Checkpoint.Training {
			by := "another l2o process"
			if info.trainerPID > 0 {
				by = fmt.Sprintf("pid %d", info.trainerPID)
			}
			fmt.Fprintf(env.Stderr, "note: %s is being trained (%s holds its lock): its first T = %d steps are used, as its manifest (sha256 %.16s…) listed them when read; the output records both\n",
				dirs[i], by, info.Checkpoint.T, info.Checkpoint.ManifestSHA256)
		}
		if info.Unverified {
			fmt.Fprintf(env.Stderr, "note: %s predates checksums (written by an older l2o): its parameter files are loaded unverified\n", dirs[i])
		}
		if info.TrainPrecision != "" && info.TrainPrecision != steploss.Float64 {
			fmt.Fprintf(env.Stderr, "note: %s was trained in %s; its steps are applied in float64\n", dirs[i], info.TrainPrecision)
		}
	}
}

// safeguarded returns a copy of a greedy-format learned optimizer whose
// steps that raise f are replaced by gradient steps of size τ, or false
// when the optimizer has no such fallback (Banert's has its own safeguard).
func safeguarded(info *LearnedInfo) (baselines.Method, bool) {
	return safeguardedBy(info, learned.SafeguardDecrease)
}

// safeguardedBy is safeguarded under the rule named (greedy.SafeguardDecrease
// or greedy.SafeguardBGD). The copy's label ends in " (safeguarded)" for the
// default rule and " (safeguarded bgd)" for the BGD rule.
func safeguardedBy(info *LearnedInfo, rule string) (baselines.Method, bool) {
	l, ok := info.Method.(*learned.Optimizer)
	if !ok || info.Tau <= 0 {
		return nil, false
	}
	c := *l
	c.Target = execution.Target{} // iterations on the host (eval's evaluator gives f and ∇f from a device)
	c.Safeguard = info.Tau
	c.SafeguardRule = rule
	c.Label = l.Label + " (safeguarded)"
	if rule == learned.SafeguardBGD {
		c.Label = l.Label + " (safeguarded bgd)"
	}
	return &c, true
}

// safeguardFlag is the value of --safeguard in apply and eval: the safeguard
// rules to apply, in the order given. A bare --safeguard is today's rule
// (greedy.SafeguardDecrease), as when the flag was a boolean; "true" means
// it too, and "false" or "none" none. With multi, eval takes a list
// ("decrease,bgd") and evaluates a safeguarded copy for each rule.
type safeguardFlag struct {
	rules []string
	multi bool
}

func (f *safeguardFlag) String() string { return strings.Join(f.rules, ",") }
func (f *safeguardFlag) Type() string   { return "rule" }
func (f *safeguardFlag) Set(s string) error {
	f.rules = nil
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "false", "none", "off":
		return nil
	case "true":
		s = learned.SafeguardDecrease
	}
	for _, part := range strings.Split(s, ",") {
		rule, err := learned.ParseSafeguardRule(part)
		if err != nil || strings.TrimSpace(part) == "" {
			return fmt.Errorf("%q is not a safeguard rule: use %s (or none)", part, strings.Join(learned.SafeguardRules, ", "))
		}
		if !slices.Contains(f.rules, rule) {
			f.rules = append(f.rules, rule)
		}
	}
	if len(f.rules) > 1 && !f.multi {
		return fmt.Errorf("%q: give one safeguard rule", s)
	}
	return nil
}

// addSafeguardFlag defines --safeguard on fs.
func addSafeguardFlag(fs *pflag.FlagSet, multi bool, usage string) *safeguardFlag {
	v := &safeguardFlag{multi: multi}
	fs.VarPF(v, "safeguard", "", usage).NoOptDefVal = learned.SafeguardDecrease
	return v
}

// optionalValue rewrites "--name value" as "--name=value" in args when value
// does not start with '-', for a flag whose value may be left out (bare
// --name): pflag would otherwise take the value for a positional argument,
// which apply and eval refuse anyway.
func optionalValue(args []string, name string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--"+name && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// learnedLoaders maps a checkpoint format (the "format" field of
// manifest.json) to its loader. Packages that train optimizers register here.
var learnedLoaders = map[string]func(dir string) (*LearnedInfo, error){
	checkpoint.FormatVersion: loadGreedyInfo,
	checkpoint.LegacyFormat:  loadGreedyInfo,
}

func loadGreedyInfo(dir string) (*LearnedInfo, error) {
	info, _, err := loadGreedy(dir)
	return info, err
}

// greedyFormats are the formats of the greedy layout's manifests.
var greedyFormats = []string{checkpoint.FormatVersion, checkpoint.LegacyFormat}

// loadGreedy loads a checkpoint of the greedy layout and returns its
// manifest as read.
func loadGreedy(dir string) (*LearnedInfo, *checkpoint.Manifest, error) {
	l, man, err := learned.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	var secs float64
	for _, st := range man.Steps {
		secs += st.Seconds
	}
	return &LearnedInfo{Method: l, Problem: man.Problem, Conventions: man.Conventions, H: man.H, W: man.W, Tau: man.Tau, L: man.L, Unverified: !man.Verified(), TrainSeconds: secs, TrainPrecision: man.Precision,
		Provenance: man.Provenance, NTrain: man.NTrain + man.NVal, Seed: man.Seed, TrainNoise: man.Noise,
		ManifestSHA256: man.SHA256, Steps: len(man.Steps)}, man, nil
}

// loadLearned opens any trained optimizer (greedy, unrolled, Banert) from dir.
func loadLearned(dir string) (*LearnedInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, usagef("%s is not a trained optimizer: %v", dir, err)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, usagef("%s/manifest.json is corrupt: %v", dir, err)
	}
	load, ok := learnedLoaders[head.Format]
	if !ok {
		return nil, usagef("%s holds a checkpoint of unknown format %q", dir, head.Format)
	}
	training, pid := checkpoint.Held(dir)
	info, err := load(dir)
	if err != nil {
		return nil, asUsage(fmt.Errorf("loading %s: %w", dir, err))
	}
	if info.ManifestSHA256 == "" {
		return nil, usagef("%s: its loader did not say which manifest it read", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if !training {
		training, pid = checkpoint.Held(dir)
	}
	info.Checkpoint = provenance.Checkpoint{Label: info.Method.Name(), Path: abs, ManifestSHA256: info.ManifestSHA256, T: info.Steps, Training: training}
	info.trainerPID = pid
	if info.TrainPrecision != "" && info.TrainPrecision != "float64" {
		info.Checkpoint.Precision = string(info.TrainPrecision)
	}
	return info, nil
}

// distinguishLabels appends the checkpoint directory's name to the label of
// every greedy-format optimizer whose label another one shares, so that
// curves of several runs of one method (different λ, say) stay apart.
func distinguishLabels(infos []*LearnedInfo, dirs []string) {
	count := map[string]int{}
	for _, info := range infos {
		count[info.Method.Name()]++
	}
	for i, info := range infos {
		l, ok := info.Method.(*learned.Optimizer)
		if !ok || count[l.Label] < 2 {
			continue
		}
		c := *l
		c.Label = fmt.Sprintf("%s [%s]", l.Label, filepath.Base(filepath.Clean(dirs[i])))
		info.Method = &c
	}
}
