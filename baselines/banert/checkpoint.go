package banert

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/execution"
	"github.com/greedyl2o/greedyl2o/optim"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// FormatVersion identifies the checkpoint layout: a sealed manifest
// (checkpoint.Seal), refused by every reader after any edit.
const FormatVersion = "greedyl2o-banert/2"

// LegacyFormat is the layout before manifests were sealed, read as it is.
const LegacyFormat = "greedyl2o-banert/1"

// Manifest describes a Banert training run. It is the commit point of a
// checkpoint: the parameters of the last epoch listed in History are in the
// files it names.
type Manifest struct {
	Format   string `json:"format"`
	Problem  string `json:"problem"`
	Operator string `json:"operator"`
	// Conventions are the problem's unstated choices (problem.Conventions).
	Conventions problem.Conventions `json:"conventions,omitempty"`
	Regularizer string              `json:"regularizer"`
	Alpha       float64             `json:"alpha"`
	H           int                 `json:"h"`
	W           int                 `json:"w"`
	NTrain      int                 `json:"n_train"`
	DataHash    string              `json:"data_hash"`
	// ObservationsHash is checkpoint.SumFloats of the training functions'
	// data y (noise included, which DataHash, a hash of the images, does not
	// see); empty in checkpoints written before it was recorded.
	ObservationsHash string  `json:"observations_hash,omitempty"`
	Seed             uint64  `json:"seed"`
	Inputs           int     `json:"inputs"`
	NumParams        int     `json:"num_params"`
	T                int     `json:"T"`
	RandomLength     bool    `json:"random_length"`
	LearningRate     float64 `json:"learning_rate"`
	Epochs           int     `json:"epochs"`
	AdamSteps        int     `json:"adam_steps"`
	// Device is the kind of Config.Target's device ("cuda") when the loss
	// ran on one; empty on the CPU. Manifests of earlier versions record
	// "host" (the network operations on the CPU in float64, a path that no
	// longer runs) and "host32" (the CPU's float32 arrays: Precision float32
	// now).
	Device string `json:"device,omitempty"`
	// Precision is "float32" when the loss ran on the CPU in float32
	// (absent: float64, or the device's own).
	Precision problem.Precision `json:"precision,omitempty"`
	// Params, AdamM and AdamV are .npy files (flat float64) in the directory.
	Params   string            `json:"params"`
	AdamM    string            `json:"adam_m"`
	AdamV    string            `json:"adam_v"`
	History  []EpochInfo       `json:"history"`
	Software map[string]string `json:"software"`
	// Checksums holds the SHA-256 (hex) of Params, AdamM and AdamV by file
	// name (checkpoint.Manifest.Checksums); nil in checkpoints written before
	// they were recorded, which load unverified.
	Checksums map[string]string `json:"sha256,omitempty"`
	// Provenance: see checkpoint.Manifest.Provenance.
	Provenance *provenance.Record `json:"provenance,omitempty"`
	// SHA256 is the SHA-256 of the manifest as read (not written).
	SHA256 string `json:"-"`
}

func newManifest(o *problem.Objective, cfg Config) *Manifest {
	m := &Manifest{
		Format: FormatVersion, Problem: cfg.Problem.Name, Operator: o.A.String(), Conventions: o.Conventions, Regularizer: o.Reg.String(),
		Alpha: o.Alpha, H: o.H, W: o.W, NTrain: o.N, DataHash: cfg.Problem.DataHash, Seed: cfg.Problem.Seed,
		ObservationsHash: checkpoint.SumFloats(o.Y), Inputs: cfg.Method.Inputs, NumParams: NumParams(cfg.Method.Inputs), T: cfg.Method.T, RandomLength: cfg.Method.RandomLength,
		LearningRate: cfg.Solver.LearningRate, Device: cfg.Target.Kind(), Provenance: cfg.Problem.Provenance,
		Software: map[string]string{"go": runtime.Version(), "gorgonia": "v0.9.18", "format": FormatVersion},
	}
	if cfg.Target.OnCPU() && cfg.Target.Prec() == problem.Float32 {
		m.Precision = problem.Float32
	}
	return m
}

// target names the target a manifest's loss ran on as --device does
// (cpu, cpu32, cuda; execution.ArraysLabel).
func (m *Manifest) target() string { return execution.ArraysLabel(m.Device, m.Precision) }

func manifestExists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil
}

