package eval

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/greedyl2o/greedyl2o/provenance"
)

// WriteCSV writes the curves in long format, one row per method and
// iteration, with the header method,iter,seconds,mean,min,max,setting,status;
// the setting column holds the curve's Setting as sorted key=value pairs
// separated by semicolons (problem, operator, conventions such as
// blur_boundary). A method that diverged gets one more row, at the iteration
// k where it diverged, with empty seconds, mean, min and max and the status
// "diverged at iteration k"; status is empty on every other row. When some
// curve has acceptance rates (Curve.Accepted, a safeguarded method) the
// header ends with one more column, accepted: the fraction of the learned
// steps accepted at that iteration, empty at iteration 0, on the diverged
// row and for curves without a safeguard.
func WriteCSV(w io.Writer, curves []*Curve) error {
	return WriteCSVWith(w, curves, nil)
}

// WriteCSVWith writes the curves as WriteCSV does, after the lines of
// header as comments ("# " + line; read with pandas' comment='#').
func WriteCSVWith(w io.Writer, curves []*Curve, header []string) error {
	for _, line := range header {
		if _, err := fmt.Fprintf(w, "# %s\n", strings.ReplaceAll(line, "\n", " ")); err != nil {
			return fmt.Errorf("eval: writing CSV: %w", err)
		}
	}
	cw := csv.NewWriter(w)
	withAcc := false
	for _, c := range curves {
		withAcc = withAcc || c.Accepted != nil
	}
	columns := []string{"method", "iter", "seconds", "mean", "min", "max", "setting", "status"}
	if withAcc {
		columns = append(columns, "accepted")
	}
	if err := cw.Write(columns); err != nil {
		return fmt.Errorf("eval: writing CSV: %w", err)
	}
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, c := range curves {
		if err := c.check(); err != nil {
			return fmt.Errorf("eval: writing CSV: %w", err)
		}
		setting := settingString(c.Setting)
		for i, t := range c.Iter {
			rec := []string{c.Method, strconv.Itoa(t), ff(c.Seconds[i]), ff(c.Mean[i]), ff(c.Min[i]), ff(c.Max[i]), setting, ""}
			if withAcc {
				a := ""
				if c.Accepted != nil && !math.IsNaN(c.Accepted[i]) {
					a = ff(c.Accepted[i])
				}
				rec = append(rec, a)
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("eval: writing CSV: %w", err)
			}
		}
		if c.Diverged() {
			rec := []string{c.Method, strconv.Itoa(c.DivergedAt), "", "", "", "", setting, c.Status()}
			if withAcc {
				rec = append(rec, "")
			}
			if err := cw.Write(rec); err != nil {
				return fmt.Errorf("eval: writing CSV: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("eval: writing CSV: %w", err)
	}
	return nil
}

// settingString writes a setting as sorted key=value pairs joined by ';'.
func settingString(s map[string]string) string {
	keys := slices.Sorted(maps.Keys(s))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + s[k]
	}
	return strings.Join(parts, ";")
}

// check reports inconsistent lengths.
func (c *Curve) check() error {
	n := len(c.Iter)
	lens := map[string]int{"Seconds": len(c.Seconds), "Mean": len(c.Mean), "Min": len(c.Min), "Max": len(c.Max)}
	if c.F != nil {
		lens["F"] = len(c.F)
	}
	if c.GradNorm != nil {
		lens["GradNorm"] = len(c.GradNorm)
	}
	if c.Optimality != nil {
		lens["Optimality"] = len(c.Optimality)
	}
	if c.Accepted != nil {
		lens["Accepted"] = len(c.Accepted)
	}
	for name, l := range lens {
		if l != n {
			return fmt.Errorf("curve %q has %d iterations but %d %s values", c.Method, n, l, name)
		}
	}
	return nil
}

// jsonFloat is a float64 that encodes NaN and ±Inf as the JSON strings
// "NaN", "+Inf" and "-Inf", which encoding/json rejects as numbers.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
		switch s {
		case "NaN", "+Inf", "-Inf":
		default:
			return fmt.Errorf("number %q is not a float", s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("number %s: %w", b, err)
	}
	*f = jsonFloat(v)
	return nil
}

func toJSON(v []float64) []jsonFloat {
	if v == nil {
		return nil
	}
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return out
}

func fromJSON(v []jsonFloat) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func toJSON2(v [][]float64) [][]jsonFloat {
	if v == nil {
		return nil
	}
	out := make([][]jsonFloat, len(v))
	for i, x := range v {
		out[i] = toJSON(x)
	}
	return out
}

func fromJSON2(v [][]jsonFloat) [][]float64 {
	if v == nil {
		return nil
	}
	out := make([][]float64, len(v))
	for i, x := range v {
		out[i] = fromJSON(x)
	}
	return out
}

type curveJSON struct {
	Method     string              `json:"method"`
	Setting    map[string]string   `json:"setting,omitempty"`
	Iter       []int               `json:"iter"`
	Seconds    []jsonFloat         `json:"seconds"`
	F          [][]jsonFloat       `json:"f"`
	GradNorm   [][]jsonFloat       `json:"grad_norm"`
	Optimality [][]jsonFloat       `json:"optimality"`
	Mean       []jsonFloat         `json:"mean"`
	Min        []jsonFloat         `json:"min"`
	Max        []jsonFloat         `json:"max"`
	PSNR       map[int][]jsonFloat `json:"psnr,omitempty"`
	SSIM       map[int][]jsonFloat `json:"ssim,omitempty"`
	DivergedAt int                 `json:"diverged_at,omitempty"`
	Status     string              `json:"status,omitempty"`
	Rejected   int                 `json:"safeguard_rejected,omitempty"`
	Steps      int                 `json:"steps,omitempty"`
	Accepted   []jsonFloat         `json:"accepted,omitempty"`
	Part       *partJSON           `json:"part,omitempty"`
}

// partJSON is a Part: the shard "i/n" and its functions.
type partJSON struct {
	Shard         string    `json:"shard"`
	First         int       `json:"first"`
	Total         int       `json:"total"`
	DivergeAbove  jsonFloat `json:"diverge_above"`
	RejectedAfter []int     `json:"rejected_after,omitempty"`
}

func (p *Part) toJSON() *partJSON {
	if p == nil {
		return nil
	}
	return &partJSON{Shard: p.Shard.String(), First: p.First, Total: p.Total, DivergeAbove: jsonFloat(p.DivergeAbove), RejectedAfter: p.RejectedAfter}
}

func (pj *partJSON) part() (*Part, error) {
	if pj == nil {
		return nil, nil
	}
	sh, err := ParseShard(pj.Shard)
	if err != nil {
		return nil, err
	}
	if pj.First < 0 || pj.Total < 1 || pj.First >= pj.Total {
		return nil, fmt.Errorf("shard %s: functions from %d of %d", pj.Shard, pj.First, pj.Total)
	}
	return &Part{Shard: sh, First: pj.First, Total: pj.Total, DivergeAbove: float64(pj.DivergeAbove), RejectedAfter: pj.RejectedAfter}, nil
}

type fileJSON struct {
	Format     string             `json:"format"`
	Provenance *provenance.Record `json:"provenance,omitempty"`
	Curves     []curveJSON        `json:"curves"`
	// SHA256 is sum of the provenance and the curves: a file whose curves
	// or provenance were changed after they were written is refused (empty
	// in older files; of the curves only in files of jsonFormatV1).
	SHA256 string `json:"sha256,omitempty"`
}

// sum is the SHA-256 (hex) of the JSON encoding of the file's provenance
// and curves (of its curves only in the format jsonFormatV1).
func (file *fileJSON) sum() (string, error) {
	var v any = file.Curves
	if file.Format != jsonFormatV1 {
		v = struct {
			Provenance *provenance.Record `json:"provenance"`
			Curves     []curveJSON        `json:"curves"`
		}{file.Provenance, file.Curves}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// jsonFormat is the format WriteJSON writes: its SHA-256 covers the
// provenance and the curves; jsonFormatV1's, still read, the curves only.
const (
	jsonFormat   = "greedyl2o-eval-curves-v2"
	jsonFormatV1 = "greedyl2o-eval-curves-v1"
)

// WriteJSON writes the curves as JSON (all fields; NaN and ±Inf as the
// strings "NaN", "+Inf", "-Inf").
func WriteJSON(w io.Writer, curves []*Curve) error {
	return WriteJSONWith(w, curves, nil)
}

// WriteJSONWith writes the curves as WriteJSON does, with the provenance of
// the run that measured them (omitted when nil).
func WriteJSONWith(w io.Writer, curves []*Curve, prov *provenance.Record) error {
	file := fileJSON{Format: jsonFormat, Provenance: prov, Curves: make([]curveJSON, 0, len(curves))}
	for _, c := range curves {
		if err := c.check(); err != nil {
			return fmt.Errorf("eval: writing JSON: %w", err)
		}
		cj := curveJSON{
			Method: c.Method, Setting: c.Setting, Iter: c.Iter, Seconds: toJSON(c.Seconds),
			F: toJSON2(c.F), GradNorm: toJSON2(c.GradNorm), Optimality: toJSON2(c.Optimality),
			Mean: toJSON(c.Mean), Min: toJSON(c.Min), Max: toJSON(c.Max),
			DivergedAt: c.DivergedAt, Status: c.Status(), Rejected: c.Rejected, Steps: c.Steps,
			Accepted: toJSON(c.Accepted), Part: c.Part.toJSON(),
		}
		if c.PSNR != nil {
			cj.PSNR = map[int][]jsonFloat{}
			for t, p := range c.PSNR {
				cj.PSNR[t] = toJSON(p)
			}
		}
		if c.SSIM != nil {
			cj.SSIM = map[int][]jsonFloat{}
			for t, p := range c.SSIM {
				cj.SSIM[t] = toJSON(p)
			}
		}
		file.Curves = append(file.Curves, cj)
	}
	var err error
	if file.SHA256, err = file.sum(); err != nil {
		return fmt.Errorf("eval: writing JSON: %w", err)
	}
	enc := json.NewEncoder(w)
	if err := enc.Encode(file); err != nil {
		return fmt.Errorf("eval: writing JSON: %w", err)
	}
	return nil
}

// ReadJSON reads curves written by WriteJSON.
func ReadJSON(r io.Reader) ([]*Curve, error) {
	curves, _, err := ReadJSONWith(r)
	return curves, err
}

// ReadJSONWith reads curves and their provenance (nil in files written
// without one) written by WriteJSONWith.
func ReadJSONWith(r io.Reader) ([]*Curve, *provenance.Record, error) {
	var file fileJSON
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return nil, nil, fmt.Errorf("eval: reading JSON curves: %w", err)
	}
	curves, err := file.curves()
	return curves, file.Provenance, err
}

func (file *fileJSON) curves() ([]*Curve, error) {
	if file.Format != jsonFormat && file.Format != jsonFormatV1 {
		return nil, fmt.Errorf("eval: reading JSON curves: format %q, want %q (not a file written by eval.WriteJSON?)", file.Format, jsonFormat)
	}
	if file.SHA256 == "" && file.Format == jsonFormat {
		return nil, fmt.Errorf("eval: reading JSON curves: the file records no SHA-256 (format %s records one): it was changed after it was written", jsonFormat)
	}
	if file.SHA256 != "" {
		if sum, err := file.sum(); err != nil || sum != file.SHA256 {
			return nil, fmt.Errorf("eval: reading JSON curves: the curves or their provenance do not match the SHA-256 the file records: they were changed after they were written")
		}
	}
	curves := make([]*Curve, 0, len(file.Curves))
	for _, cj := range file.Curves {
		c := &Curve{
			Method: cj.Method, Setting: cj.Setting, Iter: cj.Iter, Seconds: fromJSON(cj.Seconds),
			F: fromJSON2(cj.F), GradNorm: fromJSON2(cj.GradNorm), Optimality: fromJSON2(cj.Optimality),
			Mean: fromJSON(cj.Mean), Min: fromJSON(cj.Min), Max: fromJSON(cj.Max),
			DivergedAt: cj.DivergedAt, Rejected: cj.Rejected, Steps: cj.Steps,
			Accepted: fromJSON(cj.Accepted),
		}
		var err error
		if c.Part, err = cj.Part.part(); err != nil {
			return nil, fmt.Errorf("eval: reading JSON curves: curve %q: %w", c.Method, err)
		}
		if c.DivergedAt < 0 || c.Rejected < 0 || c.Steps < 0 {
			return nil, fmt.Errorf("eval: reading JSON curves: curve %q has a negative diverged_at, safeguard_rejected or steps", c.Method)
		}
		if len(c.Accepted) == 0 {
			c.Accepted = nil // "accepted": [] is no rates, as WriteJSON omits it
		}
		for _, a := range c.Accepted {
			if a < 0 || a > 1 {
				return nil, fmt.Errorf("eval: reading JSON curves: curve %q has an acceptance rate %g outside [0, 1]", c.Method, a)
			}
		}
		if cj.PSNR != nil {
			c.PSNR = map[int][]float64{}
			for t, p := range cj.PSNR {
				c.PSNR[t] = fromJSON(p)
			}
		}
		if cj.SSIM != nil {
			c.SSIM = map[int][]float64{}
			for t, p := range cj.SSIM {
				c.SSIM[t] = fromJSON(p)
			}
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("eval: reading JSON curves: %w", err)
		}
		curves = append(curves, c)
	}
	return curves, nil
}
