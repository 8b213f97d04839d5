package banert

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseManifest checks that the reader of a Banert manifest never
// panics and that a manifest it accepts is stable under re-encoding and
// names files inside its directory only. Seeds in
// testdata/fuzz/FuzzParseManifest.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"format":"greedyl2o-banert/1","inputs":3,"num_params":10567,"T":2,"history":[{"epoch":0}],"params":"params_00001.npy","adam_m":"adam_m_00001.npy","adam_v":"adam_v_00001.npy"}`))
	f.Add([]byte(`{"format":"greedyl2o-banert/1","inputs":4,"num_params":1,"history":[]}`))
	f.Add([]byte(`{"format":"greedyl2o-banert/1","inputs":3,"num_params":10567,"history":[{}],"params":"../x.npy"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest("dir", "dir/manifest.json", b)
		if err != nil {
			return
		}
		for _, name := range []string{m.Params, m.AdamM, m.AdamV} {
			if bytes.ContainsAny([]byte(name), "/\\") && name != "" {
				t.Fatalf("accepted the file name %q", name)
			}
		}
		enc, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		m2, err := parseManifest("dir", "dir/manifest.json", enc)
		if err != nil {
			t.Fatalf("parsing the re-encoded manifest: %v\n%s", err, enc)
		}
		enc2, _ := json.Marshal(m2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("re-encoding is not stable:\n%s\n%s", enc, enc2)
		}
	})
}
