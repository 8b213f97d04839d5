package cudasrc

import _ "embed"

//go:generate go run ./genres

// Resources is the table of what ptxas makes of PTX for each GPU
// architecture package gpu/launch checks launches against (launch.Targets):
// per kernel, its registers per thread, static shared memory, constant bank
// 0 (parameters), stack frame and spills, as `ptxas -v` reports them
// (resources.tsv, tab-separated, written by `go generate ./gpu/cudasrc`
// after the PTX: command genres assembles PTX with ptxas for every target).
// Its header records the SHA-256 of the PTX it was made from and the ptxas
// release; package gpu/launch's tests fail when it is out of date (without
// ptxas: the PTX's hash; with ptxas: the assembly itself). Parse it with
// launch.ParseTable.
//
//go:embed resources.tsv
var Resources string
