package unroll

import (
	"errors"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// TestStopBetweenEpochs: Config.Stop ends training between epochs with
// greedy.ErrInterrupted, the completed epochs committed; Resume continues.
func TestStopBetweenEpochs(t *testing.T) {
	dir := t.TempDir()
	o := deblurSet(t, 2, 8, 1)
	n := 0
	cfg := Config{Method: method(t, "ps"), T: 2, Batch: 1, Epochs: 4, Dir: dir, Problem: "deblur",
		Progress: func(EpochInfo) { n++ }, Stop: func() bool { return n == 2 }}
	if _, err := Train(o, cfg); !errors.Is(err, checkpoint.ErrInterrupted) {
		t.Fatalf("Stop: %v", err)
	}
	st, err := ReadState(dir)
	if err != nil || len(st.Epochs) != 2 {
		t.Fatalf("after the stop: %v, %d epochs", err, len(st.Epochs))
	}
	cfg.Stop, cfg.Resume = nil, true
	res, err := Train(o, cfg)
	if err != nil || len(res.Epochs) != 4 {
		t.Fatalf("resume: %v", err)
	}
}
