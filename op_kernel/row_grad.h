// The one row-reduction grad kernel: diff_src = Functor(diff_dst, dst, sum over the axis of Functor's terms), over
// the [outer, R, inner] view of the tensors (row_grad_tiling.h). Per tile, double-buffered CopyIn / Compute /
// CopyOut: the functor writes the summands of the whole tile (Terms), the kernel sums them per row (WholeReduceSum
// for rows of up to 64 lanes, ReduceSum for longer ones, a tree of vector Adds across the slices when inner > 1),
// lays the sums out for Finish (short rows in a tile the tiling gave sum blocks: one 32-byte block per row by Brcb;
// column chunks: the one slice of column sums; other rows: scalars) and the functor computes the results (Finish,
// which applies them through CombineSum). Rows too long for UB take two passes:
// the chunks' sums first, then the results chunk by chunk, with the row's sum as a scalar. A lean functor (its sum
// reads diff_dst alone, kSumReadsDst false; dst poisons a row only through its Guard) loads dst in the second pass
// only, sums the results as it goes, and runs the guard only where that sum is not finite (GuardRow, GuardColumns).
// Everything is computed in f32: f16/bf16 tiles are widened exactly (CAST_NONE) and the results narrowed once
// (CAST_RINT); saturation is off.
// Slices are padded to 32 bytes in UB by DataCopyPad; the padding lanes are computed with the rest of a tile and never
// summed or copied out. Each tile is read before its results are written to the same GM range, so diff_src may be
// diff_dst itself (in place).
#pragma once
#include "kernel_operator.h"
#include "row_grad_tiling.h"

namespace actgrad {

// Where Finish finds each element's row sum. The tile is sumRows rows (or slices) of rowStride elements.
enum class SumLayout {
    kBlockPerRow,  // sum: row r's sum in the 8 lanes of block r
    kSlice,        // sum: one slice of rowStride column sums, the same for every slice of the tile (inner > 1)
    kScalars,      // rowSums[r]: row r's sum, ready for the scalar unit
};

// The f32 views of one tile a row functor works on, whole tiles of n elements.
struct RowOperands {
    AscendC::LocalTensor<float> gradF, dstF, outF;
    AscendC::LocalTensor<float> terms;  // Terms writes the summands here; Finish may use it as scratch
    bool samePass;  // Terms and Finish see the same tile (one pass): what Terms leaves in outF, Finish may reuse
    SumLayout layout;
    AscendC::LocalTensor<float> sum;  // kBlockPerRow, kSlice
    uint32_t sumRows;
    uint32_t rowStride;
    AscendC::LocalTensor<float> rowSums;  // kScalars
};

// The bits the guard paths test and write: f32's exponent field, and a quiet NaN of each storage type.
constexpr uint32_t kF32ExponentBits = 0x7F800000u;
constexpr uint32_t kF32MagnitudeBits = 0x7FFFFFFFu;
constexpr uint32_t kF32QuietNaN = 0x7FC00000u;
template <typename T>
struct QuietNaN16;
template <>
struct QuietNaN16<half> {
    static constexpr uint16_t kBits = 0x7E00u;
};
template <>
struct QuietNaN16<bfloat16_t> {
    static constexpr uint16_t kBits = 0x7FC0u;
};

// How Finish applies the row sum to an operand.
enum class SumOp { kSubtract, kMultiply };

// dst = src - sum or src * sum, each element with its row's sum, the same f32 operation in every layout. With sum
// blocks or a slice of sums: level-0 Sub/Mul, one repeat per row (slice) and up to 8 of its blocks per call, src1
// re-reading the row's block (src1BlkStride 0) or the same slice for every row (src1RepStride 0); rowStride / 8 is at
// most 255 blocks (RowSumsByBrcb, and the column width cap of the tiling). With scalars: row by row, Adds of -sum or
// Muls. No layout writes the sums over the whole tile first.
__aicore__ inline void CombineSum(const RowOperands& t, const AscendC::LocalTensor<float>& dst,
                                  const AscendC::LocalTensor<float>& src, SumOp op) {
    if (t.layout != SumLayout::kScalars) {
        const bool perRow = t.layout == SumLayout::kBlockPerRow;
        const uint32_t blocks = t.rowStride / kF32PerBlock;
        const AscendC::BinaryRepeatParams p(1, 1, perRow ? 0 : 1, uint8_t(blocks), uint8_t(blocks), perRow ? 1 : 0);
        for (uint32_t g = 0; g < blocks; g += 8) {
            const uint64_t lanes = uint64_t(blocks - g < 8 ? blocks - g : 8) * kF32PerBlock;
            for (uint32_t r = 0; r < t.sumRows; r += kMaxRepeatTimes) {
                const uint8_t repeats = uint8_t(t.sumRows - r < kMaxRepeatTimes ? t.sumRows - r : kMaxRepeatTimes);
                const uint32_t at = r * t.rowStride + g * kF32PerBlock;
                const AscendC::LocalTensor<float> sum = t.sum[(perRow ? r : g) * kF32PerBlock];
                if (op == SumOp::kSubtract) AscendC::Sub(dst[at], src[at], sum, lanes, repeats, p);
                else AscendC::Mul(dst[at], src[at], sum, lanes, repeats, p);
            }
        }
        return;
    }
    for (uint32_t r = 0; r < t.sumRows; ++r) {
        const float s = t.rowSums.GetValue(r);
        const uint32_t at = r * t.rowStride;
        if (op == SumOp::kSubtract) AscendC::Adds(dst[at], src[at], -s, int32_t(t.rowStride));
        else AscendC::Muls(dst[at], src[at], s, int32_t(t.rowStride));
    }
}

// A tile in GM: `slices` pieces of `length` elements, the first at `offset`, each `gap` elements after the last.
struct TileSpan {
    uint64_t offset;
    uint32_t slices;
    uint32_t length;
    uint64_t gap;
};

constexpr int32_t kRowBufferNum = 2;  // double buffering

// What a tile is loaded for: its summands (first of two passes), its results (second pass), or both (one pass).
enum class TilePass { kTerms, kFinish, kTermsAndFinish };

// Which inputs a tile is loaded with.
enum class TileInputs { kBoth, kGrad, kDst };

// What the first of two passes sums (SumLongRow, SumColumnChunk): the functor's summands, or, for a lean functor's
// row whose results are not all finite, its guard.
enum class SumOf { kSummands, kGuard };

template <typename T, typename Functor>
class RowGradKernel {
    static constexpr bool kWidened = sizeof(T) != sizeof(float);

public:
    __aicore__ inline RowGradKernel() {}

