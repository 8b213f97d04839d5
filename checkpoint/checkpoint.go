package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/greedyl2o/greedyl2o/data"
	"github.com/greedyl2o/greedyl2o/kernels"
	"github.com/greedyl2o/greedyl2o/problem"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// ErrCannotResume marks a resume refused because the checkpoint was made by
// another configuration (problem, conventions, method, …) or cannot be read:
// a user error, not a failed run. Test with errors.Is.
var ErrCannotResume = errors.New("cannot resume")

// ErrInterrupted marks a training run stopped at a user's request (Ctrl-C)
// with its checkpoint complete up to its last step: resume it.
var ErrInterrupted = errors.New("interrupted")

// FormatVersion identifies the checkpoint layout: a sealed manifest
// (Seal), refused by every reader after any edit.
const FormatVersion = "greedyl2o-greedy/2"

// LegacyFormat is the layout before manifests were sealed: read as it is
// (Manifest.Sealed false); a resume writes it again as FormatVersion.
const LegacyFormat = "greedyl2o-greedy/1"

// Manifest describes a greedy training run and its completed steps. It is the
// commit point of a checkpoint: a step exists once the manifest lists it.
type Manifest struct {
	Format   string `json:"format"`
	Problem  string `json:"problem"`
	Operator string `json:"operator"`
	// Conventions are the problem's unstated choices the parameters were
	// trained under (problem.Conventions, e.g. the blur's boundary).
	Conventions problem.Conventions `json:"conventions,omitempty"`
	Regular     string              `json:"regularizer"`
	Alpha       float64             `json:"alpha"`
	H           int                 `json:"height"`
	W           int                 `json:"width"`
	NTrain      int                 `json:"n_train"`
	DataHash    string              `json:"data_hash"`
	// ObservationsHash is SumFloats of the training functions' data y
	// (noise, blur and projection angles included, which DataHash, a hash
	// of the images, does not see); empty in checkpoints written before it
	// was recorded, which resume unchecked.
	ObservationsHash string `json:"observations_hash,omitempty"`
	// Noise is the training functions' noise level (problem.Objective.Noise:
	// "0.01", or "A:B" for a family); empty where not recorded.
	Noise  string `json:"noise,omitempty"`
	Seed   int64  `json:"seed"`
	Method string `json:"method"`
	// ParamVersions are the registered versions of the method's
	// parametrization families (models.Versions); nil in checkpoints
	// written before they were recorded, which stands for version 1.
	ParamVersions map[string]int `json:"param_versions,omitempty"`
	Tau           float64        `json:"tau"`
	L             float64        `json:"L"`
	Lambda        string         `json:"lambda"`
	Mu            string         `json:"mu"`
	// LossReduction is "sum" when the step loss summed the training
	// functions against the penalties (greedy.Method.LossReduction); empty
	// for the mean, as in checkpoints written before it was recorded.
	LossReduction string `json:"loss_reduction,omitempty"`
	Inner         string `json:"inner"`
	// InnerSettings are the inner solver's budget and step rule (e.g.
	// "nag(iters=1000+1000,rounds=10,step=paper)"), Protocol the named preset
	// the run was configured from ("paper", or "" for individual flags).
	InnerSettings string            `json:"inner_settings,omitempty"`
	Protocol      string            `json:"protocol,omitempty"`
	TolRel        float64           `json:"tol_rel"`
	TolAbs        float64           `json:"tol_abs"`
	MaxSteps      int               `json:"max_steps"`
	Versions      map[string]string `json:"Versions"`
	ThetaLen      int               `json:"theta_len"`
	PhiLen        int               `json:"phi_len"`
	// NVal and WeightScales record the validation functions and the
	// candidate multipliers of (λt, μt) (greedy.Problem.Validation, greedy.Solver.WeightScales).
	NVal         int       `json:"n_val,omitempty"`
	WeightScales []float64 `json:"weight_scales,omitempty"`
	ValLookahead int       `json:"val_lookahead,omitempty"`
	// StopOnValidation and ValPatience record greedy.Stop's rule; TrainTolSteps
	// is the number of steps after which the training functions met the
	// tolerance when the run went on for the validation functions (0: they
	// did not, or the rule is off).
	StopOnValidation bool `json:"stop_on_validation,omitempty"`
	ValPatience      int  `json:"val_patience,omitempty"`
	TrainTolSteps    int  `json:"train_tol_steps,omitempty"`
	// RepeatCheck is greedy.Stop.RepeatCheck (0: off) and RepeatChecks the
	// checks made: the tolerance stops the run only at a step that, repeated
	// RepeatCheck times as Algorithm 2 repeats the last step, raises no
	// checked function's ‖∇f‖.
	RepeatCheck  int           `json:"repeat_check,omitempty"`
	RepeatChecks []RepeatCheck `json:"repeat_checks,omitempty"`
	// Precision is greedy.Method.Precision when it is not float64 (absent: float64).
	Precision problem.Precision `json:"precision,omitempty"`
	// Device is the kind of greedy.Config.Target's device ("cuda") when the
	// step losses ran on a device's array operations (absent: the CPU, in
	// Precision). Earlier versions recorded "host" and "host32" for the
	// CPU's array operations.
	Device    string     `json:"device,omitempty"`
	Steps     []StepInfo `json:"steps"`
	Finished  bool       `json:"finished"`
	StopCause string     `json:"stop_reason,omitempty"`
	// Checksums holds the SHA-256 (hex) of every parameter and state file
	// the manifest commits, by its slash-separated path relative to the
	// checkpoint directory ("params/theta_00002.npy"). Readers verify a file
	// against it before using it (ErrChecksum). Checkpoints written before
	// checksums were recorded have none: they load unverified
	// (Manifest.Verified reports it), and a resume records the checksums of
	// their files as they are.
	Checksums map[string]string `json:"sha256,omitempty"`
	// Provenance records the command, the l2o build, the machine and the
	// training data split (nil in checkpoints written before it was
	// recorded); each resume appends its invocation.
	Provenance *provenance.Record `json:"provenance,omitempty"`

	// Sealed reports that the manifest read was sealed (FormatVersion),
	// SHA256 is the SHA-256 of its bytes as read: neither is written.
	Sealed bool   `json:"-"`
	SHA256 string `json:"-"`
}

