package cu

// #include <cuda.h>
import "C"
import "unsafe"

// This file is greedyl2o's addition to gorgonia.org/cu v0.9.6 (see
// README.greedyl2o.md): page-locked host memory, from which a copy to the
// device (MemcpyHtoDAsync) runs without the host waiting.

// MemAllocHost allocates bytesize bytes of page-locked host memory
// (cuMemAllocHost), freed by MemFreeHost.
func MemAllocHost(bytesize int64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := result(C.cuMemAllocHost(&p, C.size_t(bytesize)))
	return p, err
}
