package unroll

import (
	"errors"
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
