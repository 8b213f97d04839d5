// Package checkpoint is the on-disk format every trainer of greedyl2o shares:
// the manifest of a learned optimizer's parameters (Manifest: settings, the
// steps, the SHA-256 of every file, the provenance), .npy vectors (ReadNPY,
// WriteNPY; DecodeNPY parses any C-order float64 .npy), atomic writes that
// survive kill -9 (WriteFileAtomic, RemoveTemps), checksum verification
// (VerifyChecksums, ErrChecksum), and the advisory lock that keeps two runs
// out of one directory (LockDir).
//
// Greedy training (package greedy) and unrolled training (package unroll)
// write this manifest, so `l2o apply` and `l2o eval` load either; Banert's
// method keeps its own manifest but the same files, checksums and locks.
// A manifest is the commit point of a checkpoint: a file exists for a
// reader once the manifest lists it with its checksum.
package checkpoint