// Verified reports whether the manifest records checksums of its files.
func (m *Manifest) Verified() bool { return m.Checksums != nil }

// RepeatCheck is one check of greedy.Run.RepeatCheck: step T repeated
// Repeats times from the iterates after it; Growth is the largest ratio
// ‖∇f_k‖ after / before over the functions checked (Stable: ≤ 1).
type RepeatCheck struct {
	T       int     `json:"t"`
	Repeats int     `json:"repeats"`
	Growth  float64 `json:"growth"`
	Stable  bool    `json:"stable"`
	// Functions says which were checked: "validation" or "training".
	Functions string `json:"functions"`
}

// StepInfo records one greedy step.
type StepInfo struct {
	T int `json:"t"`
	// Device is the target this step's step losses ran on, named as
	// --device does ("cpu", "cpu32", "cuda"), when it is not the manifest's
	// (Device and Precision): a run resumed on another target records it on
	// every step it trains.
	Device string `json:"device,omitempty"`
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
	// ValMaxGradNorm is max_k ‖∇fk(xk^t)‖ over the validation functions at
	// the start of the step (with StopOnValidation).
	ValMaxGradNorm float64 `json:"val_max_grad_norm,omitempty"`
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

// ParamFile and StateFile are the slash-separated paths, relative to a
// checkpoint directory, of a step's parameters (theta, phi) and of the
// training state (x, xprev, xval, xvalprev) after t completed steps.
func ParamFile(name string, t int) string { return fmt.Sprintf("params/%s_%05d.npy", name, t) }

// StateFile: see ParamFile.
func StateFile(name string, t int) string { return fmt.Sprintf("state/%s_%05d.npy", name, t) }

func ParamPath(dir, name string, t int) string {
	return filepath.Join(dir, filepath.FromSlash(ParamFile(name, t)))
}

func StatePath(dir, name string, t int) string {
	return filepath.Join(dir, filepath.FromSlash(StateFile(name, t)))
}

// ErrChecksum marks a checkpoint file whose content does not match the
// SHA-256 its manifest records (or that the manifest does not list): it was
// changed, corrupted or copied from another run. Test with errors.Is; the
// error is a *ChecksumError.
var ErrChecksum = errors.New("checksum mismatch")

// ChecksumError names a file that failed verification.
type ChecksumError struct {
	Path      string
	Want, Got string // Want is "" for a file the manifest does not list
}

func (e *ChecksumError) Error() string {
	if e.Want == "" {
		return fmt.Sprintf("checkpoint file %s is not listed among its manifest's checksums: it does not belong to this checkpoint", e.Path)
	}
	return fmt.Sprintf("checkpoint file %s does not match the SHA-256 its manifest records (%.12s…, the file has %.12s…): it was changed, corrupted or copied from another run", e.Path, e.Want, e.Got)
}

func (e *ChecksumError) Unwrap() error { return ErrChecksum }

// Recorded is cur where an older checkpoint recorded the field (old is not
// its zero value) and the zero value otherwise, so that a resume compares a
// field added to the format later only from the checkpoints that have it.
func Recorded[V comparable](old, cur V) V {
	var zero V
	if old == zero {
		return zero
	}
	return cur
}

// SumFloats returns the SHA-256 in hex of v as little-endian float64s
// (the bytes an .npy file of v holds after its header).
func SumFloats(v []float64) string {
	h := sha256.New()
	WriteFloats(h, v)
	return hex.EncodeToString(h.Sum(nil))
}

// WriteFloats writes v to w as little-endian float64s, for hashing.
func WriteFloats(w io.Writer, v []float64) {
	var b [8 * 1024]byte
	for len(v) > 0 {
		n := min(len(v), len(b)/8)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		w.Write(b[:8*n])
		v = v[n:]
	}
}

// Sum returns the SHA-256 of b in hex.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// VerifyFile checks the content b of the file rel (relative to dir) against
// sums; with sums nil (a checkpoint without checksums) it accepts anything.
func VerifyFile(dir, rel string, b []byte, sums map[string]string) error {
	if sums == nil {
		return nil
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	want, ok := sums[rel]
	if !ok {
		return &ChecksumError{Path: path}
	}
	if got := Sum(b); got != want {
		return &ChecksumError{Path: path, Want: want, Got: got}
	}
	return nil
}

// ReadNPYVerified reads the .npy file rel of the checkpoint directory dir,
// checks it against sums (VerifyFile) and decodes it (see ReadNPY).
func ReadNPYVerified(dir, rel string, want int, sums map[string]string) ([]float64, error) {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := VerifyFile(dir, rel, b, sums); err != nil {
		return nil, err
	}
	return DecodeNPY(b, path, want)
}

// VerifyChecksums checks every file a manifest lists against its checksum.
func VerifyChecksums(dir string, sums map[string]string) error {
	for _, rel := range slices.Sorted(maps.Keys(sums)) {
		got, err := data.FileSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if got != sums[rel] {
			return &ChecksumError{Path: filepath.Join(dir, filepath.FromSlash(rel)), Want: sums[rel], Got: got}
		}
	}
	return nil
}

// writing is held while WriteFileAtomic writes a file.
var writing sync.Mutex

// HoldWrites waits for the file WriteFileAtomic may be writing and keeps
// every later write from starting, for a process about to exit: after it,
// no temporary file of WriteFileAtomic is in the making (see RemoveTemps).
func HoldWrites() { writing.Lock() }

// TempPrefix starts the names of WriteFileAtomic's temporary files.
const TempPrefix = ".tmp-"

// RemoveTemps removes the temporary files WriteFileAtomic left in dir and
// its params/ and state/ folders (by a process killed while writing), and
// returns their paths. Call it only while no run writes into dir (under
// its LockDir lock, or after HoldWrites).
func RemoveTemps(dir string) []string {
	var removed []string
	for _, d := range []string{dir, filepath.Join(dir, "params"), filepath.Join(dir, "state")} {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if isTemp(e.Name()) && e.Type().IsRegular() {
				p := filepath.Join(d, e.Name())
				if os.Remove(p) == nil {
					removed = append(removed, p)
				}
			}
		}
	}
	return removed
}

// isTemp reports whether name is that of a temporary file of
// WriteFileAtomic for a checkpoint file: ".tmp-NAME.json-DIGITS" or
// ".tmp-NAME.npy-DIGITS".
func isTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '-')
	if i < 0 || i == len(rest)-1 {
		return false
	}
	for _, r := range rest[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return strings.HasSuffix(rest[:i], ".json") || strings.HasSuffix(rest[:i], ".npy")
}