    __aicore__ inline void Init(GM_ADDR diffDst, GM_ADDR dst, GM_ADDR diffSrc, const RowGradTiling& t) {
        t_ = t;
        RowBlockRange(t, AscendC::GetBlockIdx(), firstUnit_, unitCount_);
        tileElems_ = RowTileElems(t);
        const uint64_t total = t.outer * t.rowLength * t.inner;
        gradGm_.SetGlobalBuffer((__gm__ T*)diffDst, total);
        dstGm_.SetGlobalBuffer((__gm__ T*)dst, total);
        outGm_.SetGlobalBuffer((__gm__ T*)diffSrc, total);
        pipe_.InitBuffer(gradQue_, kRowBufferNum, tileElems_ * sizeof(T));
        pipe_.InitBuffer(dstQue_, kRowBufferNum, tileElems_ * sizeof(T));
        pipe_.InitBuffer(outQue_, kRowBufferNum, tileElems_ * sizeof(T));
        if (kWidened) pipe_.InitBuffer(widenBuf_, 3 * tileElems_ * sizeof(float));
        pipe_.InitBuffer(termsBuf_, tileElems_ * sizeof(float));
        if (t.sumTileElems > 0) {
            pipe_.InitBuffer(sumTileBuf_, t.sumTileElems * sizeof(float));
            sumTile_ = sumTileBuf_.template Get<float>();
        }
        pipe_.InitBuffer(sumsBuf_, t.sumElems * sizeof(float));
        if (t.twoPass && t.inner == 1) {  // the tiling carves it for every two-pass row; lean functors use it
            pipe_.InitBuffer(checkBuf_, 2 * t.workElems * sizeof(float));
            check_ = checkBuf_.template Get<float>();
        }
        pipe_.InitBuffer(workBuf_, t.workElems * sizeof(float));
        terms_ = termsBuf_.template Get<float>();
        sums_ = sumsBuf_.template Get<float>();
        work_ = workBuf_.template Get<float>();
    }

