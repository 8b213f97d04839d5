package eval

import (
	"bytes"
	"testing"
)

// FuzzReadJSON checks that the reader of curves.json never panics and that
// curves it accepts survive a round trip through WriteJSON. Seeds in
// testdata/fuzz/FuzzReadJSON.
func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"format":"greedyl2o-eval-curves-v1","curves":[{"method":"gd","iter":[0,1],"seconds":[0,0.1],"f":null,"grad_norm":null,"optimality":null,"mean":[1,"NaN"],"min":[1,0.5],"max":[1,"+Inf"],"psnr":{"0":[20]}}]}`))
	f.Add([]byte(`{"format":"greedyl2o-eval-curves-v1","curves":[{"method":"x","iter":[0],"seconds":[0],"mean":[1],"min":[1],"max":[1],"diverged_at":1,"status":"diverged at iteration 1"}]}`))
	f.Add([]byte(`{"format":"greedyl2o-eval-curves-v1","curves":[{"method":"x","iter":[0,1],"seconds":[0],"mean":[1],"min":[1],"max":[1]}]}`))
	f.Add([]byte(`{"format":"greedyl2o-eval-curves-v1","curves":[{"method":"x (safeguarded bgd)","iter":[0,1],"seconds":[0,0.1],"mean":[1,0.5],"min":[1,0.5],"max":[1,0.5],"safeguard_rejected":1,"steps":2,"accepted":["NaN",0.5]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		curves, err := ReadJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, curves); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("reading the re-encoded curves: %v", err)
		}
		var buf2 bytes.Buffer
		WriteJSON(&buf2, back)
		if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("round trip is not stable")
		}
		if err := WriteCSV(&bytes.Buffer{}, curves); err != nil {
			t.Fatalf("CSV of accepted curves: %v", err)
		}
	})
}
