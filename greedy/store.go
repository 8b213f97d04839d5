package greedy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// store keeps a run's steps as Config.Store says: the manifest (man) and,
// in Dir, the checkpoint committed after every step.
type store struct {
	Store
	man *checkpoint.Manifest
}

// writes reports whether the run writes its checkpoint (a Dir, not
// ReadOnly).
func (st *store) writes() bool { return st.Dir != "" && !st.ReadOnly }

// refuse marks err as a checkpoint that cannot be resumed.
func (st *store) refuse(err error) error {
	return fmt.Errorf("greedy: %w %s: %w", checkpoint.ErrCannotResume, st.Dir, err)
}

// create refuses a directory that holds a checkpoint and commits the empty
// manifest (nothing without a Dir).
func (st *store) create() error {
	if !st.writes() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "manifest.json")); err == nil {
		return fmt.Errorf("greedy: %s already holds a checkpoint: use --resume to continue it or choose another --out", st.Dir)
	}
	st.man.Checksums = map[string]string{}
	return checkpoint.WriteManifest(st.Dir, st.man)
}

// resume reads the checkpoint in Dir, checks that it was made by the same
// settings and that its committed files are intact, and takes over its
// record: its steps, the target it started on (a run resumed on another
// records its own on the steps it trains: stepTarget), its provenance
// continued by prov. It returns the checkpoint's manifest.
func (st *store) resume(prov *provenance.Record) (old *checkpoint.Manifest, stepTarget string, err error) {
	if st.Dir == "" {
		return nil, "", errors.New("greedy: resume needs a checkpoint directory")
	}
	man := st.man
	if old, err = checkpoint.ReadManifest(st.Dir); err != nil {
		return nil, "", st.refuse(err)
	}
	if err := compatible(old, man); err != nil {
		return nil, "", st.refuse(err)
	}
	if !scaledByReduction(old.Lambda) && !scaledByReduction(old.Mu) {
		// The reduction changed nothing (zero or relative weights): the
		// record keeps what the first steps were trained under.
		man.LossReduction = old.LossReduction
	}
	man.Steps, man.TrainTolSteps, man.RepeatChecks = old.Steps, old.TrainTolSteps, old.RepeatChecks
	if execLabel(man) != execLabel(old) {
		stepTarget = execLabel(man)
	}
	man.Device, man.Precision = old.Device, old.Precision
	man.Provenance = provenance.Continued(old.Provenance, prov)
	// Every committed file is checked before the run builds on it; a
	// checkpoint without checksums gets those of its files as they are.
	switch {
	case old.Checksums != nil:
		if err := checkpoint.VerifyChecksums(st.Dir, old.Checksums); err != nil {
			return nil, "", st.refuse(err)
		}
	case st.writes():
		if err := checkpoint.RecordChecksums(st.Dir, old); err != nil {
			return nil, "", st.refuse(err)
		}
	}
	man.Checksums = old.Checksums
	return old, stepTarget, nil
}

// save writes step s's parameters and state, x and xprev being every
// training function's iterates, and commits the manifest, which lists the
// step already (nothing without a Dir).
func (st *store) save(s *Step, x, xprev []float64) error {
	if !st.writes() {
		return nil
	}
	return saveStep(st.Dir, st.man, s.Info.T, s.Theta, s.Phi, x, xprev, s.XVal, s.XValPrev)
}

// finish marks the run finished with its stop cause and commits the
// manifest.
func (st *store) finish(stop string) error {
	st.man.Finished = true
	st.man.StopCause = stop
	if !st.writes() {
		return nil
	}
	return checkpoint.WriteManifest(st.Dir, st.man)
}

// saveStep writes the parameters and state of step t, then commits the
// manifest with their checksums, then removes the previous state.
func saveStep(dir string, man *checkpoint.Manifest, t int, theta, phi, x, xprev, xval, xvalprev []float64) error {
	if man.Checksums == nil {
		man.Checksums = map[string]string{}
	}
	files := []struct {
		rel string
		v   []float64
	}{{checkpoint.ParamFile("theta", t), theta}}
	if len(phi) > 0 {
		files = append(files, struct {
			rel string
			v   []float64
		}{checkpoint.ParamFile("phi", t), phi})
	}
	states := [][]float64{x, xprev, xval, xvalprev}
	for i, name := range checkpoint.StateNames {
		rel := checkpoint.StateFile(name, t+1)
		switch {
		case states[i] == nil:
		case linkUnchanged(dir, man, name, t, rel, states[i]):
		default:
			files = append(files, struct {
				rel string
				v   []float64
			}{rel, states[i]})
		}
	}
	for _, f := range files {
		sum, err := checkpoint.WriteNPYSum(filepath.Join(dir, filepath.FromSlash(f.rel)), f.v)
		if err != nil {
			return err
		}
		man.Checksums[f.rel] = sum
	}
	for _, name := range checkpoint.StateNames {
		delete(man.Checksums, checkpoint.StateFile(name, t))
	}
	if err := checkpoint.WriteManifest(dir, man); err != nil {
		return err
	}
	for _, name := range checkpoint.StateNames {
		os.Remove(checkpoint.StatePath(dir, name, t))
	}
	return nil
}

// stateBefore names, for the iterates before a step, the state that held
// them after the step before: xprev of step t+1 is x of step t.
var stateBefore = map[string]string{"xprev": "x", "xvalprev": "xval"}

// linkUnchanged commits v as the state file rel of step t+1 by a hard link
// to the file of step t that holds the same values (stateBefore), when its
// checksum says so and the file system links, and reports whether it did.
// It spares the write of a training's iterates every step.
func linkUnchanged(dir string, man *checkpoint.Manifest, name string, t int, rel string, v []float64) bool {
	src, ok := stateBefore[name]
	if !ok {
		return false
	}
	srcRel := checkpoint.StateFile(src, t)
	sum, ok := man.Checksums[srcRel]
	if !ok || sum != checkpoint.SumNPY(v) {
		return false
	}
	from, to := filepath.Join(dir, filepath.FromSlash(srcRel)), filepath.Join(dir, filepath.FromSlash(rel))
	if checkpoint.LinkAtomic(from, to) != nil {
		return false
	}
	man.Checksums[rel] = sum
	return true
}