    __aicore__ inline void Process() {
        if (t_.inner > 1) {
            for (uint64_t u = firstUnit_; u < firstUnit_ + unitCount_; ++u) ColumnChunk(u);
        } else if (t_.twoPass) {
            for (uint64_t row = firstUnit_; row < firstUnit_ + unitCount_; ++row) LongRow(row);
        } else {
            for (uint64_t row = firstUnit_; row < firstUnit_ + unitCount_; row += t_.tileSlices) {
                const uint64_t left = firstUnit_ + unitCount_ - row;
                RowTile(row, uint32_t(left < t_.tileSlices ? left : t_.tileSlices));
            }
        }
    }

private:
    // inner == 1, one pass: `rows` whole rows from `row` on.
    __aicore__ inline void RowTile(uint64_t row, uint32_t rows) {
        const TileSpan span{row * t_.rowLength, rows, uint32_t(t_.rowLength), 0};
        CopyIn(span, TileInputs::kBoth);
        RowOperands ops = Operands(TilePass::kTermsAndFinish);
        const uint32_t n = rows * t_.sliceStride;
        Widen(ops, n);
        Functor::Terms(ops, n);
        RowSums(rows);
        SpreadRowSums(ops, rows);
        Functor::Finish(ops, n);
        Emit(ops, n);
        CopyOut(span);
    }

    // inner == 1, two passes: the row's chunks are summed (ReduceSum into sums_[0], each added in order to the row's
    // sum in the next 32-byte block by a one-element vector Add), then computed with the row's sum as a scalar. The
    // kernel waits for the scalar unit once per row; ReduceSum itself syncs V -> S -> V inside on A2/A3.
    // A lean functor's second pass also sums the results (AddToCheck): finite, they are final.
    // When the first pass loaded both inputs, the second runs last chunk first: the first pass's last chunk is still
    // in UB, loaded and widened, and is not read again. A lean functor's second pass runs first chunk first: its dst
    // comes from GM in one stream (measured on the twin: reversed, it was slower than the one chunk saved).
    __aicore__ inline void LongRow(uint64_t row) {
        constexpr bool kKeepLast = Functor::kSumReadsDst;
        const uint64_t base = row * t_.rowLength;
        const AscendC::LocalTensor<float> rowSum = sums_[kF32PerBlock];
        SumLongRow(base, SumOf::kSummands, sums_, rowSum, kKeepLast);
        ScalarsReady();
        if constexpr (!Functor::kSumReadsDst) AscendC::Duplicate(check_[t_.workElems], 0.0f, int32_t(t_.workElems));
        const uint64_t chunks = Chunks();
        for (uint64_t k = 0; k < chunks; ++k) {
            const TileSpan span = ChunkSpan(base, (kKeepLast ? chunks - 1 - k : k) * t_.sliceLength);
            CopyIn(span, TileInputs::kBoth);
            RowOperands ops = Operands(TilePass::kFinish);
            UseScalarSums(ops, rowSum, 1);
            Widen(ops, t_.sliceStride);
            Functor::Finish(ops, t_.sliceStride);
            if constexpr (!Functor::kSumReadsDst) AddToCheck(ops.outF, span.length);
            Emit(ops, t_.sliceStride);
            CopyOut(span);
        }
        if constexpr (!Functor::kSumReadsDst) {
            AscendC::ReduceSum<float>(check_, check_[t_.workElems], work_, int32_t(t_.workElems));
            ScalarsReady();
            if (!IsFinite(check_, 0)) GuardRow(base);
        }
    }

    // A lean row with a result that is not finite: its sum never saw dst, so the functor's guard (NaN exactly where
    // dst poisons the row) is summed now, from dst alone (diff_dst may hold results already: in place), and a NaN
    // sum rewrites the whole row as NaN. The other results stand: they are what the row's sum gave.
    __aicore__ inline void GuardRow(uint64_t base) {
        const AscendC::LocalTensor<float> guard = check_[t_.workElems];
        SumLongRow(base, SumOf::kGuard, check_, guard, false);
        ScalarsReady();
        if (!IsNan(guard, 0)) return;
        AscendC::PipeBarrier<PIPE_MTE3>();  // the rewrite lands after the results it replaces (same GM, one pipe)
        for (uint64_t c = 0; c < t_.rowLength; c += t_.sliceLength) CopyOutNaN(ChunkSpan(base, c));
    }

