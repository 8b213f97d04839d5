package unroll

import (
	"bytes"
	"testing"

	"github.com/greedyl2o/greedyl2o/checkpoint"
)

// FuzzParseState checks that the reader of unroll.json never panics and
// that a state it accepts is stable under re-encoding (sealed, as written). Seeds in
// testdata/fuzz/FuzzParseState.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"format":"greedyl2o-unroll/1","problem":"deblur","T":2,"weights":[1,1],"batch":1,"epochs":[{"epoch":0}],"adam_step":3,"sha256":{"state/u_00001.npy":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}}`))
	f.Add([]byte(`{"format":"greedyl2o-unroll/1"}`))
	f.Add([]byte(`{"format":"greedyl2o-greedy/1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseState("unroll.json", b)
		if err != nil {
			return
		}
		enc, err := checkpoint.MarshalSealed(s)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		s2, err := parseState("unroll.json", enc)
		if err != nil {
			t.Fatalf("parsing the re-encoded state: %v\n%s", err, enc)
		}
		enc2, _ := checkpoint.MarshalSealed(s2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", enc, enc2)
		}
	})
}
