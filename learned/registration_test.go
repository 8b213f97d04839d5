package learned

import (
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
	"github.com/greedyl2o/greedyl2o/provenance"
)

// TestLoadNamesTheProgramThatRegistered: a checkpoint of a family this
// binary does not know is refused naming the program that trained it (as
// its provenance records) and how to get a binary that knows the family.
func TestLoadNamesTheProgramThatRegistered(t *testing.T) {
	dir := t.TempDir()
	man := &checkpoint.Manifest{Format: checkpoint.FormatVersion, Method: "m-nosuchfamily", H: 8, W: 8, ThetaLen: 1, PhiLen: 1, L: 1, Tau: 1, Steps: []checkpoint.StepInfo{{T: 0}},
		Provenance: &provenance.Record{Invocation: provenance.Invocation{Build: provenance.Build{
			Program: "example.com/lab/l2o-lab", Library: "v0.0.0-20261128101500-640fc34a1b2c"}}}}
	if err := checkpoint.WriteManifest(dir, man); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(dir)
	for _, want := range []string{"nosuchfamily", "example.com/lab/l2o-lab", "v0.0.0-20261128101500-640fc34a1b2c", "Your own l2o"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: error %v, want it to name %q", err, want)
		}
	}
	man.Provenance = nil
	if err := checkpoint.WriteManifest(dir, man); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "build") {
		t.Errorf("Load without provenance: error %v, want how to build a binary that registers the family", err)
	}
}