// WriteFileAtomic writes data to path (mode 0644) through a synced temporary
// file and a rename (then syncs the directory), so a reader sees the old or
// the new file, never a partial one.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic writes what write writes to path as WriteFileAtomic writes
// data: a failed write (a full disk) leaves the file at path as it was, and
// no temporary file.
func WriteAtomic(path string, write func(io.Writer) error) error {
	writing.Lock()
	defer writing.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file 0600; results are read by others as any
	// file written with os.WriteFile(…, 0o644) is.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
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
	renamed = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteNPY writes v as a one-dimensional float64 .npy file, atomically.
func WriteNPY(path string, v []float64) error {
	_, err := WriteNPYSum(path, v)
	return err
}

// WriteNPYShape writes v as a C-order float64 .npy array of the given shape
// (the product must be len(v)), atomically, encoded as WriteNPY encodes.
func WriteNPYShape(path string, v []float64, shape ...int) error {
	b, err := EncodeNPY(v, shape...)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return WriteFileAtomic(path, b)
}

// EncodeNPY encodes v as a little-endian float64 .npy array of the given
// shape (none: one dimension of len(v)) in the bytes github.com/sbinet/npyio
// writes (format 2.0, its header padding), which writes one- and
// two-dimensional arrays only.
func EncodeNPY(v []float64, shape ...int) ([]byte, error) {
	header, err := npyPrefix(len(v), shape...)
	if err != nil {
		return nil, err
	}
	b := make([]byte, len(header)+8*len(v))
	copy(b, header)
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[len(header)+8*i:], math.Float64bits(x))
	}
	return b, nil
}

