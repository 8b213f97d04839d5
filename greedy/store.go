package greedy

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// store keeps a run's steps as Config.Store says: the manifest (man) and,
// in Dir, the checkpoint committed after every step.
type store struct {
	Store
	man *checkpoint.Manifest
	// written remembers the states of the last step saved (saveStep).
	written *writtenStates
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
	if st.written == nil {
		st.written = newWrittenStates()
	}
	return saveStep(st.Dir, st.man, st.written, s.Info.T, s.Theta, s.Phi, x, xprev, s.XVal, s.XValPrev)
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
// manifest with their checksums, then removes the previous state. seen
// (nil: none) remembers the iterates written, so that those of the step
// before are linked instead of written again (linkUnchanged).
func saveStep(dir string, man *checkpoint.Manifest, seen *writtenStates, t int, theta, phi, x, xprev, xval, xvalprev []float64) error {
	if man.Checksums == nil {
		man.Checksums = map[string]string{}
	}
	type file struct {
		rel string
		v   []float64
	}
	files := []file{{checkpoint.ParamFile("theta", t), theta}}
	if len(phi) > 0 {
		files = append(files, file{checkpoint.ParamFile("phi", t), phi})
	}
	nParams := len(files)
	states := [][]float64{x, xprev, xval, xvalprev}
	for i, name := range checkpoint.StateNames {
		rel := checkpoint.StateFile(name, t+1)
		switch {
		case states[i] == nil:
		case seen.linkUnchanged(dir, man, name, t, rel, states[i]):
		default:
			files = append(files, file{rel, states[i]})
		}
	}
	for i, f := range files {
		write := checkpoint.WriteNPYSum
		if i >= nParams {
			// Iterates computed in float32 (a float32 device, --precision
			// float32) are kept as float32s, the same numbers.
			write = checkpoint.WriteNPYSumCompact
		}
		sum, err := write(filepath.Join(dir, filepath.FromSlash(f.rel)), f.v)
		if err != nil {
			return err
		}
		man.Checksums[f.rel] = sum
	}
	seen.remember(t+1, states)
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

// writtenStates remembers a fingerprint (maphash, 64 bits) of each state
// file saveStep wrote or linked for the last step: the iterates before a
// step are those after the step before, and a fingerprint tells so for a
// fraction of the cost of the SHA-256 a written file needs.
type writtenStates struct {
	seed  maphash.Seed
	t     int
	print map[string]uint64
}

func newWrittenStates() *writtenStates {
	return &writtenStates{seed: maphash.MakeSeed(), print: map[string]uint64{}}
}

func (w *writtenStates) fingerprint(v []float64) uint64 {
	if len(v) == 0 {
		return maphash.Bytes(w.seed, nil)
	}
	return maphash.Bytes(w.seed, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v)))
}

// remember records the fingerprints of step t's states (nil ones none).
func (w *writtenStates) remember(t int, states [][]float64) {
	if w == nil {
		return
	}
	w.t = t
	clear(w.print)
	for i, name := range checkpoint.StateNames {
		if states[i] != nil {
			w.print[name] = w.fingerprint(states[i])
		}
	}
}

// linkUnchanged commits v as the state file rel of step t+1 by a hard link
// to the file of step t that holds the same values (stateBefore: same
// length and fingerprint), where the file system links, and reports
// whether it did.
func (w *writtenStates) linkUnchanged(dir string, man *checkpoint.Manifest, name string, t int, rel string, v []float64) bool {
	src, ok := stateBefore[name]
	if w == nil || !ok || w.t != t {
		return false
	}
	srcRel := checkpoint.StateFile(src, t)
	sum, ok := man.Checksums[srcRel]
	if print, seen := w.print[src]; !ok || !seen || print != w.fingerprint(v) {
		return false
	}
	from, to := filepath.Join(dir, filepath.FromSlash(srcRel)), filepath.Join(dir, filepath.FromSlash(rel))
	if checkpoint.LinkAtomic(from, to) != nil {
		return false
	}
	man.Checksums[rel] = sum
	return true
}