    // The running check of a long row, check_[workElems, 2 * workElems), += the sums of `length` results' 64-lane
    // repeats (WholeReduceSum into check_[0, ...), then one vector Add): unlike ReduceSum, WholeReduceSum does not
    // wait for the scalar unit inside, and the check only asks whether the sum is finite, whatever its order.
    __aicore__ inline void AddToCheck(const AscendC::LocalTensor<float>& results, uint32_t length) {
        const uint32_t full = length / kWholeReduceLanes, tail = length % kWholeReduceLanes;
        for (uint32_t r = 0; r < full; r += kMaxRepeatTimes) {
            const uint32_t repeats = full - r < kMaxRepeatTimes ? full - r : kMaxRepeatTimes;
            AscendC::WholeReduceSum<float>(check_[r], results[r * kWholeReduceLanes], int32_t(kWholeReduceLanes),
                                           int32_t(repeats), 1, 1, 8);
        }
        if (tail > 0)
            AscendC::WholeReduceSum<float>(check_[full], results[full * kWholeReduceLanes], int32_t(tail), 1, 1, 1, 8);
        const AscendC::LocalTensor<float> acc = check_[t_.workElems];
        AscendC::Add(acc, acc, check_, int32_t(full + (tail > 0 ? 1 : 0)));
    }

    // acc[0] = the sum over the long row at `base` of `what` (SumInputs), chunk by chunk: each chunk's ReduceSum into
    // chunkSum[0], added in order by a one-element vector Add (acc is a 32-byte block, zeroed first). keepLast (where both
    // inputs are summed): the last chunk's stay dequeued and widened for the second pass (held_: not loaded again).
    __aicore__ inline void SumLongRow(uint64_t base, SumOf what, const AscendC::LocalTensor<float>& chunkSum,
                                      const AscendC::LocalTensor<float>& acc, bool keepLast) {
        AscendC::Duplicate(acc, 0.0f, int32_t(kF32PerBlock));
        for (uint64_t c = 0; c < t_.rowLength; c += t_.sliceLength) {
            const TileSpan span = ChunkSpan(base, c);
            CopyIn(span, SumInputs(what));
            RowOperands ops = Operands(TilePass::kTerms);
            Widen(ops, t_.sliceStride);
            AscendC::ReduceSum<float>(chunkSum, Addends(ops, t_.sliceStride, what), work_, int32_t(span.length));
            AscendC::Add(acc, acc, chunkSum, 1);
            if (keepLast && c == (Chunks() - 1) * t_.sliceLength) {
                held_ = true;
            } else {
                Release();
            }
        }
    }

    // Chunks of a long row.
    __aicore__ inline uint64_t Chunks() const { return (t_.rowLength + t_.sliceLength - 1) / t_.sliceLength; }

    // Chunk c of the long row at `base`.
    __aicore__ inline TileSpan ChunkSpan(uint64_t base, uint64_t c) {
        return TileSpan{base + c, 1, ChunkLength(c, t_.rowLength, t_.sliceLength), 0};
    }

    // inner > 1: columns [col, col + width) of outer index o; the R slices are summed by a tree of vector Adds
    // (across tiles, in sums_, when they take two passes), and Finish applies the one slice of sums to every slice.
    __aicore__ inline void ColumnChunk(uint64_t unit) {
        const uint64_t o = unit / t_.columnChunks;
        const uint64_t col = (unit % t_.columnChunks) * t_.sliceLength;
        const uint32_t width = ChunkLength(col, t_.inner, t_.sliceLength);
        const uint64_t base = o * t_.rowLength * t_.inner + col;
        if (!t_.twoPass) {
            const TileSpan span = ColumnSpan(base, 0, width);
            CopyIn(span, TileInputs::kBoth);
            RowOperands ops = Operands(TilePass::kTermsAndFinish);
            const uint32_t n = span.slices * t_.sliceStride;
            Widen(ops, n);
            Functor::Terms(ops, n);
            SliceSums(span.slices);
            // the sums out of terms_, which Finish may overwrite (x * 1 is exact)
            AscendC::Muls(sums_, terms_, 1.0f, int32_t(t_.sliceStride));
            UseSliceSums(ops, span.slices);
            Functor::Finish(ops, n);
            Emit(ops, n);
            CopyOut(span);
            return;
        }
        SumColumnChunk(base, width, SumOf::kSummands);
        // a lean functor's second pass sums each column's results in sumTile_ (one slice)
        if constexpr (!Functor::kSumReadsDst) AscendC::Duplicate(sumTile_, 0.0f, int32_t(t_.sliceStride));
        for (uint64_t r = 0; r < t_.rowLength; r += t_.tileSlices) {
            const TileSpan span = ColumnSpan(base, r, width);
            CopyIn(span, TileInputs::kBoth);
            RowOperands ops = Operands(TilePass::kFinish);
            const uint32_t n = span.slices * t_.sliceStride;
            Widen(ops, n);
            UseSliceSums(ops, span.slices);
            Functor::Finish(ops, n);
            if constexpr (!Functor::kSumReadsDst) {
                SliceSumsOf(ops.outF, span.slices);
                AscendC::Add(sumTile_, sumTile_, terms_, int32_t(t_.sliceStride));
            }
            Emit(ops, n);
            CopyOut(span);
        }
        if constexpr (!Functor::kSumReadsDst) {  // the column sums are spent: sums_[0] takes the check
            AscendC::ReduceSum<float>(sums_, sumTile_, work_, int32_t(width));
            ScalarsReady();
            if (!IsFinite(sums_, 0)) GuardColumns(base, width);
        }
    }

