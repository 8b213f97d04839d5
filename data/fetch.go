package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultDataDir is the folder, relative to the current directory, that
// "l2o data fetch" fills when no --to is given, and that the reproduction
// scripts and the documentation read (--data datasets/stl10 and so on).
// The environment variable L2O_DATA overrides it.
const DefaultDataDir = "datasets"

// DataDir returns the data folder: $L2O_DATA when set, DefaultDataDir
// otherwise.
func DataDir() string {
	if d := os.Getenv("L2O_DATA"); d != "" {
		return d
	}
	return DefaultDataDir
}

// Upstream is the raw-file host that Fetch downloads from when no mirror is
// given: a file is at Upstream/OWNER/REPO/COMMIT/PATH.
const Upstream = "https://raw.githubusercontent.com"

// ErrChecksum marks a source file whose SHA-256 differs from the pinned one.
var ErrChecksum = errors.New("SHA-256 differs from the pinned value")

// ErrUnknown marks a data set name Fetch does not know.
var ErrUnknown = errors.New("unknown data set")

// ErrExists marks an output file that already holds other content.
var ErrExists = errors.New("output exists with other content")

// pinnedCommits are the upstream repositories at the commits the data were
// made from.
var pinnedCommits = map[string]string{
	"semihyagli/STL10-Labeled":                 "6f9f01c52c80253cd533b0240e56bac493cf77b5",
	"semihyagli/STL10_Segmentation":            "8f852c8e1a1253719fa8f8030c304071639b8c06",
	"dwaipayan05/CovCNN-WebApp":                "7b3c1d976e1968f05f520411356158beeabd4a19",
	"axgoujon/weakly_convex_ridge_regularizer": "a042f67fc7c52f89ac3bdcccf604291a4d929081",
}

// pinnedImage is one upstream PNG and the image made from it: the output
// file (relative to the data set's folder), the source repository and path,
// the source's SHA-256 and the SHA-1 of the grey pixels it must convert to.
type pinnedImage struct{ File, Repo, Path, SHA256, PixelSHA1 string }

// SourceFile is one upstream file pinned by repository, commit and SHA-256.
type SourceFile struct{ Repo, Commit, Path, SHA256 string }

// Dataset is a real data set that Fetch can build.
type Dataset struct {
	Name    string // the argument of "l2o data fetch"
	What    string
	Licence string
	Sources []SourceFile
	Note    string // printed before the conversion, when it takes a while
	// build converts the verified sources (local paths, in the order of
	// Sources) into files relative to the data set's folder.
	build func(paths []string) (map[string][]byte, error)
}

// Datasets returns the data sets Fetch knows, by name.
func Datasets() map[string]*Dataset {
	return map[string]*Dataset{
		"stl10": {Name: "stl10", What: "STL-10 images, grey 96×96 (Coates, Ng, Lee 2011)",
			Licence: "STL-10 states no licence; its images come from ImageNet and remain their owners': research evaluation only",
			Sources: imageSources(stl10Images), build: buildSTL10},
		"covid-ct": {Name: "covid-ct", What: "SARS-CoV-2 CT-scan slices, 256×256 and 40×40 (Soares et al. 2020)",
			Licence: "CC BY-NC-SA 4.0 (credit Soares et al. 2020, doi:10.1101/2020.04.24.20078584; no commercial use)",
			Sources: imageSources(covidCTImages), build: buildCovidCT},
		"wcrr": {Name: "wcrr", What: "pretrained WCRR-CNN at σ = 18 (Goujon, Neumayer, Unser 2024)",
			Licence: "none stated by the repository: cite the paper; the authors have granted no licence",
			Sources: wcrrSources, build: buildWCRR,
			Note: "computing L = λmax(CᵀC) on 256×256 images by Lanczos (about 75 s of CPU)"},
	}
}

func imageSources(ims []pinnedImage) []SourceFile {
	out := make([]SourceFile, len(ims))
	for i, im := range ims {
		out[i] = SourceFile{Repo: im.Repo, Commit: pinnedCommits[im.Repo], Path: im.Path, SHA256: im.SHA256}
	}
	return out
}

// FetchOptions says where Fetch reads and writes.
type FetchOptions struct {
	// From is a mirror: a folder or an http(s) base URL laid out as
	// OWNER/REPO/PATH. Empty means Upstream (OWNER/REPO/COMMIT/PATH).
	From string
	// To is the data folder (DataDir() when empty). Verified sources are
	// kept under To/.sources, so an interrupted fetch resumes.
	To     string
	Log    io.Writer    // progress and licences (io.Discard when nil)
	Client *http.Client // http.DefaultClient when nil
}

