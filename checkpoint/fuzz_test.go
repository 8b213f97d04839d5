package checkpoint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
)

// FuzzDecodeNPY checks that DecodeNPY never panics nor allocates more than
// twice its input (float32 files widen to float64s), and that what it accepts survives a round trip through
// WriteNPY's encoding. Seeds in testdata/fuzz/FuzzDecodeNPY.
func FuzzDecodeNPY(f *testing.F) {
	for _, v := range [][]float64{{}, {1}, {1.5, -2, 3e-300}} {
		var buf bytes.Buffer
		if err := npyio.Write(&buf, v); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	var buf bytes.Buffer
	if err := npyio.Write(&buf, []float32{1.5, -2, 0.25}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeNPY(b, "fuzz.npy", -1)
		if err != nil {
			return
		}
		if 4*len(v) > len(b) {
			t.Fatalf("%d values from %d bytes", len(v), len(b))
		}
		var buf bytes.Buffer
		if err := npyio.Write(&buf, v); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		back, err := DecodeNPY(buf.Bytes(), "fuzz.npy", len(v))
		if err != nil {
			t.Fatalf("decoding the re-encoded values: %v", err)
		}
		for i := range v {
			if back[i] != v[i] {
				t.Fatalf("value %d changed from %v to %v", i, v[i], back[i])
			}
		}
	})
}

// FuzzParseManifest checks that ParseManifest never panics and that a
// manifest it accepts is stable under re-encoding. Seeds in
// testdata/fuzz/FuzzParseManifest.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"format":"greedyl2o-greedy/1","problem":"deblur","height":8,"width":8,"theta_len":1,"phi_len":1,"tau":0.75,"L":1.32,"steps":[{"t":0,"loss":1}],"sha256":{"params/theta_00000.npy":"` + Sum(nil) + `"}}`))
	f.Add([]byte(`{"format":"greedyl2o-greedy/1","operator":"blur(σ=1.5,9×9,zero)","height":4,"width":5,"theta_len":20,"tau":1,"L":-1,"steps":[]}`))
	f.Add([]byte(`{"format":"greedyl2o-greedy/1","steps":[{"t":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest("manifest.json", b)
		if err != nil {
			return
		}
		if m.H < 1 || m.W < 1 || m.ThetaLen < 1 || m.PhiLen < 0 || !(m.L > 0) || !(m.Tau > 0) {
			t.Fatalf("accepted sizes %d×%d, lengths %d, %d, L %g, τ %g", m.H, m.W, m.ThetaLen, m.PhiLen, m.L, m.Tau)
		}
		enc, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		m2, err := ParseManifest("manifest.json", enc)
		if err != nil {
			t.Fatalf("parsing the re-encoded manifest: %v\n%s", err, enc)
		}
		enc2, _ := json.Marshal(m2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// TestParseManifestRefusesBadConstants: a manifest whose L or τ is not a
// positive finite number would certify convergence on "every −1-smooth
// function"; it is refused, naming the file.
func TestParseManifestRefusesBadConstants(t *testing.T) {
	for _, lt := range []string{`"tau":0.75,"L":-1`, `"tau":0.75,"L":0`, `"tau":0,"L":1.32`, `"tau":0.75`} {
		b := []byte(`{"format":"greedyl2o-greedy/1","height":8,"width":8,"theta_len":1,` + lt + `,"steps":[{"t":0}]}`)
		if _, err := ParseManifest("dir/manifest.json", b); err == nil || !strings.Contains(err.Error(), "dir/manifest.json") {
			t.Errorf("%s: %v", lt, err)
		}
	}
	good := []byte(`{"format":"greedyl2o-greedy/1","height":8,"width":8,"theta_len":1,"tau":0.75,"L":1.32,"steps":[{"t":0}]}`)
	if _, err := ParseManifest("dir/manifest.json", good); err != nil {
		t.Errorf("a sound manifest: %v", err)
	}
}