    // GuardRow for the columns of a lean two-pass column chunk: each run of adjacent columns whose guard sums to NaN
    // is rewritten as NaN over the whole axis (all of them: one more write pass over the chunk).
    __aicore__ inline void GuardColumns(uint64_t base, uint32_t width) {
        SumColumnChunk(base, width, SumOf::kGuard);
        ScalarsReady();
        bool barrier = false;
        for (uint32_t j = 0; j < width;) {
            if (!IsNan(sums_, j)) {
                ++j;
                continue;
            }
            uint32_t end = j + 1;
            while (end < width && IsNan(sums_, end)) ++end;
            if (!barrier) AscendC::PipeBarrier<PIPE_MTE3>();  // as in GuardRow
            barrier = true;
            for (uint64_t r = 0; r < t_.rowLength; r += t_.tileSlices) CopyOutNaN(ColumnSpan(base + j, r, end - j));
            j = end;
        }
    }

    // sums_[0, sliceStride) = per column of the chunk at `base`, the sum of `what` (SumInputs) over its R slices: the
    // tree of each tile's slices, added in order.
    __aicore__ inline void SumColumnChunk(uint64_t base, uint32_t width, SumOf what) {
        AscendC::Duplicate(sums_, 0.0f, int32_t(t_.sliceStride));
        for (uint64_t r = 0; r < t_.rowLength; r += t_.tileSlices) {
            const TileSpan span = ColumnSpan(base, r, width);
            CopyIn(span, SumInputs(what));
            RowOperands ops = Operands(TilePass::kTerms);
            const uint32_t n = span.slices * t_.sliceStride;
            Widen(ops, n);
            const AscendC::LocalTensor<float> addends = Addends(ops, n, what);
            if (AddendsInTerms(what)) {
                SliceSums(span.slices);
            } else {
                SliceSumsOf(addends, span.slices);
            }
            AscendC::Add(sums_, sums_, terms_, int32_t(t_.sliceStride));
            Release();
        }
    }

    // The tile of the column chunk at `base` from slice r on (tileSlices slices, fewer at the end of the axis),
    // `width` columns each, one row of the axis apart in GM.
    __aicore__ inline TileSpan ColumnSpan(uint64_t base, uint64_t r, uint32_t width) {
        return TileSpan{base + r * t_.inner, ChunkLength(r, t_.rowLength, t_.tileSlices), width, t_.inner - width};
    }

    // sums_[r] = the sum of row r's terms: one WholeReduceSum repeat per row when it fits 64 lanes.
    __aicore__ inline void RowSums(uint32_t rows) {
        const uint32_t length = uint32_t(t_.rowLength);
        if (length <= kWholeReduceLanes) {
            for (uint32_t r = 0; r < rows; r += kMaxRepeatTimes) {
                const uint32_t repeats = rows - r < kMaxRepeatTimes ? rows - r : kMaxRepeatTimes;
                AscendC::WholeReduceSum<float>(sums_[r], terms_[r * t_.sliceStride], int32_t(length),
                                               int32_t(repeats), 1, 1, int32_t(t_.sliceStride / 8));
            }
        } else {
            for (uint32_t r = 0; r < rows; ++r)
                AscendC::ReduceSum<float>(sums_[r], terms_[r * t_.sliceStride], work_, int32_t(length));
        }
    }

