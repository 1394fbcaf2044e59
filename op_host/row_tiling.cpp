#include "row_tiling.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace actgrad {
namespace {

constexpr uint64_t kF32 = 4;
constexpr uint64_t kChunkGranule = 64;  // a two-pass chunk: whole 256-byte f32 repeats
// narrower column chunks would make DMA blocks too short to pay for reading the data once instead of twice
constexpr uint64_t kMinOnePassWidth = 32;
// column chunks are at least this many bytes wide (or all of inner): each DMA block of a strided tile is one burst,
// and bursts shorter than 256 bytes waste most of a transfer; the price is fewer chunks, so fewer busy cores, when
// inner is small (docs/row_reductions.md, "Column chunks")
constexpr uint64_t kMinColumnBytes = 256;

// a two-pass row's buffers of one f32 per 64-lane repeat of a chunk: ReduceSum's work buffer, and the two of the check
// of its results (row_grad.h, LongRow)
constexpr uint64_t kLongRowWorkBuffers = 3;

// column chunks are at most this many f32 elements wide: Finish applies the one slice of column sums with level-0
// Sub/Mul, one repeat per slice, and a repeat stride is at most 255 blocks (row_grad.h, CombineSum)
constexpr uint64_t kMaxColumnF32 = 255 * kF32PerBlock;

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }
uint64_t CeilDiv(uint64_t x, uint64_t m) { return (x + m - 1) / m; }

// UB bytes per tile element: three double-buffered queues (diff_dst, dst, diff_src) of the storage type, the f32
// copies of a widened tile and the summands. The sums take no room per element: short rows spread theirs one 32-byte
// block per row (RowsThatFit), column chunks keep one slice of them (PlanColumns), the other rows apply them as scalars.
uint64_t BytesPerTileElem(DtypeKey dtype) {
    const uint64_t size = DtypeSize(dtype);
    return 3 * 2 * size + (size == kF32 ? 0 : 3 * kF32) + kF32;
}

// ReduceSum's work buffer for `count` elements: one f32 per 64-lane repeat, whole 32-byte blocks.
uint64_t ReduceWorkElems(uint64_t count) { return RoundUp(CeilDiv(count, kWholeReduceLanes), kF32PerBlock); }

[[noreturn]] void NoFit(const SocResources& soc, const std::string& what) {
    throw std::invalid_argument("row tiling: " + std::to_string(soc.ubBytes) + " bytes of UB cannot hold " + what);
}

// Whole rows of `stride` elements that fit UB at `perElem` bytes per tile element, with the row sums (one f32 per
// row, in whole 32-byte blocks), with sumBlocks also each row's sum spread over a 32-byte block (whole groups of 8
// rows), and ReduceSum's work buffer: k * stride * perElem + RoundUp(k, 8) * (4 + sumBlock) + work * 4 <= ub, using
// RoundUp(k, 8) * b <= k * b + 7 * b.
uint64_t RowsThatFit(const SocResources& soc, uint64_t stride, uint64_t perElem, uint64_t work, bool sumBlocks) {
    const uint64_t perRow = kF32 + (sumBlocks ? kF32PerBlock * kF32 : 0);
    const uint64_t fixed = work * kF32 + 7 * perRow;
    return soc.ubBytes > fixed ? std::min<uint64_t>((soc.ubBytes - fixed) / (stride * perElem + perRow), kMaxDmaBlocks)
                               : 0;
}