// npyPrefix is the start of EncodeNPY's bytes for n values of the given
// shape: the magic, the version, the header's length and the header.
func npyPrefix(n int, shape ...int) ([]byte, error) {
	if len(shape) == 0 {
		shape = []int{n}
	}
	size, dims := 1, make([]string, len(shape))
	for i, d := range shape {
		size *= d
		dims[i] = strconv.Itoa(d)
	}
	if size != n {
		return nil, fmt.Errorf("npy: %d values cannot have shape %v", n, shape)
	}
	tuple := "(" + strings.Join(dims, ", ") + ")"
	if len(shape) == 1 {
		tuple = "(" + dims[0] + ",)"
	}
	return npyPrefixOf("<f8", tuple)
}

// npyPrefixOf is the start of a .npy file of the dtype descr ("<f8",
// "<f4") and the shape tuple, in EncodeNPY's layout.
func npyPrefixOf(descr, tuple string) ([]byte, error) {
	header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + tuple + ", }"
	const prefix = 6 + 2 + 4 // magic, version 2.0, header length
	header += strings.Repeat(" ", (prefix+len(header)+1)%16) + "\n"
	b := make([]byte, prefix+len(header))
	copy(b, "\x93NUMPY\x02\x00")
	binary.LittleEndian.PutUint32(b[8:], uint32(len(header)))
	copy(b[prefix:], header)
	return b, nil
}

// WriteNPYSum is WriteNPY that also returns the SHA-256 (hex) of the bytes
// written, for a manifest's checksums. It streams v to the file and the hash
// (EncodeNPY's bytes, without building them in memory).
func WriteNPYSum(path string, v []float64) (string, error) {
	header, err := npyPrefix(len(v))
	if err != nil {
		return "", fmt.Errorf("encoding %s: %w", path, err)
	}
	return writeNPYSum(path, header, func(w io.Writer) error { return writeLittleEndian(w, v) })
}