    // The row sums as Finish reads them. Short rows, where the tiling gave sum blocks (sumTileElems > 0) and the tile
    // has more rows than a row has 32-byte blocks: block r of sumTile_ = sums_[r] in its 8 lanes, Brcb spreading 8
    // sums per repeat, the rows past the last group of 8 one Duplicate each. The others: Finish applies each row's sum
    // as a scalar. CombineSum applies either.
    __aicore__ inline void SpreadRowSums(RowOperands& ops, uint32_t rows) {
        if (t_.sumTileElems == 0 || !RowSumsByBrcb(t_.sliceStride, rows)) {
            ScalarsReady();
            UseScalarSums(ops, sums_, rows);
            return;
        }
        ops.layout = SumLayout::kBlockPerRow;
        ops.sum = sumTile_;
        ops.sumRows = rows;
        ops.rowStride = t_.sliceStride;
        const uint32_t grouped = rows / 8 * 8;
        for (uint32_t g = 0; g < grouped; g += 8 * kMaxRepeatTimes) {
            const uint32_t repeats = (grouped - g) / 8 < kMaxRepeatTimes ? (grouped - g) / 8 : kMaxRepeatTimes;
            AscendC::Brcb(sumTile_[g * kF32PerBlock], sums_[g], uint8_t(repeats), AscendC::BrcbRepeatParams(1, 8));
        }
        if (grouped == rows) return;
        ScalarsReady();
        for (uint32_t r = grouped; r < rows; ++r)
            AscendC::Duplicate(sumTile_[r * kF32PerBlock], sums_.GetValue(r), int32_t(kF32PerBlock));
    }

    // terms_[0, sliceStride) = the sum of the tile's `slices` slices, pairwise: a tree of whole-slice Adds.
    __aicore__ inline void SliceSums(uint32_t slices) {
        for (uint32_t k = slices; k > 1;) {
            const uint32_t half = k / 2;
            AscendC::Add(terms_, terms_, terms_[(k - half) * t_.sliceStride], int32_t(half * t_.sliceStride));
            k -= half;
        }
    }

    // SliceSums of the slices of src (not terms_), left as it is: the tree's first level reads src (the same additions
    // in the same order), the middle slice of an odd count copied (x * 1 is exact).
    __aicore__ inline void SliceSumsOf(const AscendC::LocalTensor<float>& src, uint32_t slices) {
        const uint32_t half = slices / 2, rest = slices - half;
        if (half > 0) AscendC::Add(terms_, src, src[rest * t_.sliceStride], int32_t(half * t_.sliceStride));
        if (rest > half)
            AscendC::Muls(terms_[half * t_.sliceStride], src[half * t_.sliceStride], 1.0f, int32_t(t_.sliceStride));
        SliceSums(rest);
    }

    // What a tile loaded for `what` adds up: the functor's terms, or diff_dst itself where the sum reads nothing else
    // (lean functors), or the lean functor's guard.
    __aicore__ inline AscendC::LocalTensor<float> Addends(const RowOperands& ops, uint32_t n, SumOf what) {
        if (!AddendsInTerms(what)) return ops.gradF;
        if constexpr (Functor::kSumReadsDst) {
            Functor::Terms(ops, n);
        } else {
            Functor::Guard(ops, n);
        }
        return terms_;
    }

    // Whether Addends writes them into terms_ (else they are diff_dst's own tile).
    __aicore__ inline static bool AddendsInTerms(SumOf what) {
        return Functor::kSumReadsDst || what == SumOf::kGuard;
    }

    __aicore__ inline TileInputs SumInputs(SumOf what) const {
        if (what == SumOf::kGuard) return TileInputs::kDst;
        return Functor::kSumReadsDst ? TileInputs::kBoth : TileInputs::kGrad;
    }

    // What the scalar unit reads of f32 element i of `v` (after ScalarsReady), by its bits.
    __aicore__ inline bool IsFinite(const AscendC::LocalTensor<float>& v, uint32_t i) {
        return (v.ReinterpretCast<uint32_t>().GetValue(i) & kF32ExponentBits) != kF32ExponentBits;
    }
    __aicore__ inline bool IsNan(const AscendC::LocalTensor<float>& v, uint32_t i) {
        return (v.ReinterpretCast<uint32_t>().GetValue(i) & kF32MagnitudeBits) > kF32ExponentBits;
    }

