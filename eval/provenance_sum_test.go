package eval

import (
	"bytes"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/provenance"
)

// TestJSONProvenanceUnderChecksum edits the provenance of written curves
// (the test noise, a checkpoint's T): the file is refused, as for an edit
// of the curves; the file as written reads back with its provenance.
func TestJSONProvenanceUnderChecksum(t *testing.T) {
	c := &Curve{Method: "gd", Iter: []int{0, 1}, Seconds: []float64{0, 0.1}, Mean: []float64{1, 0.5}, Min: []float64{1, 0.5}, Max: []float64{1, 0.5}}
	prov := &provenance.Record{Invocation: provenance.Invocation{Command: "l2o eval"}, Test: &provenance.Test{Noise: 0.01},
		Checkpoints: []provenance.Checkpoint{{Label: "greedy m-pc", T: 5, ManifestSHA256: strings.Repeat("a", 64)}}}
	var buf bytes.Buffer
	if err := WriteJSONWith(&buf, []*Curve{c}, prov); err != nil {
		t.Fatal(err)
	}
	if _, got, err := ReadJSONWith(bytes.NewReader(buf.Bytes())); err != nil || got.Test.Noise != 0.01 || got.Checkpoints[0].T != 5 {
		t.Fatalf("reading the file as written: %v, %+v", err, got)
	}
	for _, e := range [][2]string{{`"noise":0.01`, `"noise":0.02`}, {`"T":5`, `"T":6`}, {`"command":"l2o eval"`, `"command":"l2o evil"`}, {`"mean":[1,0.5]`, `"mean":[1,0.4]`}} {
		edited := bytes.Replace(buf.Bytes(), []byte(e[0]), []byte(e[1]), 1)
		if bytes.Equal(edited, buf.Bytes()) {
			t.Fatalf("%s not in %s", e[0], buf.Bytes())
		}
		if _, _, err := ReadJSONWith(bytes.NewReader(edited)); err == nil || !strings.Contains(err.Error(), "changed after") {
			t.Errorf("%s → %s: %v, want refused as changed", e[0], e[1], err)
		}
	}
}
