// Package provenance records where a result came from, so that every output
// of l2o (checkpoint manifests, curves.json, CSV headers, reports) can say
// it: the command line, the l2o build (module version and VCS revision from
// runtime/debug.ReadBuildInfo), the UTC time, the machine (cores,
// GOMAXPROCS, CPU model), and, where they apply, the data split (data.Record
// for training, the test images' refs for an evaluation), the f* method, and
// the checkpoints evaluated with the SHA-256 of their manifests.
//
// A Record is plain data with JSON tags; Here fills in the parts that come
// from the running process.
package provenance
