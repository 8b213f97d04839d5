package mconv

import (
	"sync"
	"unsafe"
)

// Vector kernels for K = 3 (Banert's 32-channel layers). Forward and
// AdjointInput: in float64 (runAcc, vec.ConvAcc3x64) all outputs of an
// output row at once, the row's sums in a buffer in L1 and every input row
// swept once with the nine taps of three outputs in registers; in float32
// (runTiles, vec.ConvTile3x32) tileOut output planes × tileCols columns at
// a time, their sums over the input channels kept in registers, the outputs
// in the lanes.
// AdjointWeights sums tileOutW outputs × a vector of input channels × the
// three taps of a filter row (vec.ConvWeightsRow3x). In float64 every output
// is the scalar loops' operations in their order, so the results are theirs
// bit for bit; in float32 the kernels fuse.

const (
	tileOut  = 8  // output planes of a Forward or AdjointInput tile
	tileCols = 12 // columns of a float32 tile (vec.ConvTile3x32)
	rowVecs  = 4  // vectors of columns of vec.ConvRow3x, one output plane
	tileOutW = 4  // outputs of an AdjointWeights tile
	tileRows = 4  // output rows of one parallel task
)

// tiles returns how many tiles of tileOut outputs run vec.ConvTile3x, and
// whether the outputs past them run vec.ConvRow3x (or the row kernels).
func (op *corrOp[F]) tiles() (tiles int, rows bool) {
	if !convTiles || op.k != 3 {
		return 0, false
	}
	if op.wd >= tileCols {
		tiles = op.nOut / tileOut
	}
	return tiles, op.wd >= rowVecs*vecLanes[F]()
}

// runRows computes the output planes from 8·tiles on with vec.ConvRow3x,
// rowVecs vectors of columns of one plane at a time, as runTiles does.
func (op *corrOp[F]) runRows(tiles int) {
	lo := tiles * tileOut
	outs := op.nOut - lo
	wp := make([]F, outs*op.nIn*9) // [a][b][u][v], flipped when op.flip
	for a := range outs {
		for b := range op.nIn {
			f := op.w[((lo+a)*op.outStride+b*op.inStride)*9:][:9]
			for tap := range 9 {
				src := tap
				if op.flip {
					src = 8 - tap
				}
				wp[(a*op.nIn+b)*9+tap] = f[src]
			}
		}
	}
	init := make([]F, outs)
	if op.bias != nil {
		copy(init, op.bias[lo:])
	}
	pw, n := op.wd+2, rowVecs*vecLanes[F]()
	ps := padStride[F](op.h, pw)
	pad := getPad[F](op.nIn * ps)
	defer putPad(pad)
	for img := range op.n {
		op.padImage(pad, img, ps)
		parallelFor(outs*op.h, op.wd*op.nIn*9, func(task int) {
			a, i := task/op.h, task%op.h
			u0, u1 := max(0, 1-i), min(3, op.h-i+1)
			dr := op.dst[((img*op.nOut+lo+a)*op.h+i)*op.wd:][:op.wd]
			wa := wp[a*op.nIn*9+3*u0:]
			for j := 0; ; j += n {
				j = min(j, op.wd-n) // the last block overlaps the one before
				convRow(dr[j:], pad[(i+u0-1)*pw+j:], wa, init[a:], op.nIn, u1-u0, ps, pw)
				if j == op.wd-n {
					break
				}
			}
		})
	}
}

// packTiles returns the taps of the tiled outputs' filters (flipped when
// op.flip) in the kernel's order [tile][b][u][v][q], q < tileOut.
func (op *corrOp[F]) packTiles(tiles int) []F {
	wp := make([]F, tiles*op.nIn*9*tileOut)
	i := 0
	for t := range tiles {
		for b := range op.nIn {
			for u := range 3 {
				for v := range 3 {
					tap := u*3 + v
					if op.flip {
						tap = 8 - tap
					}
					for q := range tileOut {
						a := t*tileOut + q
						wp[i] = op.w[(a*op.outStride+b*op.inStride)*9+tap]
						i++
					}
				}
			}
		}
	}
	return wp
}

// padStride returns the distance in elements between the padded planes of
// rows of pw elements: at least h·pw, an odd number of 64-byte lines, so
// that the rows of successive planes fall in different sets of the L1
// cache (with a multiple of 4096 bytes they would all share a few).
func padStride[F Float](h, pw int) int {
	line := 64 / int(unsafe.Sizeof(F(0)))
	n := (h*pw + line - 1) / line
	if n%2 == 0 {
		n++
	}
	return n * line
}

