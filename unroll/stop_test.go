package unroll

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestStopBetweenEpochs: Config.Run.Stop ends training between epochs with
// greedy.ErrInterrupted, the completed epochs committed; Resume continues.
func TestStopBetweenEpochs(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	n := 0
	cfg := Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "ps"), T: 2}, Solver: Solver{Batch: 1, Epochs: 4},
		Run: Run{Dir: dir, Progress: func(EpochInfo) { n++ }, Stop: func() bool { return n == 2 }}}
	if _, err := Train(o, cfg); !errors.Is(err, checkpoint.ErrInterrupted) {
		t.Fatalf("Stop: %v", err)
	}
	st, err := ReadState(dir)
	if err != nil || len(st.Epochs) != 2 {
		t.Fatalf("after the stop: %v, %d epochs", err, len(st.Epochs))
	}
	cfg.Run.Stop, cfg.Run.Resume = nil, true
	res, err := Train(o, cfg)
	if err != nil || len(res.Epochs) != 4 {
		t.Fatalf("resume: %v", err)
	}
}

// TestEditedStateRefused: unroll.json is sealed; a one-byte edit (the
// learning rate a resume would continue with) is refused, naming the file.
func TestEditedStateRefused(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	cfg := Config{Problem: Problem{Name: "deblur"}, Method: Method{Param: method(t, "ps"), T: 2}, Solver: Solver{Batch: 1, Epochs: 1, LearningRate: 1e-3},
		Run: Run{Dir: dir}}
	if _, err := Train(o, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); err != nil {
		t.Fatalf("as written: %v", err)
	}
	path := filepath.Join(dir, "unroll.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"learning_rate": 0.001`), []byte(`"learning_rate": 0.002`), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("no learning rate 0.001 in %s", b)
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); !errors.Is(err, checkpoint.ErrEdited) || !strings.Contains(err.Error(), "unroll.json") {
		t.Errorf("edited unroll.json: %v, want the seal's refusal naming the file", err)
	}
}
