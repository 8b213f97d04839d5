package cu

// #include <cuda.h>
import "C"

// This file is greedyl2o's addition to gorgonia.org/cu v0.9.6 (see
// README.greedyl2o.md): stream capture into a CUDA graph, its
// instantiation and launch.

// StreamCaptureMode says which calls a stream capture forbids: with
// CaptureModeGlobal any thread's potentially unsafe call (an allocation, a
// synchronous copy) fails during a capture, with CaptureModeThreadLocal
// only the capturing thread's, with CaptureModeRelaxed none.
type StreamCaptureMode int

// The capture modes (CUstreamCaptureMode).
const (
	CaptureModeGlobal      StreamCaptureMode = C.CU_STREAM_CAPTURE_MODE_GLOBAL
	CaptureModeThreadLocal StreamCaptureMode = C.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
	CaptureModeRelaxed     StreamCaptureMode = C.CU_STREAM_CAPTURE_MODE_RELAXED
)

// BeginCapture starts capturing the work queued on the stream into a graph
// (cuStreamBeginCapture): until EndCapture, that work is recorded, not run.
// The legacy stream (NoStream) cannot capture.
func (s Stream) BeginCapture(mode StreamCaptureMode) error {
	return result(C.cuStreamBeginCapture(s.s, C.CUstreamCaptureMode(mode)))
}

// EndCapture ends the stream's capture and returns the graph of the work
// recorded (cuStreamEndCapture). It fails when the capture was invalidated
// (a forbidden call was made during it); the graph is then empty.
func (s Stream) EndCapture() (Graph, error) {
	var g Graph
	err := result(C.cuStreamEndCapture(s.s, &g.g))
	return g, err
}

// Instantiate makes an executable graph of g (cuGraphInstantiateWithFlags,
// no flags), which Launch runs; g may be destroyed afterwards.
func (g Graph) Instantiate() (ExecGraph, error) {
	var e ExecGraph
	err := result(C.cuGraphInstantiateWithFlags(&e.g, g.g, 0))
	return e, err
}

// Launch queues the graph's work on the stream (cuGraphLaunch), in the
// order of its dependencies.
func (g ExecGraph) Launch(s Stream) error { return result(C.cuGraphLaunch(g.g, s.s)) }