    // Finish applies the column sums in sums_ (one slice) to each of the tile's `slices` slices.
    __aicore__ inline void UseSliceSums(RowOperands& ops, uint32_t slices) {
        ops.layout = SumLayout::kSlice;
        ops.sum = sums_;
        ops.sumRows = slices;
        ops.rowStride = t_.sliceStride;
    }

    // Finish applies the sums of the tile's `rows` rows (sliceStride elements each) from `sums` as scalars.
    __aicore__ inline void UseScalarSums(RowOperands& ops, const AscendC::LocalTensor<float>& sums, uint32_t rows) {
        ops.layout = SumLayout::kScalars;
        ops.sumRows = rows;
        ops.rowStride = t_.sliceStride;
        ops.rowSums = sums;
    }

    // The scalar unit reads sums_ only after the vector unit has written it.
    __aicore__ inline void ScalarsReady() {
        AscendC::SetFlag<AscendC::HardEvent::V_S>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);
    }

    __aicore__ inline uint32_t ChunkLength(uint64_t start, uint64_t total, uint32_t chunk) {
        return uint32_t(total - start < chunk ? total - start : chunk);
    }

    // DataCopyPad rounds each slice up to 32 bytes in UB; the extra 32-byte blocks keep slices sliceStride apart.
    // Slices that touch in GM (no gap) and in UB (no padding) are one burst: a single DMA block for the tile.
    __aicore__ inline AscendC::DataCopyExtParams CopyParams(const TileSpan& s, bool toUb) {
        const uint32_t bytes = s.length * uint32_t(sizeof(T));
        if (s.gap == 0 && s.length == t_.sliceStride) return AscendC::DataCopyExtParams{1, s.slices * bytes, 0, 0, 0};
        const uint32_t ubGap = (t_.sliceStride * uint32_t(sizeof(T)) - (bytes + 31) / 32 * 32) / 32;
        const uint32_t gmGap = uint32_t(s.gap * sizeof(T));
        return toUb ? AscendC::DataCopyExtParams{uint16_t(s.slices), bytes, gmGap, ubGap, 0}
                    : AscendC::DataCopyExtParams{uint16_t(s.slices), bytes, ubGap, gmGap, 0};
    }

    __aicore__ inline bool LoadsGrad() const { return inputs_ != TileInputs::kDst; }
    __aicore__ inline bool LoadsDst() const { return inputs_ != TileInputs::kGrad; }
    // what CopyIn reads from GM, Operands dequeues and Widen widens: nothing for a tile held from the first pass
    __aicore__ inline bool FetchesGrad() const { return LoadsGrad() && !held_; }
    __aicore__ inline bool FetchesDst() const { return LoadsDst() && !held_; }

    __aicore__ inline void CopyIn(const TileSpan& s, TileInputs inputs) {
        inputs_ = inputs;
        const AscendC::DataCopyExtParams copy = CopyParams(s, true);
        const AscendC::DataCopyPadExtParams<T> noPad{};
        if (FetchesGrad()) {
            AscendC::LocalTensor<T> grad = gradQue_.template AllocTensor<T>();
            AscendC::DataCopyPad(grad, gradGm_[s.offset], copy, noPad);
            gradQue_.EnQue(grad);
        }
        if (FetchesDst()) {
            AscendC::LocalTensor<T> dst = dstQue_.template AllocTensor<T>();
            AscendC::DataCopyPad(dst, dstGm_[s.offset], copy, noPad);
            dstQue_.EnQue(dst);
        }
    }

    __aicore__ inline void CopyOut(const TileSpan& s) {
        AscendC::LocalTensor<T> out = outQue_.template DeQue<T>();
        AscendC::DataCopyPad(outGm_[s.offset], out, CopyParams(s, false));
        outQue_.FreeTensor(out);
    }