// WriteNPYSumCompact is WriteNPYSum for values that are float32 numbers
// where a run computes in float32 (a float32 device's iterates, or
// --precision float32): where every value of v converts to float32 and
// back unchanged it writes them as '<f4', the same numbers in half the
// bytes; otherwise as '<f8'. ReadNPY and DecodeNPY read both.
func WriteNPYSumCompact(path string, v []float64) (string, error) {
	if !float32Exact(v) {
		return WriteNPYSum(path, v)
	}
	header, err := npyPrefixOf("<f4", "("+strconv.Itoa(len(v))+",)")
	if err != nil {
		return "", fmt.Errorf("encoding %s: %w", path, err)
	}
	return writeNPYSum(path, header, func(w io.Writer) error { return writeFloat32s(w, v) })
}

// writeNPYSum writes a .npy file of header and the values body writes,
// atomically, and returns the SHA-256 of its bytes (hex).
func writeNPYSum(path string, header []byte, body func(io.Writer) error) (string, error) {
	h := sha256.New()
	err := WriteAtomic(path, func(w io.Writer) error {
		both := io.MultiWriter(w, h)
		if _, err := both.Write(header); err != nil {
			return err
		}
		return body(both)
	})
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// float32Block is how many values float32Exact and writeFloat32s convert
// at a time.
const float32Block = 4096

// float32Exact reports whether v is not empty and every value of it is a
// float32 number (converted to float32 and back, its bits are unchanged).
func float32Exact(v []float64) bool {
	if len(v) == 0 {
		return false
	}
	var v32 [float32Block]float32
	var back [float32Block]float64
	for len(v) > 0 {
		n := min(len(v), float32Block)
		kernels.Convert(v32[:n], v[:n])
		kernels.Convert(back[:n], v32[:n])
		if !bytes.Equal(float64Bytes(back[:n]), float64Bytes(v[:n])) {
			return false
		}
		v = v[n:]
	}
	return true
}

// writeFloat32s writes v, float32 numbers (float32Exact), to w as
// little-endian float32s, a block at a time.
func writeFloat32s(w io.Writer, v []float64) error {
	var v32 [float32Block]float32
	var b [4 * float32Block]byte
	for len(v) > 0 {
		n := min(len(v), float32Block)
		kernels.Convert(v32[:n], v[:n])
		out := unsafe.Slice((*byte)(unsafe.Pointer(&v32[0])), 4*n)
		if !littleEndian {
			for i, x := range v32[:n] {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
			}
			out = b[:4*n]
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
		v = v[n:]
	}
	return nil
}

// float64Bytes is v's memory as bytes.
func float64Bytes(v []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

// LinkAtomic gives the file src the second name dst (a hard link: no data
// is copied), replacing a file at dst atomically, and syncs the directory.
// It fails, leaving dst as it was, where the file system has no hard links.
func LinkAtomic(src, dst string) error {
	writing.Lock()
	defer writing.Unlock()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// A name RemoveTemps knows: ".tmp-NAME.npy-DIGITS".
	tmp := filepath.Join(filepath.Dir(dst), TempPrefix+filepath.Base(dst)+"-"+strconv.Itoa(os.Getpid()))
	os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(filepath.Dir(dst)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// littleEndian reports whether this machine stores float64s little-endian,
// as .npy's '<f8' does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// writeLittleEndian writes v to w as little-endian float64s: v's own bytes
// where the machine is little-endian, else converted a block at a time.
func writeLittleEndian(w io.Writer, v []float64) error {
	if len(v) == 0 {
		return nil
	}
	if littleEndian {
		_, err := w.Write(float64Bytes(v))
		return err
	}
	return writeConverted(w, v)
}

// writeConverted writes v to w as little-endian float64s, a block at a time.
func writeConverted(w io.Writer, v []float64) error {
	var b [8 * 1024]byte
	for len(v) > 0 {
		n := min(len(v), len(b)/8)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
		}
		if _, err := w.Write(b[:8*n]); err != nil {
			return err
		}
		v = v[n:]
	}
	return nil
}

// ReadNPY reads a float64 or float32 .npy file written by WriteNPY or
// WriteNPYSumCompact (any shape, flattened) as float64s and checks its
// length when want ≥ 0.
func ReadNPY(path string, want int) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return DecodeNPY(b, path, want)
}

// maxNPYValues bounds the values a .npy header may announce (2^31: 16 GiB
// of float64), so a corrupt header cannot ask for absurd allocations.
const maxNPYValues = 1 << 31

// DecodeNPY decodes the content b of the float64 or float32 .npy file path
// (named in errors) as float64s, checking its length when want ≥ 0 and
// that every value is finite. Any shape is accepted and flattened (C
// order); malformed input is an error, never a panic, and nothing larger
// than b (float32 values: twice b) is allocated.
func DecodeNPY(b []byte, path string, want int) ([]float64, error) {
	h, err := parseNPYHeader(b)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s is not a valid .npy file: %w", path, err)
	}
	size := map[string]int{"<f8": 8, "<f4": 4}[h.descr]
	if size == 0 {
		return nil, fmt.Errorf("checkpoint %s holds %s values, want float64 (<f8) or float32 (<f4)", path, h.descr)
	}
	n := 1
	for _, d := range h.shape {
		if d < 0 || (d > 0 && n > maxNPYValues/d) {
			return nil, fmt.Errorf("checkpoint %s has an invalid shape %v", path, h.shape)
		}
		n *= d
	}
	if h.fortran && len(h.shape) > 1 {
		return nil, fmt.Errorf("checkpoint %s is stored in Fortran order, want C order", path)
	}
	if want >= 0 && n != want {
		return nil, fmt.Errorf("checkpoint %s holds %d values, want %d: it belongs to another problem or parametrization", path, n, want)
	}
	if data := len(b) - h.data; data != size*n {
		if data < size*n {
			return nil, fmt.Errorf("checkpoint %s is truncated or corrupt: its header announces %d values, the file holds %d bytes of data", path, n, data)
		}
		return nil, fmt.Errorf("checkpoint %s is corrupt: %d bytes after its %d values", path, data-size*n, n)
	}
	decode := decodeFloat64s
	if size == 4 {
		decode = decodeFloat32s
	}
	out := decode(b[h.data:], n)
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("checkpoint %s holds a non-finite value at index %d", path, i)
		}
	}
	return out, nil
}

