package repository

import (
	"encoding/binary"
	"math/bits"
)

// git's commit-graph carries, when written with --changed-paths (as
// housekeeping writes it), a Bloom filter per commit of the paths that
// commit changed against its first parent, the leading directories
// included. A filter that does not hold a path proves the commit left it
// alone; one that may hold it proves nothing (git stores an all-ones
// filter for a commit that changed too many paths, and none at all where
// it did not compute one). This is git's filter as bloom.c reads it: each
// layer of the graph has its own BIDX (the filters' end offsets) and BDAT
// (a header of hash version, hash count and bits per entry, then the
// filters) chunks.

// graphLayer is one file of the commit-graph (a split chain has several),
// as far as its Bloom filters go.
type graphLayer struct {
	base, n    uint32 // global positions of its commits: [base, base+n)
	bidx, bdat []byte // nil when the layer has no filters (or a version git's readers would refuse)
	numHashes  uint32
	version    uint32
}

// readGraphLayer reads the chunk table of the commit-graph file b whose
// commits follow base others of its chain. Anything it does not
// understand leaves the layer without filters, which only costs a tree
// comparison per commit.
func readGraphLayer(b []byte, base uint32) graphLayer {
	ly := graphLayer{base: base}
	if len(b) < 8 || string(b[:4]) != "CGPH" {
		return ly
	}
	chunks := int(b[6])
	if len(b) < 8+12*(chunks+1) {
		return ly
	}
	var oidf, bidx, bdat, bidxEnd, bdatEnd uint64
	for i := range chunks {
		e := b[8+12*i:]
		off, next := binary.BigEndian.Uint64(e[4:12]), binary.BigEndian.Uint64(e[16:24])
		switch string(e[:4]) {
		case "OIDF":
			oidf = off
		case "BIDX":
			bidx, bidxEnd = off, next
		case "BDAT":
			bdat, bdatEnd = off, next
		}
	}
	size := uint64(len(b))
	if oidf == 0 || oidf+1024 > size {
		return ly
	}
	ly.n = binary.BigEndian.Uint32(b[oidf+1020:])
	if bidx == 0 || bdat == 0 || bidxEnd > size || bdatEnd > size || bidxEnd < bidx || bdatEnd < bdat+12 ||
		bidxEnd-bidx != 4*uint64(ly.n) {
		return ly
	}
	ly.version = binary.BigEndian.Uint32(b[bdat:])
	ly.numHashes = binary.BigEndian.Uint32(b[bdat+4:])
	if (ly.version != 1 && ly.version != 2) || ly.numHashes == 0 || ly.numHashes > 64 {
		return ly
	}
	ly.bidx, ly.bdat = b[bidx:bidxEnd], b[bdat+12:bdatEnd]
	return ly
}

// filter returns the Bloom filter of the commit at global position i of
// the chain, nil when there is none (or it is empty: git's "unknown").
func (ly *graphLayer) filter(i uint32) []byte {
	if ly.bidx == nil || i < ly.base || i-ly.base >= ly.n {
		return nil
	}
	k := i - ly.base
	var start uint32
	if k > 0 {
		start = binary.BigEndian.Uint32(ly.bidx[4*(k-1):])
	}
	end := binary.BigEndian.Uint32(ly.bidx[4*k:])
	if end <= start || uint64(end) > uint64(len(ly.bdat)) {
		return nil
	}
	return ly.bdat[start:end]
}

// bloomKey is a path's hashes for filters of one version and hash count.
type bloomKey []uint32

// newBloomKey is fill_bloom_key: two seeded murmur3 hashes combined into
// numHashes. Version 1 filters were written with murmur3 reading bytes as
// signed chars, which only differs from version 2 for bytes >= 0x80: such
// a path gets no key (ok false), and the commit is compared by its trees.
func newBloomKey(path string, version, numHashes uint32) (bloomKey, bool) {
	if version == 1 {
		for i := 0; i < len(path); i++ {
			if path[i] >= 0x80 {
				return nil, false
			}
		}
	}
	h0, h1 := murmur3(0x293ae76f, path), murmur3(0x7e646e2c, path)
	k := make(bloomKey, numHashes)
	for i := range k {
		k[i] = h0 + uint32(i)*h1
	}
	return k, true
}

// mayContain is bloom_filter_contains: false proves the path absent.
func (k bloomKey) mayContain(f []byte) bool {
	mod := uint64(len(f)) * 8
	if mod == 0 {
		return true
	}
	for _, h := range k {
		pos := uint64(h) % mod
		if f[pos/8]&(1<<(pos%8)) == 0 {
			return false
		}
	}
	return true
}

// murmur3 is MurmurHash3's 32-bit hash (git's murmur3_seeded_v2).
func murmur3(seed uint32, data string) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := range n {
		k := uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	tail := data[4*n:]
	var k uint32
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