    // The span filled with NaN (the guard's verdict), written through the output queue.
    __aicore__ inline void CopyOutNaN(const TileSpan& s) {
        AscendC::LocalTensor<T> out = outQue_.template AllocTensor<T>();
        const int32_t n = int32_t(s.slices * t_.sliceStride);
        if constexpr (kWidened) {
            AscendC::Duplicate(out.template ReinterpretCast<uint16_t>(), QuietNaN16<T>::kBits, n);
        } else {
            AscendC::Duplicate(out.template ReinterpretCast<uint32_t>(), kF32QuietNaN, n);
        }
        outQue_.EnQue(out);
        CopyOut(s);
    }

    // The tile's inputs from the queues (and an output tile unless the pass only sums), as f32 views.
    // Inputs not loaded (CopyIn) are not dequeued; their views are stale and must not be read.
    __aicore__ inline RowOperands Operands(TilePass pass) {
        if (FetchesGrad()) grad_ = gradQue_.template DeQue<T>();
        if (FetchesDst()) dst_ = dstQue_.template DeQue<T>();
        if (pass != TilePass::kTerms) out_ = outQue_.template AllocTensor<T>();
        RowOperands ops;
        ops.terms = terms_;
        ops.samePass = pass == TilePass::kTermsAndFinish;
        ops.layout = SumLayout::kScalars;  // each path sets where its sums are (SpreadRowSums, UseScalarSums, UseSliceSums)
        ops.sumRows = 0;
        ops.rowStride = 0;
        if constexpr (kWidened) {
            AscendC::LocalTensor<float> wide = widenBuf_.template Get<float>();
            ops.gradF = wide;
            ops.dstF = wide[tileElems_];
            ops.outF = wide[2 * tileElems_];
        } else {
            ops.gradF = grad_;
            ops.dstF = dst_;
            ops.outF = out_;
        }
        return ops;
    }

    __aicore__ inline void Widen(const RowOperands& ops, uint32_t n) {
        if constexpr (kWidened) {
            if (FetchesGrad()) AscendC::Cast(ops.gradF, grad_, AscendC::RoundMode::CAST_NONE, n);
            if (FetchesDst()) AscendC::Cast(ops.dstF, dst_, AscendC::RoundMode::CAST_NONE, n);
        }
    }

    __aicore__ inline void Release() {
        if (LoadsGrad()) gradQue_.FreeTensor(grad_);
        if (LoadsDst()) dstQue_.FreeTensor(dst_);
        held_ = false;
    }

    // The results, narrowed once, to the output queue; the inputs go back to theirs.
    __aicore__ inline void Emit(const RowOperands& ops, uint32_t n) {
        if constexpr (kWidened) AscendC::Cast(out_, ops.outF, AscendC::RoundMode::CAST_RINT, n);
        outQue_.EnQue(out_);
        Release();
    }

    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> gradQue_, dstQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> widenBuf_, termsBuf_, sumTileBuf_, sumsBuf_, checkBuf_, workBuf_;
    AscendC::GlobalTensor<T> gradGm_, dstGm_, outGm_;
    AscendC::LocalTensor<T> grad_, dst_, out_;  // the tile in flight
    TileInputs inputs_ = TileInputs::kBoth;     // what it was loaded with
    bool held_ = false;  // the tile in flight was kept, both inputs, from the first pass (SumLongRow)
    AscendC::LocalTensor<float> terms_, sumTile_, sums_, check_, work_;
    RowGradTiling t_{};
    uint64_t firstUnit_ = 0, unitCount_ = 0;
    uint32_t tileElems_ = 0;
};

template <typename Functor>
__aicore__ inline void RunRowGrad(GM_ADDR diffDst, GM_ADDR dst, GM_ADDR diffSrc, GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(actgrad::RowGradTiling);
    GET_TILING_DATA(t, tiling);
    if (t.units == 0) return;
    AscendC::SetSaturationFlag<AscendC::SaturationMode::FLOAT>(false);
    AscendC::SetSaturationFlag<AscendC::SaturationMode::CAST>(false);
    if (t.dtype == kDtypeFloat) {
        RowGradKernel<float, Functor> op;
        op.Init(diffDst, dst, diffSrc, t);
        op.Process();
    } else if (t.dtype == kDtypeHalf) {
        RowGradKernel<half, Functor> op;
        op.Init(diffDst, dst, diffSrc, t);
        op.Process();
    } else if (t.dtype == kDtypeBf16) {
        RowGradKernel<bfloat16_t, Functor> op;
        op.Init(diffDst, dst, diffSrc, t);
        op.Process();
    }
}

}  // namespace actgrad