// Fetch downloads the named data sets' pinned sources, verifies each
// against its SHA-256 (a mismatch is an ErrChecksum naming the file) and
// converts them into To/NAME/. Outputs are written atomically; an output
// that already holds the same bytes is kept, one with other bytes is
// refused (ErrExists).
func Fetch(names []string, opt FetchOptions) error {
	all := Datasets()
	if len(names) == 0 {
		return fmt.Errorf("%w: none named; choose from %s", ErrUnknown, strings.Join(datasetNames(all), ", "))
	}
	for _, n := range names {
		if all[n] == nil {
			return fmt.Errorf("%w %q; choose from %s", ErrUnknown, n, strings.Join(datasetNames(all), ", "))
		}
	}
	opt = opt.withDefaults()
	for _, n := range names {
		if err := fetchOne(all[n], opt); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}

func (opt FetchOptions) withDefaults() FetchOptions {
	if opt.To == "" {
		opt.To = DataDir()
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	return opt
}

func datasetNames(all map[string]*Dataset) []string {
	var names []string
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func fetchOne(d *Dataset, opt FetchOptions) error {
	paths := make([]string, len(d.Sources))
	fetched := 0
	for i, s := range d.Sources {
		p, got, err := fetchSource(s, opt)
		if err != nil {
			return err
		}
		paths[i] = p
		if got {
			fetched++
		}
	}
	if d.Note != "" {
		fmt.Fprintf(opt.Log, "%s: %s\n", d.Name, d.Note)
	}
	files, err := d.build(paths)
	if err != nil {
		return err
	}
	dir := filepath.Join(opt.To, d.Name)
	written, kept := 0, 0
	for _, name := range sortedKeys(files) {
		same, err := writeIfNew(filepath.Join(dir, name), files[name])
		if err != nil {
			return err
		}
		if same {
			kept++
		} else {
			written++
		}
	}
	fmt.Fprintf(opt.Log, "%s: %s\n  %d sources verified (%d fetched, %d already here); %d written, %d already identical, in %s\n  licence: %s\n",
		d.Name, d.What, len(paths), fetched, len(paths)-fetched, written, kept, dir, d.Licence)
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fetchSource returns the local path of the verified source file s, fetching it
// into To/.sources/OWNER/REPO/PATH unless a verified copy is there; got
// reports a fetch.
func fetchSource(s SourceFile, opt FetchOptions) (path string, got bool, err error) {
	local := filepath.Join(opt.To, ".sources", filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path))
	if sum, err := fileSHA256(local); err == nil && sum == s.SHA256 {
		return local, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return "", false, err
	}
	part := local + ".part"
	if isURL(opt.From) || opt.From == "" {
		err = download(opt.Client, sourceURL(s, opt.From), part)
	} else {
		err = copyFile(filepath.Join(opt.From, filepath.FromSlash(s.Repo), filepath.FromSlash(s.Path)), part)
	}
	if err != nil {
		return "", false, fmt.Errorf("%s/%s: %w", s.Repo, s.Path, err)
	}
	sum, err := fileSHA256(part)
	if err != nil {
		return "", false, err
	}
	if sum != s.SHA256 {
		os.Remove(part)
		return "", false, fmt.Errorf("%s/%s: %w (got %s, pinned %s): the mirror's copy is not the upstream file; nothing was converted",
			s.Repo, s.Path, ErrChecksum, sum, s.SHA256)
	}
	return local, true, os.Rename(part, local)
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// sourceURL is the address of s: Upstream/OWNER/REPO/COMMIT/PATH, or
// BASE/OWNER/REPO/PATH on a mirror, each path segment escaped.
func sourceURL(s SourceFile, base string) string {
	segs := strings.Split(s.Repo, "/")
	if base == "" {
		base = Upstream
		segs = append(segs, s.Commit)
	}
	segs = append(segs, strings.Split(s.Path, "/")...)
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.TrimRight(base, "/") + "/" + strings.Join(segs, "/")
}

// download fetches u into part, resuming a partial file with a Range
// request (a server that ignores it sends the whole file again).
func download(c *http.Client, u, part string) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags = os.O_WRONLY | os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return nil // the partial file is complete; its checksum decides
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("GET %s: %w (rerun to resume)", u, err)
	}
	return f.Close()
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeIfNew writes b to path atomically; same reports that path already
// held exactly b. A path holding other bytes is refused.
func writeIfNew(path string, b []byte) (same bool, err error) {
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, b) {
			return true, nil
		}
		return false, fmt.Errorf("%s: %w; remove it or fetch into another --to", path, ErrExists)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return false, err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return false, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return false, err
	}
	return false, os.Rename(tmp.Name(), path)
}
