// Package data loads, generates, fetches and batches the grey images that
// the learned optimizers of greedyl2o are trained and tested on.
//
// An Image is a single-channel H×W image stored row-major (top row first)
// with values normally in [0, 1]. The package reads and writes binary PGM
// (8 and 16 bit) and PNG files, reads the STL-10 binary format (converted
// to grey with ITU-R 601-2 luma), generates deterministic synthetic natural
// images and Shepp–Logan-like CT phantoms, splits datasets reproducibly,
// stacks images into contiguous [N,H,W] batches, and hashes datasets for
// checkpoint manifests.
//
// Open is the entry point used by the command line: it turns a --data value
// ("synthetic", a folder, or an STL-10 file) into train and test sets.
//
// Fetch ("l2o data fetch") builds the real data sets from the upstream
// files they were made from, each pinned by repository, commit and SHA-256:
// STL-10 and the SARS-CoV-2 CT slices as PGMs identical byte for byte to
// the reference conversion (PillowGrey and PillowResizeBicubic reproduce
// Pillow 9.4's integer luma and bicubic resampling), and the pretrained WCRR
// regularizer exported from its PyTorch checkpoint (ExportWCRR, read with
// github.com/nlpodyssey/gopickle) in the JSON format package wcrr loads.
// DataDir is where they go: $L2O_DATA, or ./datasets.
package data
