package data

import (
	"fmt"
	"path/filepath"
)

// Blocks has one of several processes read only its block of the test
// images (Request.Blocks). The processes take part in the same calls of
// Part and Share, in the same order.
type Blocks struct {
	// Part is this process's block [lo, hi) of n items: the processes'
	// blocks, in process order, are contiguous and cover the n.
	Part func(n int) (lo, hi int)
	// Share completes refs from every process, this one having filled
	// refs[lo:hi) (its Part of len(refs)): each ref's SHA-256 and content
	// hash.
	Share func(refs []Ref, lo, hi int) error
	// Read reports the test images this process reads (those its test
	// functions are computed from).
	Read func(j int) bool
}

// candidates is a source's training images and test candidates in order,
// read on demand.
type candidates struct {
	nTrain, nTest int // nTest: the candidates that follow the training images
	trainName     func(i int) string
	testName      func(c int) string
	loadTrain     func(i int) (*Image, error)
	loadTest      func(c int) (*Image, error)
}

// selectBlocks is Select for one of several processes (r.Blocks): the
// training images are read a block a process and only their hashes shared
// (TrainRefs is complete, Train empty); the test candidates are hashed a
// block a process, as many at a time as test images are still wanted, and
// the test set is the one Select takes, the same images skipped; then this
// process reads the test images of Blocks.Read alone (the others nil in
// Test; TestRefs complete).
func selectBlocks(spec string, c candidates, r Request) (*Selection, error) {
	b := r.Blocks
	s := &Selection{Source: spec}
	hashed := func(n int, name func(int) string, load func(int) (*Image, error), keep map[int]*Image) ([]Ref, error) {
		refs := make([]Ref, n)
		for i := range refs {
			refs[i].Name = name(i)
		}
		lo, hi := b.Part(n)
		for i := lo; i < hi; i++ {
			im, err := load(i)
			if err != nil {
				return nil, err
			}
			s.Loaded++
			if keep != nil {
				keep[i] = im
			}
			refs[i] = NewRef(refs[i].Name, im)
		}
		return refs, b.Share(refs, lo, hi)
	}
	var err error
	if s.TrainRefs, err = hashed(c.nTrain, c.trainName, c.loadTrain, nil); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, ref := range s.TrainRefs {
		addKeys(seen, ref)
	}
	var chosen []int // the candidates of the test images
	read := map[int]*Image{}
	for next := 0; len(chosen) < r.NTest; {
		need := r.NTest - len(chosen)
		if next+need > c.nTest {
			return nil, fmt.Errorf("data: %s: after the %d training images, %d of the %d candidates equal a training image, and %d remain for the %d test images asked for",
				spec, c.nTrain, s.Skipped, c.nTest, c.nTest-s.Skipped, r.NTest)
		}
		first := next
		round := map[int]*Image{}
		refs, err := hashed(need, func(i int) string { return c.testName(first + i) }, func(i int) (*Image, error) { return c.loadTest(first + i) }, round)
		if err != nil {
			return nil, err
		}
		for i, ref := range refs {
			if anyKey(seen, ref) || anyKey(r.Exclude, ref) {
				s.Skipped++
				continue
			}
			addKeys(seen, ref)
			chosen = append(chosen, first+i)
			s.TestRefs = append(s.TestRefs, ref)
			if im, ok := round[i]; ok {
				read[first+i] = im
			}
		}
		next += need
	}
	s.Test = make([]*Image, r.NTest)
	for j, cand := range chosen {
		if !b.Read(j) {
			continue
		}
		im, ok := read[cand]
		if !ok {
			if im, err = c.loadTest(cand); err != nil {
				return nil, err
			}
			s.Loaded++
		}
		s.Test[j] = im
	}
	return s, s.checkSize(r.H, r.W)
}

// shuffledCandidates are src's training images and test candidates in the
// order of the seed's permutation (selectShuffled).
func shuffledCandidates(src source, perm []int, nTrain int) candidates {
	return candidates{
		nTrain: nTrain, nTest: src.n - nTrain,
		trainName: func(i int) string { return src.name(perm[i]) },
		testName:  func(c int) string { return src.name(perm[nTrain+c]) },
		loadTrain: func(i int) (*Image, error) { return src.load(perm[i]) },
		loadTest:  func(c int) (*Image, error) { return src.load(perm[nTrain+c]) },
	}
}

// folderCandidates are the first nTrain images of spec/train (all of
// them for nTrain < 0) and the images of spec/test, by name
// (selectFolders).
func folderCandidates(spec string, nTrain int) (candidates, error) {
	trainDir, testDir := filepath.Join(spec, "train"), filepath.Join(spec, "test")
	trainNames, err := imageNames(trainDir)
	if err != nil {
		return candidates{}, err
	}
	if len(trainNames) < nTrain {
		return candidates{}, fmt.Errorf("data: %s has %d images, but %d were asked for", trainDir, len(trainNames), nTrain)
	}
	testNames, err := imageNames(testDir)
	if err != nil {
		return candidates{}, err
	}
	if nTrain < 0 {
		nTrain = len(trainNames)
	}
	return candidates{
		nTrain: nTrain, nTest: len(testNames),
		trainName: func(i int) string { return "train/" + trainNames[i] },
		testName:  func(c int) string { return "test/" + testNames[c] },
		loadTrain: func(i int) (*Image, error) { return LoadImage(filepath.Join(trainDir, trainNames[i])) },
		loadTest:  func(c int) (*Image, error) { return LoadImage(filepath.Join(testDir, testNames[c])) },
	}, nil
}