// bufPools keep buffers between calls, one pool for float32's and one for
// float64's: a layer applied at every iteration would otherwise allocate
// them at every call.
type bufPools [2]sync.Pool

// padPools keep padded and interleaved images; rowPools runAcc's buffers
// of output rows (apart: a pool returns any of its buffers).
var padPools, rowPools bufPools

func getBuf[F Float](pools *bufPools, n int) []F {
	if p, ok := pools[unsafe.Sizeof(F(0))/8].Get().(*[]F); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]F, n)
}

func putBuf[F Float](pools *bufPools, b []F) { pools[unsafe.Sizeof(F(0))/8].Put(&b) }

func getPad[F Float](n int) []F { return getBuf[F](&padPools, n) }

func putPad[F Float](pad []F) { putBuf(&padPools, pad) }

// padImage copies the nIn planes of image img of op.src into pad (planes
// ps apart) with a zero column on each side of every row.
func (op *corrOp[F]) padImage(pad []F, img, ps int) {
	pw, plane := op.wd+2, op.h*op.wd
	parallelFor(op.nIn, plane, func(b int) {
		sp := op.src[(img*op.nIn+b)*plane : (img*op.nIn+b+1)*plane]
		pp := pad[b*ps : b*ps+op.h*pw]
		for r := 0; r < op.h; r++ {
			row := pp[r*pw : (r+1)*pw]
			row[0], row[pw-1] = 0, 0
			copy(row[1:pw-1], sp[r*op.wd:(r+1)*op.wd])
		}
	})
}

// runTiles computes the first tileOut·tiles output planes of every image
// with vec.ConvTile3x32 (float32). A filter row above or below the image is
// left out, as in the scalar loops; the zero columns of the padded rows give
// the border columns the scalar loops' products (borderTap).
func (op *corrOp[F]) runTiles(tiles int) {
	wp := op.packTiles(tiles)
	init := make([]F, tiles*tileOut)
	if op.bias != nil {
		copy(init, op.bias)
	}
	pw, plane, cols := op.wd+2, op.h*op.wd, tileCols
	ps := padStride[F](op.h, pw)
	pad := getPad[F](op.nIn * ps)
	defer putPad(pad)
	chunks := (op.h + tileRows - 1) / tileRows
	for img := range op.n {
		op.padImage(pad, img, ps)
		dimg := op.dst[img*op.nOut*plane : (img+1)*op.nOut*plane]
		// A task is a band of rows, all tiles: the input rows of an output
		// row are read once from memory and then from cache.
		parallelFor(chunks, tiles*tileRows*op.wd*op.nIn*9*tileOut, func(c int) {
			for i := c * tileRows; i < min(op.h, (c+1)*tileRows); i++ {
				u0, u1 := max(0, 1-i), min(3, op.h-i+1)
				for t := range tiles {
					dt, wt := dimg[t*tileOut*plane+i*op.wd:], wp[t*op.nIn*72+24*u0:]
					src, it := pad[(i+u0-1)*pw:], init[t*tileOut:]
					for j := 0; ; j += cols {
						j = min(j, op.wd-cols) // the last call overlaps the one before
						convTile(dt[j:], src[j:], wt, it, op.nIn, u1-u0, plane, ps, pw)
						if j == op.wd-cols {
							break
						}
					}
				}
			}
		})
	}
}

// weightTiles returns how many tiles of tileOutW outputs AdjointWeights
// runs with vec.ConvWeightsRow3x.
func weightTiles[F Float](s Shape) int {
	if !convTiles || s.K != 3 || s.W < 3 {
		return 0
	}
	return s.Cout / tileOutW
}

// adjointWeightsTile is AdjointWeights' filters for the outputs
// tileOutW·t … and the input channels of vector group g (xt interleaves
// groups groups): per image, row and filter row, the kernel adds the row's
// interior sum and then its border products, as adjointWeightsPair does.
func adjointWeightsTile[F Float](gw, xt, y []F, s Shape, t, g, groups int) {
	lanes, plane := vecLanes[F](), s.H*s.W
	var buf [3 * tileOutW * 3 * 8]F
	gt := buf[:3*tileOutW*3*lanes] // [u][o][v][lane]
	for n := range s.N {
		yt := y[(n*s.Cout+t*tileOutW)*plane:]
		xg := xt[(n*groups+g)*lanes*plane : (n*groups+g+1)*lanes*plane]
		for i := range s.H {
			for u := range 3 {
				r := i + u - 1
				if r < 0 || r >= s.H {
					continue
				}
				convWeightsRow(gt[u*tileOutW*3*lanes:], yt[i*s.W:], plane, xg[r*s.W*lanes:], s.W)
			}
		}
	}
	for o := range tileOutW {
		for l := range min(lanes, s.Cin-g*lanes) {
			f := gw[((t*tileOutW+o)*s.Cin+g*lanes+l)*9:][:9]
			for u := range 3 {
				for v := range 3 {
					f[u*3+v] = gt[((u*tileOutW+o)*3+v)*lanes+l]
				}
			}
		}
	}
}

