// The tiling the host computes (op_host/row_tiling.cpp) and the row-reduction grad kernel (row_grad.h) reads.
// Plain struct, shared by both sides: no pointers; the kernel branches on dtype (no tiling keys).
//
// The tensor is viewed as [outer, R, inner], R the size of the reduced axis. The work is split into units:
//   inner == 1: a unit is one row of R contiguous elements;
//   inner > 1:  a unit is one column chunk (o, columns [c*sliceLength, ...)) of the [R, inner] matrix of one outer
//               index o; its R slices are sliceLength-element pieces, inner elements apart in GM.
// A tile holds tileSlices slices of sliceLength elements, sliceStride (32-byte padded) elements apart in UB:
//   inner == 1, one pass: tileSlices whole rows (sliceLength = R);
//   inner == 1, two pass: one chunk of a row (tileSlices = 1, sliceLength = the chunk);
//   inner > 1:            tileSlices values of r (all R in one pass, a chunk of them in two passes).
// Two passes: the row (or column chunk) does not fit a tile; the first pass sums its chunks, the second computes
// the results chunk by chunk.
#pragma once
#include <cstdint>

#include "elementwise_grad_tiling.h"  // DtypeKey, __host_aicore__

namespace actgrad {

constexpr uint32_t kWholeReduceLanes = 64;     // f32 lanes of one WholeReduceSum repeat (256 B)
constexpr uint32_t kMaxRepeatTimes = 255;      // repeatTime of one Level-0 instruction
constexpr uint32_t kMaxDmaBlocks = 4095;       // blockCount of one DataCopyPad
constexpr uint32_t kF32PerBlock = 8;           // f32 elements of one 32-byte block: the sums buffers' unit

struct RowGradTiling {
    uint64_t outer;
    uint64_t rowLength;            // R
    uint64_t inner;
    uint64_t units;                // rows (inner == 1) or outer * columnChunks (inner > 1)
    uint64_t unitsPerBlock;        // units every block gets ...
    uint32_t blocksWithExtraUnit;  // ... plus one for the last blocksWithExtraUnit blocks
    uint32_t blockDim;
    uint32_t dtype;                // DtypeKey
    uint32_t twoPass;              // 1: sum pass over the chunks, then the elementwise pass
    uint32_t tileSlices;           // slices per tile (see above)
    uint32_t sliceLength;          // elements per slice
    uint32_t sliceStride;          // UB elements between slices: sliceLength padded to 32 bytes of storage
    uint32_t columnChunks;         // inner > 1: column chunks per outer index; 1 otherwise
    uint32_t sumTileElems;         // f32 elements of the sum blocks (short rows: one 32-byte block per row, whole
                                   // groups of 8 rows) or of a two-pass column chunk's results check (one slice)
    uint32_t sumElems;             // f32 elements of the per-slice sums buffer
    uint32_t workElems;            // f32 elements of ReduceSum's work buffer
};

// The units [first, first + count) of block `b`: the extra units go to the last blocks.
__host_aicore__ inline void RowBlockRange(const RowGradTiling& t, uint64_t b, uint64_t& first, uint64_t& count) {
    const uint64_t firstExtra = t.blockDim - t.blocksWithExtraUnit;
    first = b * t.unitsPerBlock + (b > firstExtra ? b - firstExtra : 0);
    count = t.unitsPerBlock + (b >= firstExtra ? 1 : 0);
}

// Whether a one-pass tile of `rows` rows, `sliceStride` elements apart, is worth spreading its row sums with Brcb,
// one 32-byte block per row (8 rows per repeat), which level-0 Sub/Mul then apply to each row (a repeat per row, the
// block re-read by src1BlkStride 0): when a row has fewer blocks than the tile has rows. The tiling carves the blocks
// (sumTileElems > 0) only where its own, smaller tile still qualifies; the kernel spreads a tile's sums when it has
// them and the tile qualifies. Otherwise each row's sum is applied as a scalar, one vector instruction per row
// (row_grad.h, CombineSum). Such rows have fewer than 29 blocks (rows * blocks * 256 bytes fit UB), so the
// repeat stride fits its 8 bits.
__host_aicore__ inline bool RowSumsByBrcb(uint32_t sliceStride, uint32_t rows) { return sliceStride / 8 < rows; }

// f32 elements of one tile (the compute buffers' size).
__host_aicore__ inline uint32_t RowTileElems(const RowGradTiling& t) { return t.tileSlices * t.sliceStride; }

}  // namespace actgrad
