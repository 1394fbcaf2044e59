// The tiling the host computes (op_host/elementwise_tiling.cpp) and the elementwise-grad kernel reads.
// Plain struct, shared by both sides: no pointers, no member functions that the kernel would not compile.
#pragma once
#include <cstdint>

// BlockRange and BlockTiles run in the kernel and in the host tiling. The NPU compiler takes an unqualified function
// for a host function, so they are __host_aicore__, which kernel_operator.h defines for NPU kernel builds ([host,
// aicore]); host compilers (the TilingFunc's, the twin's g++) have no execution spaces, so it is empty there.
#ifndef __host_aicore__
#define __host_aicore__
#endif

namespace actgrad {

enum DtypeKey : uint32_t { kDtypeFloat = 1, kDtypeHalf = 2, kDtypeBf16 = 3 };

constexpr uint32_t kMaxFunctorParams = 8;
constexpr uint32_t kTileGranule = 256;  // elements: whole Compare repeats (64 f32, 128 f16), 32 B mask blocks

struct ElementwiseGradTiling {
    uint64_t totalLength;          // elements
    uint64_t unitsPerBlock;        // 32-byte units every block gets ...
    uint32_t blocksWithExtraUnit;  // ... plus one for the last blocksWithExtraUnit blocks
    uint32_t unitElems;            // elements per 32-byte unit
    uint32_t blockDim;
    uint32_t tileLength;           // elements per tile, a multiple of kTileGranule
    uint32_t dtype;                // DtypeKey: the kernel branches on it (no tiling keys)
    uint32_t tmpTiles;             // f32 scratch tiles the functor needs
    uint32_t maskTiles;            // bit-mask tiles the functor needs
    uint32_t reserved;
    float params[kMaxFunctorParams];  // functor parameters lowered from the attributes (op_host/lower_attrs.cpp)
};

// The contiguous element range of block `b`: ranges are whole 32-byte units (so GM offsets stay aligned), only the
// last block ends on a partial unit, and the extra units go to the last blocks, so that partial unit never makes the
// sizes differ by more than one unit.
__host_aicore__ inline void BlockRange(const ElementwiseGradTiling& t, uint64_t b, uint64_t& start, uint64_t& length) {
    const uint64_t firstExtra = t.blockDim - t.blocksWithExtraUnit;
    const uint64_t firstUnit = b * t.unitsPerBlock + (b > firstExtra ? b - firstExtra : 0);
    const uint64_t units = t.unitsPerBlock + (b >= firstExtra ? 1 : 0);
    start = firstUnit * t.unitElems;
    if (start > t.totalLength) start = t.totalLength;
    const uint64_t end = start + units * t.unitElems;
    length = (end > t.totalLength ? t.totalLength : end) - start;
}

// The tile loop of a block of `length` elements: `tiles` iterations, the last one `tail` elements long (a whole tile
// when the length is a multiple of it; no iteration for an empty block).
__host_aicore__ inline void BlockTiles(const ElementwiseGradTiling& t, uint64_t length, uint64_t& tiles, uint32_t& tail) {
    tiles = (length + t.tileLength - 1) / t.tileLength;
    tail = tiles == 0 ? 0 : uint32_t(length - (tiles - 1) * t.tileLength);
}

}  // namespace actgrad