// biasSum sets gb[o] = Σ_n Σ_{i,j} y[n,o,i,j]: in float64 summed in the
// order of the scalar loops (adjointWeightsPair), in float32 in float64
// (vec.PlaneSum32) and rounded once.
func biasSum[F Float](gb, y []F, s Shape, o int) {
	plane := s.H * s.W
	if unsafe.Sizeof(F(0)) == 4 {
		var sum float64
		for n := range s.N {
			sum += planeSum(y[(n*s.Cout+o)*plane : (n*s.Cout+o+1)*plane])
		}
		gb[o] = F(sum)
		return
	}
	var sum F
	for n := range s.N {
		for _, v := range y[(n*s.Cout+o)*plane : (n*s.Cout+o+1)*plane] {
			sum += v
		}
	}
	gb[o] = sum
}

// accRows is whether run computes all outputs with vec.ConvAcc3x64.
func (op *corrOp[F]) accRows() bool {
	return convTiles && accTiles[F]() && op.k == 3 && op.nOut >= accGroup
}

// accGroup is the number of outputs of one group of vec.ConvAcc3x64.
const accGroup = 3

// runAcc computes the first outs output planes of every image with
// vec.ConvAcc3x64 (float64), in groups of three outputs (the last one
// padded with outputs of zero taps): each output row is set to the bias in
// a buffer, every input row of the filter rows that fall inside the image
// is added to it (as the scalar loops add them: rowCorr), and the row is
// copied out. The zero columns of the padded rows give the border columns
// the scalar loops' products (borderTap).
func (op *corrOp[F]) runAcc(outs int) {
	groups := (outs + accGroup - 1) / accGroup
	wp := op.packAcc(outs, groups)
	pw, plane := op.wd+2, op.h*op.wd
	nv := (op.wd + 3) / 4 // vectors of a row; columns past wd are dropped
	ps := padStride[F](op.h, pw)
	pad := getPad[F](op.nIn*ps + 4) // a last row read up to 4·nv + 2 columns
	defer putPad(pad)
	rowLen := 4 * nv
	start := make([]F, accGroup*groups*rowLen) // every output row's initial value, the bias
	if op.bias != nil {
		for o := range outs {
			row := start[o*rowLen : (o+1)*rowLen]
			for j := range row {
				row[j] = op.bias[o]
			}
		}
	}
	chunks := (op.h + tileRows - 1) / tileRows
	for img := range op.n {
		op.padImage(pad, img, ps)
		dimg := op.dst[img*op.nOut*plane : (img+1)*op.nOut*plane]
		parallelFor(chunks, tileRows*op.wd*op.nIn*9*outs, func(c int) {
			acc := getBuf[F](&rowPools, len(start))
			defer putBuf(&rowPools, acc)
			for i := c * tileRows; i < min(op.h, (c+1)*tileRows); i++ {
				copy(acc, start)
				u0, u1 := max(0, 1-i), min(3, op.h-i+1)
				convAcc(acc, pad[(i+u0-1)*pw:], wp[9*groups*u0:], op.nIn, u1-u0, ps, pw, groups, nv)
				for o := range outs {
					copy(dimg[o*plane+i*op.wd:][:op.wd], acc[o*rowLen:])
				}
			}
		})
	}
}

// packAcc returns the taps of the first outs outputs' filters (flipped when
// op.flip) in vec.ConvAcc3x64's order [b][u][o][v], o < 3·groups, the
// outputs past outs with zero taps.
func (op *corrOp[F]) packAcc(outs, groups int) []F {
	g3 := accGroup * groups
	wp := make([]F, op.nIn*3*g3*3)
	for b := range op.nIn {
		for u := range 3 {
			for o := range outs {
				f := op.w[(o*op.outStride+b*op.inStride)*9:][:9]
				for v := range 3 {
					tap := u*3 + v
					if op.flip {
						tap = 8 - tap
					}
					wp[((b*3+u)*g3+o)*3+v] = f[tap]
				}
			}
		}
	}
	return wp
}