// inner == 1: whole rows per tile when one fits, else chunks of a row (two passes, the row's sum a scalar).
void PlanContiguous(RowGradTiling& t, const SocResources& soc, uint64_t largestBlockUnits) {
    const DtypeKey dtype = DtypeKey(t.dtype);
    const uint64_t perElem = BytesPerTileElem(dtype), unitElems = 32 / DtypeSize(dtype);
    const uint64_t stride = RoundUp(t.rowLength, unitElems);
    const uint64_t work = t.rowLength > kWholeReduceLanes ? ReduceWorkElems(t.rowLength) : kF32PerBlock;
    const uint64_t rows = RowsThatFit(soc, stride, perElem, work, false);
    t.columnChunks = 1;
    if (rows >= 1) {
        t.twoPass = 0;
        // short rows spread their sums with Brcb, one 32-byte block per row, whole groups of 8 rows (8 per repeat),
        // when the tile that leaves room for them still has more rows than a row has blocks; the others take scalars
        const uint64_t withSumTile = RowsThatFit(soc, stride, perElem, work, true) / 8 * 8;
        const bool byBrcb = withSumTile >= 8 && RowSumsByBrcb(uint32_t(stride), uint32_t(withSumTile));
        t.tileSlices = uint32_t(std::min(byBrcb ? withSumTile : rows, largestBlockUnits));
        t.sliceLength = uint32_t(t.rowLength);
        t.sliceStride = uint32_t(stride);
        // a block with fewer rows than that spreads none: no sum blocks then either
        t.sumTileElems = byBrcb && RowSumsByBrcb(uint32_t(stride), t.tileSlices)
                             ? uint32_t(RoundUp(t.tileSlices, kF32PerBlock) * kF32PerBlock)
                             : 0;
        t.sumElems = uint32_t(RoundUp(t.tileSlices, kF32PerBlock));
        t.workElems = uint32_t(work);
        return;
    }
    // chunk c (a multiple of 64): c * perElem + 16 * 4 (the chunk's sum and the row's) + 3 * (c / 64 + 8) * 4 (ReduceSum's
    // work buffer, and the check of the results: its repeat sums and their running sums, row_grad.h) <= ub
    const uint64_t fixedTwo = (2 * kF32PerBlock + kLongRowWorkBuffers * kF32PerBlock) * kF32;
    const uint64_t chunk = soc.ubBytes > fixedTwo
                               ? (soc.ubBytes - fixedTwo) * kWholeReduceLanes /
                                     (perElem * kWholeReduceLanes + kLongRowWorkBuffers * kF32) / kChunkGranule *
                                     kChunkGranule
                               : 0;
    if (chunk == 0) NoFit(soc, "one 64-element chunk of a row");
    t.twoPass = 1;
    t.tileSlices = 1;
    t.sliceLength = uint32_t(chunk);
    t.sliceStride = uint32_t(chunk);
    t.sumTileElems = 0;
    t.sumElems = uint32_t(2 * kF32PerBlock);
    t.workElems = uint32_t(ReduceWorkElems(chunk));
}

// inner > 1: column chunks of width w, all R slices per tile when they fit (narrowing the columns down to
// kMinOnePassWidth elements for it), else chunks of R (two passes). Besides the tile a chunk carves one slice of f32
// column sums, and in two passes one more for the check of its results (row_grad.h, ColumnChunk).
void PlanColumns(RowGradTiling& t, const SocResources& soc) {
    const DtypeKey dtype = DtypeKey(t.dtype);
    const uint64_t perElem = BytesPerTileElem(dtype), unitElems = 32 / DtypeSize(dtype);
    const uint64_t fixed = kF32PerBlock * kF32;  // work buffer (unused by column sums, the smallest buffer)
    if (soc.ubBytes <= fixed) NoFit(soc, "a tile");
    const uint64_t ub = soc.ubBytes - fixed;
    // enough column chunks for every core across the outer indices, but none narrower than kMinColumnBytes
    const uint64_t chunksWanted = CeilDiv(soc.aivCores, t.outer);
    const uint64_t wanted = std::min({RoundUp(t.inner, unitElems),
                                      std::max(RoundUp(CeilDiv(t.inner, chunksWanted), unitElems),
                                               kMinColumnBytes / DtypeSize(dtype)),
                                      kMaxColumnF32 / unitElems * unitElems});
    // one slice of w columns costs w * (perElem + 8): the tile, plus the two f32 slices of sums
    const uint64_t widest = ub / (perElem + 2 * kF32) / unitElems * unitElems;
    if (widest == 0) NoFit(soc, "one 32-byte slice");
    const uint64_t onePassWidth =
        t.rowLength <= kMaxDmaBlocks ? ub / (t.rowLength * perElem + kF32) / unitElems * unitElems : 0;
    uint64_t width;
    if (onePassWidth >= std::min<uint64_t>(wanted, kMinOnePassWidth)) {
        t.twoPass = 0;
        width = std::min(wanted, onePassWidth);
        t.tileSlices = uint32_t(t.rowLength);
    } else {
        // two passes: columns narrow enough that a tile holds at least 16 slices (when the SoC allows), and that
        // the check of a chunk's results (row_grad.h, ColumnChunk) reduces them into the work buffer's 8 elements
        t.twoPass = 1;
        width = std::min({wanted, std::max(unitElems, widest / 16 / unitElems * unitElems),
                          uint64_t(kWholeReduceLanes * kF32PerBlock)});
        t.tileSlices = uint32_t(std::min<uint64_t>({(ub - 2 * width * kF32) / (width * perElem), kMaxDmaBlocks,
                                                    t.rowLength}));
    }
    t.sliceLength = uint32_t(width);
    t.sliceStride = uint32_t(width);
    t.columnChunks = uint32_t(CeilDiv(t.inner, width));
    t.sumTileElems = t.twoPass ? uint32_t(width) : 0;
    t.sumElems = uint32_t(width);
    t.workElems = uint32_t(kF32PerBlock);
}

}  // namespace

