package unroll

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/greedyl2o/greedyl2o/baselines"
	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/learned"
	"github.com/greedyl2o/greedyl2o/models"
	"github.com/greedyl2o/greedyl2o/ondevice"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// StateFormat identifies the layout of unroll.json, sealed (its last member
// the SHA-256 of the rest: checkpoint.Seal); legacyStateFormat's files were
// written before states were sealed and are read without a seal.
const (
	StateFormat       = "greedyl2o-unroll/2"
	legacyStateFormat = "greedyl2o-unroll/1"
)

// InnerPrefix starts the manifest's inner-solver field of an unrolled run
// (for example "unrolled(T=10,adam,lr=2e-05,batch=4)").
const InnerPrefix = "unrolled"

// IsUnrolled reports whether a greedy-format manifest was written by unrolled training.
func IsUnrolled(m *checkpoint.Manifest) bool { return strings.HasPrefix(m.Inner, InnerPrefix) }

// State is the content of unroll.json: the unrolled training configuration,
// the completed epochs and the Adam step count. It is the commit point of an
// epoch: the vectors in state/ with its epoch number are valid once it lists
// the epoch.
type State struct {
	Format  string `json:"format"`
	Problem string `json:"problem"`
	// Conventions are the problem's unstated choices (problem.Conventions).
	Conventions problem.Conventions `json:"conventions,omitempty"`
	DataHash    string              `json:"data_hash"`
	// Operator, Alpha and ObservationsHash (checkpoint.SumFloats of the
	// data y) tell the functions apart where DataHash, a hash of the
	// images, does not (blur, angles, α, noise); empty in states written
	// before they were recorded, which resume unchecked.
	Operator         string    `json:"operator,omitempty"`
	Alpha            float64   `json:"alpha,omitempty"`
	ObservationsHash string    `json:"observations_hash,omitempty"`
	NTrain           int       `json:"n_train"`
	H                int       `json:"height"`
	W                int       `json:"width"`
	Method           string    `json:"method"`
	T                int       `json:"T"`
	Tau              float64   `json:"tau"`
	Weights          []float64 `json:"weights"`
	Batch            int       `json:"batch"`
	LearningRate     float64   `json:"learning_rate"`
	Beta1            float64   `json:"beta1"`
	Beta2            float64   `json:"beta2"`
	Eps              float64   `json:"eps"`
	Seed             int64     `json:"seed"`
	EpochsWanted     int       `json:"epochs_wanted"`
	// Device is the kind of Config.Target's device ("cuda") when the loss
	// ran on one (absent: the CPU). Checkpoints of earlier versions record
	// "host" (the array operations on the CPU in float64, a path that no
	// longer runs) and "host32" (the CPU's float32 arrays: Precision
	// float32 now).
	Device string `json:"device,omitempty"`
	// Precision is "float32" when the loss ran on the CPU in float32
	// (absent: float64, or the device's own).
	Precision problem.Precision `json:"precision,omitempty"`
	Epochs    []EpochInfo       `json:"epochs"`
	AdamStep  int               `json:"adam_step"`
	// Checksums holds the SHA-256 (hex) of the state vectors the state
	// commits, by slash-separated path relative to the directory
	// (checkpoint.Manifest.Checksums); nil in checkpoints written before they
	// were recorded, which resume unverified.
	Checksums map[string]string `json:"sha256,omitempty"`
	// Provenance: see checkpoint.Manifest.Provenance.
	Provenance *provenance.Record `json:"provenance,omitempty"`
}

func newState(cfg *Config, o *problem.Objective, l *Loss, tau float64) *State {
	a := optim.NewAdam(0, cfg.Solver.LearningRate)
	s := &State{
		Format: StateFormat, Problem: cfg.Problem.Name, Conventions: o.Conventions, DataHash: cfg.Problem.DataHash, NTrain: o.N, H: o.H, W: o.W,
		Operator: o.A.String(), Alpha: o.Alpha, ObservationsHash: checkpoint.SumFloats(o.Y),
		Method: cfg.Method.Param.Name(), T: cfg.Method.T, Tau: tau, Weights: append([]float64(nil), l.weights...),
		Batch: cfg.Solver.Batch, LearningRate: cfg.Solver.LearningRate, Beta1: a.Beta1, Beta2: a.Beta2, Eps: a.Eps,
		Seed: cfg.Problem.Seed, EpochsWanted: cfg.Solver.Epochs, Device: cfg.Target.Kind(), Provenance: cfg.Problem.Provenance,
	}
	if cfg.Target.OnCPU() && cfg.Target.Prec() == problem.Float32 {
		s.Precision = problem.Float32
	}
	return s
}