// save writes the parameters and the Adam state under names that carry the
// epoch, then the manifest (the commit), then removes the previous files.
func save(dir string, man *Manifest, net *Network, opt *optim.Adam) error {
	old := []string{man.Params, man.AdamM, man.AdamV}
	e := len(man.History)
	files := []struct {
		name *string
		v    []float64
	}{{&man.Params, net.Theta}, {&man.AdamM, opt.M}, {&man.AdamV, opt.V}}
	next := *man
	next.Checksums = map[string]string{}
	for i, f := range files {
		name := fmt.Sprintf("%s_%05d.npy", []string{"params", "adam_m", "adam_v"}[i], e)
		sum, err := checkpoint.WriteNPYSum(filepath.Join(dir, name), f.v)
		if err != nil {
			return fmt.Errorf("banert: checkpoint: %w", err)
		}
		next.Checksums[name] = sum
		switch i {
		case 0:
			next.Params = name
		case 1:
			next.AdamM = name
		case 2:
			next.AdamV = name
		}
	}
	next.Format = FormatVersion
	b, err := checkpoint.MarshalSealed(&next)
	if err != nil {
		return fmt.Errorf("banert: checkpoint manifest: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, "manifest.json"), b); err != nil {
		return fmt.Errorf("banert: checkpoint manifest: %w", err)
	}
	*man = next
	for _, f := range old {
		if f != "" && f != man.Params && f != man.AdamM && f != man.AdamV {
			os.Remove(filepath.Join(dir, f))
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error { return checkpoint.WriteFileAtomic(path, data) }

// ReadManifest reads and checks dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := checkpoint.ReadCheckpointFile(dir, "manifest.json", "Banert", "l2o train banert")
	if err != nil {
		return nil, err
	}
	return parseManifest(dir, filepath.Join(dir, "manifest.json"), b)
}

// parseManifest decodes and checks the content b of the manifest file path
// of the checkpoint directory dir.
func parseManifest(dir, path string, b []byte) (*Manifest, error) {
	sealed, err := checkpoint.Unseal(path, b)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("checkpoint file %s is corrupt: %w", path, err)
	}
	switch {
	case m.Format == FormatVersion && !sealed:
		return nil, &checkpoint.EditedError{Path: path}
	case m.Format != FormatVersion && m.Format != LegacyFormat:
		return nil, fmt.Errorf("checkpoint manifest %s has format %q, want %q", path, m.Format, FormatVersion)
	}
	m.SHA256 = checkpoint.Sum(b)
	if m.Conventions == nil {
		m.Conventions = problem.LegacyConventions(m.Operator)
	}
	if err := checkInputs(m.Inputs); err != nil {
		return nil, fmt.Errorf("checkpoint manifest %s: %w", path, err)
	}
	if m.NumParams != NumParams(m.Inputs) {
		return nil, fmt.Errorf("checkpoint manifest %s: %d parameters, want %d for %d inputs", path, m.NumParams, NumParams(m.Inputs), m.Inputs)
	}
	if len(m.History) == 0 || m.Params == "" {
		return nil, fmt.Errorf("checkpoint %s has no completed epoch yet", dir)
	}
	for _, f := range []string{m.Params, m.AdamM, m.AdamV} {
		// A plain file name: no separator of any system (a backslash
		// would leave the directory on Windows), not . or ..
		if !fs.ValidPath(f) || strings.ContainsAny(f, `/\`) || f == "." {
			return nil, fmt.Errorf("checkpoint manifest %s names the file %q outside its directory", path, f)
		}
	}
	if err := checkpoint.CheckChecksumList(m.Checksums); err != nil {
		return nil, fmt.Errorf("checkpoint manifest %s: %w", path, err)
	}
	return &m, nil
}

// Load reads a trained network from a checkpoint directory.
func Load(dir string) (*Method, *Manifest, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	theta, err := checkpoint.ReadNPYVerified(dir, man.Params, man.NumParams, man.Checksums)
	if err != nil {
		return nil, nil, err
	}
	return &Method{Net: &Network{Inputs: man.Inputs, Theta: theta}, Label: label(man.T, man.Inputs)}, man, nil
}

// resume loads the state of the run in dir into net and opt after checking
// that it was trained with the settings of want.
func resume(dir string, want *Manifest, net *Network, opt *optim.Adam) (*Manifest, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("banert: %w %s: %w", checkpoint.ErrCannotResume, dir, err)
	}
	type field struct {
		name      string
		got, want any
	}
	for _, f := range []field{
		{"problem", man.Problem, want.Problem}, {"conventions", man.Conventions.String(), want.Conventions.String()},
		{"image size", fmt.Sprintf("%d×%d", man.H, man.W), fmt.Sprintf("%d×%d", want.H, want.W)},
		{"operator", man.Operator, want.Operator}, {"regularizer", man.Regularizer, want.Regularizer}, {"alpha", man.Alpha, want.Alpha},
		{"observations hash (the data y: noise, blur, angles)", man.ObservationsHash, checkpoint.Recorded(man.ObservationsHash, want.ObservationsHash)},
		{"training functions", man.NTrain, want.NTrain}, {"data hash", man.DataHash, want.DataHash},
		{"seed", man.Seed, want.Seed}, {"inputs", man.Inputs, want.Inputs}, {"T", man.T, want.T},
		{"random length", man.RandomLength, want.RandomLength}, {"learning rate", man.LearningRate, want.LearningRate},
		{"--device", man.target(), want.target()},
	} {
		if f.got != f.want {
			return nil, fmt.Errorf("banert: %w %s: it was trained with %s %v, this run asks for %v", checkpoint.ErrCannotResume, dir, f.name, f.got, f.want)
		}
	}
	n := len(net.Theta)
	read := func(name string) ([]float64, error) {
		v, err := checkpoint.ReadNPYVerified(dir, name, n, man.Checksums)
		if err != nil {
			return nil, fmt.Errorf("banert: %w %s: %w", checkpoint.ErrCannotResume, dir, err)
		}
		return v, nil
	}
	if net.Theta, err = read(man.Params); err != nil {
		return nil, err
	}
	if opt.M, err = read(man.AdamM); err != nil {
		return nil, err
	}
	if opt.V, err = read(man.AdamV); err != nil {
		return nil, err
	}
	opt.Step = man.AdamSteps
	return man, nil
}
