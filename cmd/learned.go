package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/greedy"
	"github.com/greedyl2o/greedyl2o/problem"
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
	// Unverified is set for a checkpoint written before checksums were
	// recorded: its parameter files were loaded without verification.
	Unverified bool
}

// noteUnverified tells the user which checkpoints loaded without checksums.
func noteUnverified(env *Env, infos []*LearnedInfo, dirs []string) {
	for i, info := range infos {
		if info.Unverified {
			fmt.Fprintf(env.Stderr, "note: %s predates checksums (written by an older l2o): its parameter files are loaded unverified\n", dirs[i])
		}
	}
}

// safeguarded returns a copy of a greedy-format learned optimizer whose
// steps that raise f are replaced by gradient steps of size τ, or false
// when the optimizer has no such fallback (Banert's has its own safeguard).
func safeguarded(info *LearnedInfo) (baselines.Method, bool) {
	l, ok := info.Method.(*greedy.Learned)
	if !ok || info.Tau <= 0 {
		return nil, false
	}
	c := *l
	c.Safeguard = info.Tau
	c.Label = l.Label + " (safeguarded)"
	return &c, true
}

// learnedLoaders maps a checkpoint format (the "format" field of
// manifest.json) to its loader. Packages that train optimizers register here.
var learnedLoaders = map[string]func(dir string) (*LearnedInfo, error){
	greedy.FormatVersion: func(dir string) (*LearnedInfo, error) {
		l, man, err := greedy.Load(dir)
		if err != nil {
			return nil, err
		}
		return &LearnedInfo{Method: l, Problem: man.Problem, Conventions: man.Conventions, H: man.H, W: man.W, Tau: man.Tau, Unverified: !man.Verified()}, nil
	},
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
	info, err := load(dir)
	if err != nil {
		return nil, asUsage(fmt.Errorf("loading %s: %w", dir, err))
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
		l, ok := info.Method.(*greedy.Learned)
		if !ok || count[l.Label] < 2 {
			continue
		}
		c := *l
		c.Label = fmt.Sprintf("%s [%s]", l.Label, filepath.Base(filepath.Clean(dirs[i])))
		info.Method = &c
	}
}