// WriteManifest writes dir/manifest.json sealed (Seal) in the format
// FormatVersion, atomically.
func WriteManifest(dir string, m *Manifest) error {
	c := *m
	c.Format = FormatVersion
	b, err := MarshalSealed(&c)
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, "manifest.json"), b)
}

// ReadCheckpointJSON reads the JSON file name in the checkpoint directory dir
// into v. A missing file is reported as "dir is not a KIND checkpoint" with the
// command that makes one (train, e.g. "l2o train greedy"); a file that does
// not parse is reported as corrupt.
func ReadCheckpointJSON(dir, name, kind, train string, v any) error {
	b, err := ReadCheckpointFile(dir, name, kind, train)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("checkpoint file %s is corrupt: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// ReadCheckpointFile reads the file name of the checkpoint directory dir,
// reporting a missing one as ReadCheckpointJSON does.
func ReadCheckpointFile(dir, name, kind, train string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a %s checkpoint: no %s (train one with '%s --out %s')", dir, kind, name, train, dir)
	}
	return b, err
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := ReadCheckpointFile(dir, "manifest.json", "greedy", "l2o train greedy")
	if err != nil {
		return nil, err
	}
	return ParseManifest(filepath.Join(dir, "manifest.json"), b)
}

// ParseManifest checks the seal of the content b of the manifest file path
// (named in errors), then decodes and checks it. A manifest of the format
// FormatVersion must be sealed; one of LegacyFormat may not be.
func ParseManifest(path string, b []byte) (*Manifest, error) {
	sealed, err := Unseal(path, b)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("checkpoint file %s is corrupt: %w", path, err)
	}
	switch {
	case m.Format == FormatVersion && !sealed:
		return nil, &EditedError{Path: path}
	case m.Format != FormatVersion && m.Format != LegacyFormat:
		return nil, fmt.Errorf("checkpoint manifest %s has format %q, want %q", path, m.Format, FormatVersion)
	}
	m.Sealed, m.SHA256 = sealed, Sum(b)
	if m.Conventions == nil {
		m.Conventions = problem.LegacyConventions(m.Operator)
	}
	for i, s := range m.Steps {
		if s.T != i {
			return nil, fmt.Errorf("checkpoint manifest %s: step %d is numbered %d", path, i, s.T)
		}
	}
	if m.H < 1 || m.W < 1 || m.ThetaLen < 1 || m.PhiLen < 0 {
		return nil, fmt.Errorf("checkpoint manifest %s: image size %d×%d and parameter lengths %d, %d: want positive sizes and lengths", path, m.H, m.W, m.ThetaLen, m.PhiLen)
	}
	if !(m.L > 0) || !(m.Tau > 0) || math.IsInf(m.L+m.Tau, 0) {
		return nil, fmt.Errorf("checkpoint manifest %s: L = %g and τ = %g: want positive finite values", path, m.L, m.Tau)
	}
	if err := CheckChecksumList(m.Checksums); err != nil {
		return nil, fmt.Errorf("checkpoint manifest %s: %w", path, err)
	}
	return &m, nil
}