// target names the target a state's loss ran on as --device does
// (cpu, cpu32, cuda; execution.ArraysLabel).
func (s *State) target() string { return execution.ArraysLabel(s.Device, s.Precision) }

func (old *State) compatible(cur *State) error {
	type field struct {
		name     string
		old, cur any
	}
	for _, f := range []field{
		{"problem", old.Problem, cur.Problem},
		{"conventions", old.Conventions.String(), cur.Conventions.String()},
		{"data hash", old.DataHash, cur.DataHash},
		{"operator", old.Operator, checkpoint.Recorded(old.Operator, cur.Operator)},
		{"alpha", old.Alpha, checkpoint.Recorded(old.Alpha, cur.Alpha)},
		{"observations hash (the data y: noise, blur, angles)", old.ObservationsHash, checkpoint.Recorded(old.ObservationsHash, cur.ObservationsHash)},
		{"training functions", old.NTrain, cur.NTrain},
		{"image size", fmt.Sprintf("%d×%d", old.H, old.W), fmt.Sprintf("%d×%d", cur.H, cur.W)},
		{"method", old.Method, cur.Method},
		{"T", old.T, cur.T},
		{"tau", old.Tau, cur.Tau},
		{"loss weights", fmt.Sprint(old.Weights), fmt.Sprint(cur.Weights)},
		{"batch size", old.Batch, cur.Batch},
		{"learning rate", old.LearningRate, cur.LearningRate},
		{"seed", old.Seed, cur.Seed},
		{"device", old.target(), cur.target()},
	} {
		if f.old != f.cur {
			return fmt.Errorf("the checkpoint was trained with %s %v, this run asks for %v", f.name, f.old, f.cur)
		}
	}
	return nil
}

func stateFile(name string, epoch int) string { return fmt.Sprintf("state/%s_%05d.npy", name, epoch) }

func statePath(dir, name string, epoch int) string {
	return filepath.Join(dir, filepath.FromSlash(stateFile(name, epoch)))
}

func paramPath(dir, name string, t int) string {
	return filepath.Join(dir, "params", fmt.Sprintf("%s_%05d.npy", name, t))
}

// ReadState reads dir/unroll.json.
func ReadState(dir string) (*State, error) { return readState(dir) }

func readState(dir string) (*State, error) {
	b, err := checkpoint.ReadCheckpointFile(dir, "unroll.json", "unrolled-training", "l2o train unroll")
	if err != nil {
		return nil, err
	}
	return parseState(filepath.Join(dir, "unroll.json"), b)
}

// parseState decodes and checks the content b of the state file path.
func parseState(path string, b []byte) (*State, error) {
	sealed, err := checkpoint.Unseal(path, b)
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("checkpoint file %s is corrupt: %w", path, err)
	}
	switch {
	case s.Format == StateFormat && !sealed:
		return nil, &checkpoint.EditedError{Path: path}
	case s.Format != StateFormat && s.Format != legacyStateFormat:
		return nil, fmt.Errorf("checkpoint state %s has format %q, want %q", path, s.Format, StateFormat)
	}
	if s.AdamStep < 0 || s.T < 0 || s.Batch < 0 || s.H < 0 || s.W < 0 {
		return nil, fmt.Errorf("checkpoint state %s: negative T, batch, image size or Adam step", path)
	}
	if err := checkpoint.CheckChecksumList(s.Checksums); err != nil {
		return nil, fmt.Errorf("checkpoint state %s: %w", path, err)
	}
	return &s, nil
}

