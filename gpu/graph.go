package gpu

// Capturer is a device that can record a sequence of its queued operations
// into a Graph, run again by one launch (gpu/cuda's Device: a CUDA graph).
// Only work that is queued can be captured (kernels, transforms, copies
// and zeroing on the device): an operation that waits for the device or
// moves values to or from the host fails during a capture. A graph holds
// the buffers, shapes and scalar arguments of its capture and reads the
// buffers' values when it runs.
type Capturer interface {
	// CaptureGraph calls fn, which queues operations on the device, and
	// records them into a Graph instead of running them.
	CaptureGraph(fn func() error) (Graph, error)
}

// Graph is a captured sequence of a device's operations (Capturer).
type Graph interface {
	// Launch queues the graph's operations in their captured order; like
	// the device's other operations, it does not wait for them.
	Launch() error
	// Destroy releases the graph; it is safe to call more than once.
	Destroy()
}
