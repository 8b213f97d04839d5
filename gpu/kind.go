package gpu

import "strings"

// KindOf is the kind of a device, as recorded in manifests and given to
// --device: "host" for the CPU device used through its array operations,
// otherwise its name up to the first ':' or space ("host32", "cuda" for
// "cuda:0 (NVIDIA H100)").
func KindOf(d Device) string {
	if _, ok := d.(*HostDevice); ok {
		return Host
	}
	name := d.Name()
	if i := strings.IndexAny(name, ": "); i >= 0 {
		return name[:i]
	}
	return name
}
