package greedy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/greedyl2o/greedyl2o/models"
	"github.com/sbinet/npyio"
)

// ErrCannotResume marks a resume refused because the checkpoint was made by
// another configuration (problem, conventions, method, …) or cannot be read:
// a user error, not a failed run. Test with errors.Is.
var ErrCannotResume = errors.New("cannot resume")

// FormatVersion identifies the checkpoint layout.
const FormatVersion = "greedyl2o-greedy/1"

// Manifest describes a greedy training run and its completed steps. It is the
// commit point of a checkpoint: a step exists once the manifest lists it.
type Manifest struct {
	Format   string `json:"format"`
	Problem  string `json:"problem"`
	Operator string `json:"operator"`
	// Conventions are the problem's unstated choices the parameters were
	// trained under (models.Conventions, e.g. the blur's boundary).
	Conventions models.Conventions `json:"conventions,omitempty"`
	Regular     string             `json:"regularizer"`
	Alpha       float64            `json:"alpha"`
	H           int                `json:"height"`
	W           int                `json:"width"`
	NTrain      int                `json:"n_train"`
	DataHash    string             `json:"data_hash"`
	Seed        int64              `json:"seed"`
	Method      string             `json:"method"`
	Tau         float64            `json:"tau"`
	L           float64            `json:"L"`
	Lambda      string             `json:"lambda"`
	Mu          string             `json:"mu"`
	Inner       string             `json:"inner"`
	// InnerSettings are the inner solver's budget and step rule (e.g.
	// "nag(iters=1000+1000,rounds=10,step=paper)"), Protocol the named preset
	// the run was configured from ("paper", or "" for individual flags).
	InnerSettings string            `json:"inner_settings,omitempty"`
	Protocol      string            `json:"protocol,omitempty"`
	TolRel        float64           `json:"tol_rel"`
	TolAbs        float64           `json:"tol_abs"`
	MaxSteps      int               `json:"max_steps"`
	Versions      map[string]string `json:"versions"`
	ThetaLen      int               `json:"theta_len"`
	PhiLen        int               `json:"phi_len"`
	// NVal and WeightScales record the validation functions and the
	// candidate multipliers of (λt, μt) (Config.Validation, Config.WeightScales).
	NVal         int        `json:"n_val,omitempty"`
	WeightScales []float64  `json:"weight_scales,omitempty"`
	ValLookahead int        `json:"val_lookahead,omitempty"`
	Steps        []StepInfo `json:"steps"`
	Finished     bool       `json:"finished"`
	StopCause    string     `json:"stop_reason,omitempty"`
}

// StepInfo records one greedy step.
type StepInfo struct {
	T int `json:"t"`
	// Loss is g(θt, φt); RefLoss is g(θ̃, φ̃), the loss of a gradient step.
	Loss    float64 `json:"loss"`
	RefLoss float64 `json:"ref_loss"`
	// BGDMargin is RefLoss − Loss ≥ 0: how much better than gradient descent.
	BGDMargin float64 `json:"bgd_margin"`
	// FellBack is set when the inner solver did worse than (θ̃, φ̃) and the
	// reference was kept.
	FellBack bool `json:"fell_back,omitempty"`
	// MeanF is (1/N) Σ fk(xk^{t+1}); MaxGradNorm is max_k ‖∇fk(xk^t)‖ at the
	// start of the step.
	MeanF       float64 `json:"mean_f"`
	MaxGradNorm float64 `json:"max_grad_norm"`
	// Lambda and Mu are the penalty weights used at this step (after
	// scaling, for relative schedules).
	Lambda float64 `json:"lambda"`
	Mu     float64 `json:"mu"`
	// WeightScale is the multiplier of (λt, μt) chosen by validation, ValF
	// the mean validation objective after the step, and ValScore the
	// objective by which the step was chosen (after ValLookahead repeated
	// applications; ValF without lookahead). With validation functions only.
	WeightScale float64 `json:"weight_scale,omitempty"`
	ValF        float64 `json:"val_f,omitempty"`
	ValScore    float64 `json:"val_score,omitempty"`
	Seconds     float64 `json:"seconds"`
	Evaluations int     `json:"evaluations"`
}

func paramPath(dir, name string, t int) string {
	return filepath.Join(dir, "params", fmt.Sprintf("%s_%05d.npy", name, t))
}

func statePath(dir, name string, t int) string {
	return filepath.Join(dir, "state", fmt.Sprintf("%s_%05d.npy", name, t))
}

// WriteFileAtomic writes data to path through a synced temporary file and a
// rename (then syncs the directory), so a reader sees the old or the new file,
// never a partial one.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteNPY writes v as a one-dimensional float64 .npy file, atomically.
func WriteNPY(path string, v []float64) error {
	var buf bytes.Buffer
	if err := npyio.Write(&buf, v); err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := WriteFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadNPY reads a float64 .npy file written by WriteNPY (any shape, flattened)
// and checks its length when want ≥ 0.
func ReadNPY(path string, want int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s is not a valid .npy file: %w", path, err)
	}
	if r.Header.Descr.Type != "<f8" {
		return nil, fmt.Errorf("checkpoint %s holds %s values, want float64 (<f8)", path, r.Header.Descr.Type)
	}
	n := 1
	for _, d := range r.Header.Descr.Shape {
		n *= d
	}
	if want >= 0 && n != want {
		return nil, fmt.Errorf("checkpoint %s holds %d values, want %d: it belongs to another problem or parametrization", path, n, want)
	}
	out := make([]float64, n)
	if err := r.Read(&out); err != nil {
		return nil, fmt.Errorf("checkpoint %s is truncated or corrupt: %w", path, err)
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("checkpoint %s holds a non-finite value at index %d", path, i)
		}
	}
	return out, nil
}

// WriteManifest writes dir/manifest.json atomically.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "manifest.json"), append(b, '\n'))
}

// ReadCheckpointJSON reads the JSON file name in the checkpoint directory dir
// into v. A missing file is reported as "dir is not a KIND checkpoint" with the
// command that makes one (train, e.g. "l2o train greedy"); a file that does
// not parse is reported as corrupt.
func ReadCheckpointJSON(dir, name, kind, train string, v any) error {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s is not a %s checkpoint: no %s (train one with '%s --out %s')", dir, kind, name, train, dir)
		}
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("checkpoint file %s is corrupt: %w", path, err)
	}
	return nil
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	var m Manifest
	if err := ReadCheckpointJSON(dir, "manifest.json", "greedy", "l2o train greedy", &m); err != nil {
		return nil, err
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("checkpoint manifest %s has format %q, want %q", path, m.Format, FormatVersion)
	}
	if m.Conventions == nil {
		m.Conventions = models.LegacyConventions(m.Operator)
	}
	for i, s := range m.Steps {
		if s.T != i {
			return nil, fmt.Errorf("checkpoint manifest %s: step %d is numbered %d", path, i, s.T)
		}
	}
	return &m, nil
}

// LoadParams reads the parameters of step t from a checkpoint directory.
func LoadParams(dir string, m *Manifest, t int) (theta, phi []float64, err error) {
	if theta, err = ReadNPY(paramPath(dir, "theta", t), m.ThetaLen); err != nil {
		return nil, nil, err
	}
	if m.PhiLen > 0 {
		if phi, err = ReadNPY(paramPath(dir, "phi", t), m.PhiLen); err != nil {
			return nil, nil, err
		}
	}
	return theta, phi, nil
}

func versions() map[string]string {
	return map[string]string{"go": runtime.Version(), "gorgonia": "v0.9.18", "tensor": "v0.9.24", "format": FormatVersion}
}