// readVectors reads the state vectors of an epoch, verified against sums
// (checkpoint.ReadNPYVerified; nil: unverified).
func readVectors(dir string, epoch, n int, sums map[string]string) (u, m, v []float64, err error) {
	if u, err = checkpoint.ReadNPYVerified(dir, stateFile("u", epoch), n, sums); err != nil {
		return nil, nil, nil, err
	}
	if m, err = checkpoint.ReadNPYVerified(dir, stateFile("adam_m", epoch), n, sums); err != nil {
		return nil, nil, nil, err
	}
	if v, err = checkpoint.ReadNPYVerified(dir, stateFile("adam_v", epoch), n, sums); err != nil {
		return nil, nil, nil, err
	}
	return u, m, v, nil
}

func checkEmpty(dir string) error {
	for _, name := range []string{"manifest.json", "unroll.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("unroll: %s already holds a checkpoint: use --resume to continue it or choose another --out", dir)
		}
	}
	return nil
}

// save writes the checkpoint of the completed epochs: the state vectors, then
// unroll.json (the commit point), then the parameters in the greedy layout and
// the manifest, then removes the previous epoch's state vectors.
func save(dir string, st *State, o *problem.Objective, l *Loss, u []float64, adam *optim.Adam, finished bool) error {
	e := len(st.Epochs)
	st.Checksums = map[string]string{}
	for _, f := range []struct {
		name string
		v    []float64
	}{{"u", u}, {"adam_m", adam.M}, {"adam_v", adam.V}} {
		sum, err := checkpoint.WriteNPYSum(statePath(dir, f.name, e), f.v)
		if err != nil {
			return err
		}
		st.Checksums[stateFile(f.name, e)] = sum
	}
	st.Format = StateFormat
	b, err := checkpoint.MarshalSealed(st)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "unroll.json"), b); err != nil {
		return fmt.Errorf("writing checkpoint state: %w", err)
	}
	theta, phi := l.Split(u)
	sums := map[string]string{}
	for t := range theta {
		sum, err := checkpoint.WriteNPYSum(paramPath(dir, "theta", t), theta[t])
		if err != nil {
			return err
		}
		sums[checkpoint.ParamFile("theta", t)] = sum
		if phi != nil {
			if sum, err = checkpoint.WriteNPYSum(paramPath(dir, "phi", t), phi[t]); err != nil {
				return err
			}
			sums[checkpoint.ParamFile("phi", t)] = sum
		}
	}
	steps, err := l.trajectory(o, theta, phi, st.Tau)
	if err != nil {
		return err
	}
	pversions, err := models.Versions(l.method)
	if err != nil {
		return err
	}
	man := &checkpoint.Manifest{
		Format: checkpoint.FormatVersion, Problem: st.Problem, Operator: o.A.String(), Conventions: o.Conventions, Regular: o.Reg.String(),
		Alpha: o.Alpha, H: o.H, W: o.W, NTrain: o.N, DataHash: st.DataHash, Seed: st.Seed,
		Method: st.Method, ParamVersions: pversions, Tau: st.Tau, L: o.L, Lambda: "0", Mu: "0",
		Inner:    fmt.Sprintf("%s(T=%d,adam,lr=%g,batch=%d,epochs=%d/%d)", InnerPrefix, st.T, st.LearningRate, st.Batch, e, st.EpochsWanted),
		MaxSteps: st.T,
		Versions: map[string]string{"go": runtime.Version(), "gorgonia": "v0.9.18", "tensor": "v0.9.24", "format": checkpoint.FormatVersion, "unroll": StateFormat},
		ThetaLen: l.ThetaLen(), PhiLen: l.PhiLen(), Steps: steps, Finished: finished, Checksums: sums, Provenance: st.Provenance,
	}
	if finished {
		man.StopCause = fmt.Sprintf("unrolled training: %d epochs completed", e)
	}
	if err := checkpoint.WriteManifest(dir, man); err != nil {
		return err
	}
	if e > 0 {
		for _, name := range []string{"u", "adam_m", "adam_v"} {
			os.Remove(statePath(dir, name, e-1))
		}
	}
	return nil
}