uint64_t RowUbBytesUsed(const RowGradTiling& t) {
    const uint64_t checkElems = t.twoPass && t.inner == 1 ? 2 * uint64_t(t.workElems) : 0;
    return uint64_t(RowTileElems(t)) * BytesPerTileElem(DtypeKey(t.dtype)) +
           (uint64_t(t.sumTileElems) + t.sumElems + t.workElems + checkElems) * kF32;
}

RowGradTiling ComputeRowTiling(uint64_t outer, uint64_t rowLength, uint64_t inner, DtypeKey dtype,
                               const SocResources& soc) {
    const char* const names[] = {"outer", "rowLength", "inner"};
    const uint64_t sizes[] = {outer, rowLength, inner};
    for (int i = 0; i < 3; ++i)
        if (sizes[i] == 0)
            throw std::invalid_argument(std::string("row tiling: ") + names[i] +
                                        " must be > 0 (empty tensors launch no kernel)");
    const uint64_t size = DtypeSize(dtype);
    const uint64_t maxElems = uint64_t(std::numeric_limits<int64_t>::max()) / size;
    if (rowLength > maxElems / outer || inner > maxElems / (outer * rowLength))
        throw std::invalid_argument("row tiling: " + std::to_string(outer) + " x " + std::to_string(rowLength) +
                                    " x " + std::to_string(inner) + " elements exceed the largest tensor (2**63 - 1 "
                                    "bytes)");
    // DataCopyPad's GM gap between the slices of a column chunk is a 32-bit byte count
    if (inner * size > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument("row tiling: inner = " + std::to_string(inner) + " elements of " +
                                    std::to_string(size) + " bytes exceed DataCopyPad's 4 GiB stride");
    RowGradTiling t{};
    t.outer = outer;
    t.rowLength = rowLength;
    t.inner = inner;
    t.dtype = dtype;
    const uint64_t total = outer * rowLength * inner;
    const uint64_t byWork = std::max<uint64_t>(1, total * size / kMinBytesPerBlock);
    if (inner == 1) {
        t.units = outer;
        t.blockDim = uint32_t(std::min<uint64_t>({soc.aivCores, byWork, t.units}));
        PlanContiguous(t, soc, CeilDiv(t.units, t.blockDim));
    } else {
        PlanColumns(t, soc);
        t.units = outer * t.columnChunks;
        t.blockDim = uint32_t(std::min<uint64_t>({soc.aivCores, byWork, t.units}));
    }
    t.unitsPerBlock = t.units / t.blockDim;
    t.blocksWithExtraUnit = uint32_t(t.units % t.blockDim);
    return t;
}

}  // namespace actgrad