// CheckChecksumList checks a manifest's checksums: every key a clean
// relative path inside the checkpoint directory, every value 64 hex digits.
func CheckChecksumList(sums map[string]string) error {
	for rel, sum := range sums {
		if !fs.ValidPath(rel) || rel == "." {
			return fmt.Errorf("checksum of %q: not a path inside the checkpoint", rel)
		}
		if _, err := hex.DecodeString(sum); err != nil || len(sum) != 64 {
			return fmt.Errorf("checksum of %s: %q is not a SHA-256 (64 hex digits)", rel, sum)
		}
	}
	return nil
}

// LoadParams reads the parameters of step t from a checkpoint directory,
// verified against the manifest's checksums (ErrChecksum).
func LoadParams(dir string, m *Manifest, t int) (theta, phi []float64, err error) {
	if theta, err = ReadNPYVerified(dir, ParamFile("theta", t), m.ThetaLen, m.Checksums); err != nil {
		return nil, nil, err
	}
	if m.PhiLen > 0 {
		if phi, err = ReadNPYVerified(dir, ParamFile("phi", t), m.PhiLen, m.Checksums); err != nil {
			return nil, nil, err
		}
	}
	return theta, phi, nil
}

// RecordChecksums sets the checksums of a manifest without any (written
// before they were recorded) from its files as they are now: every step's
// parameters and the state after the last step, where present.
func RecordChecksums(dir string, m *Manifest) error {
	if m.Checksums != nil {
		return nil
	}
	sums := map[string]string{}
	add := func(rel string, required bool) error {
		got, err := data.FileSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			if !required && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("checkpoint: %w", err)
		}
		sums[rel] = got
		return nil
	}
	for t := range m.Steps {
		if err := add(ParamFile("theta", t), true); err != nil {
			return err
		}
		if m.PhiLen > 0 {
			if err := add(ParamFile("phi", t), true); err != nil {
				return err
			}
		}
	}
	if n := len(m.Steps); n > 0 {
		for _, name := range StateNames {
			if err := add(StateFile(name, n), false); err != nil {
				return err
			}
		}
	}
	m.Checksums = sums
	return nil
}

// stateNames are the training state vectors kept after the last step.
var StateNames = []string{"x", "xprev", "xval", "xvalprev"}

func Versions() map[string]string {
	return map[string]string{"go": runtime.Version(), "gorgonia": "v0.9.18", "tensor": "v0.9.24", "format": FormatVersion}
}