// Trajectory runs the learned optimizer (θt, φt), t < T, on the functions o
// and describes each step as checkpoint.StepInfo: MeanF and Loss are
// (1/N) Σk fk(xk^{t+1}), RefLoss is (1/N) Σk fk(xk^t − τ∇fk(xk^t)) (a gradient
// step from the same iterate), BGDMargin is RefLoss − Loss and MaxGradNorm is
// max_k ‖∇fk(xk^t)‖.
func Trajectory(o *problem.Objective, m models.Method, theta, phi [][]float64, tau float64) ([]checkpoint.StepInfo, error) {
	return trajectory(o, m, theta, phi, tau, execution.Target{})
}

// trajectory is the checkpoint's record of the learned trajectory where the
// loss runs: with a device (Loss.recordOn), the learned iterations and
// every f and ∇f on it (the evaluator Loss.records), so that an epoch's
// record asks the host for no arithmetic of the functions' size; on the
// CPU, Trajectory.
func (l *Loss) trajectory(o *problem.Objective, theta, phi [][]float64, tau float64) ([]checkpoint.StepInfo, error) {
	if l.recordOn == nil {
		return Trajectory(o, l.method, theta, phi, tau)
	}
	if l.records == nil {
		be, err := ondevice.NewBatchEvaluator(l.recordOn, o)
		if err != nil {
			return nil, fmt.Errorf("unroll: the trajectory's record: %w", err)
		}
		l.records = be
	}
	return trajectory(o.OnEvaluator(l.records), l.method, theta, phi, tau, execution.OnDevice(l.recordOn))
}

// trajectory is Trajectory with the learned iterations on target.
func trajectory(o *problem.Objective, m models.Method, theta, phi [][]float64, tau float64, target execution.Target) (_ []checkpoint.StepInfo, err error) {
	opt, err := learned.New("unrolled "+m.Name(), m, o.H, o.W, theta, phi)
	if err != nil {
		return nil, err
	}
	opt.Target = target
	it, err := opt.Start(o)
	if err != nil {
		return nil, err
	}
	if c, ok := it.(io.Closer); ok {
		defer func() {
			if cerr := c.Close(); err == nil {
				err = cerr
			}
		}()
	}
	hw := o.ImageLen()
	grad := make([]float64, o.N*hw)
	step := make([]float64, o.N*hw)
	ws := &problem.Workspace{}
	var out []checkpoint.StepInfo
	for t := range theta {
		x := it.X()
		if err := o.Eval(nil, grad, x, ws); err != nil {
			return nil, err
		}
		info := checkpoint.StepInfo{T: t}
		for k := 0; k < o.N; k++ {
			gk := grad[k*hw : (k+1)*hw]
			info.MaxGradNorm = math.Max(info.MaxGradNorm, math.Sqrt(kernels.Dot(gk, gk)))
		}
		for i := range step {
			step[i] = x[i] - tau*grad[i]
		}
		if info.RefLoss, err = o.Mean(step); err != nil {
			return nil, err
		}
		if err := it.Next(); err != nil {
			return nil, fmt.Errorf("unroll: learned trajectory: %w", err)
		}
		if info.MeanF, err = meanAfter(it, o); err != nil {
			return nil, err
		}
		info.Loss = info.MeanF
		info.BGDMargin = info.RefLoss - info.Loss
		out = append(out, info)
	}
	return out, nil
}

// meanAfter is the mean objective at the iterator's iterates: the sum its
// last iteration read back where it evaluates them (learned.Evaluated: on a
// device, with no copy of the iterates), or o's mean at them.
func meanAfter(it baselines.Iterator, o *problem.Objective) (float64, error) {
	ev, ok := it.(learned.Evaluated)
	if !ok {
		return o.Mean(it.X())
	}
	sum, err := ev.Evaluated(make([]float64, o.N))
	return sum / float64(o.N), err
}

// Load opens the learned optimizer of an unrolled (or greedy) checkpoint
// directory, labelled "unrolled METHOD" when the run was unrolled.
func Load(dir string) (*learned.Optimizer, *checkpoint.Manifest, error) {
	l, man, err := learned.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	if IsUnrolled(man) {
		l.Label = "unrolled " + man.Method
	}
	return l, man, nil
}

func writeFileAtomic(path string, data []byte) error { return checkpoint.WriteFileAtomic(path, data) }
