// GM <-> UB movement: DataCopy (whole 32-byte blocks) and DataCopyPad (byte-exact, A2/A3 and 950 only).
#pragma once
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "operand_checks.h"
#include "simd_avx2.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // 32-byte units for DataCopy, bytes for DataCopyPad
    uint16_t srcStride = 0;  // gap between blocks, 32-byte units
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;   // bytes
    uint32_t srcStride = 0;  // GM->UB: bytes (GM); UB->GM: 32-byte blocks (UB)
    uint32_t dstStride = 0;  // GM->UB: 32-byte blocks (UB); UB->GM: bytes (GM)
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <typename T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;   // elements
    uint8_t rightPadding = 0;  // elements
    T paddingValue = 0;
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

}  // namespace AscendC

namespace actgrad_sim {

// Unspecified DataCopyPad bytes (pads without isPad, dummy tails) get this word: a quiet NaN as float,
// 0xDEAD / 0x7FC0 as 16-bit values, easy to spot in a dump.
constexpr uint32_t kCanaryWord = 0x7FC0DEADu;

inline void FillCanary(uint8_t* p, uint32_t bytes, uint32_t phase) {
    for (uint32_t i = 0; i < bytes; ++i) p[i] = uint8_t(kCanaryWord >> (8 * ((phase + i) % 4)));
}

// UB -> GM. Large copies use non-temporal stores: the destination is not read first and does not evict the UB
// arena from the cache, which is what keeps a bandwidth-bound kernel near memcpy speed.
inline void CopyToGm(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
    if (bytes >= 4096) {
        uint8_t* d = static_cast<uint8_t*>(dst);
        const uint8_t* s = static_cast<const uint8_t*>(src);
        size_t i = ACTGRAD_SIM_IF_AVX2(avx2::CopyToGm(d, s, bytes));
        if (i == 0) {
            i = (16 - uintptr_t(d) % 16) % 16;
            std::memcpy(d, s, i);
        }
        for (; i + 16 <= bytes; i += 16)
            _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
        std::memcpy(d + i, s + i, bytes - i);
        _mm_sfence();
        return;
    }
#endif
    std::memcpy(dst, src, bytes);
}

// GM -> UB. A plain vector loop that asks for the lines 1 KiB ahead: the library memcpy streams these sizes with
// `rep movsb`, which keeps fewer misses in flight on some cores (about 5% of a streaming kernel on AMD Zen). The hint
// is non-temporal: a kernel reads its GM inputs once, and they should not push the UB arena out of the cache
// (another 2-3% on AMD Zen).
inline void CopyFromGm(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
    if (bytes >= 4096) {
        uint8_t* d = static_cast<uint8_t*>(dst);
        const uint8_t* s = static_cast<const uint8_t*>(src);
        size_t i = ACTGRAD_SIM_IF_AVX2(avx2::CopyFromGm(d, s, bytes));
        for (; i + 64 <= bytes; i += 64) {
            __builtin_prefetch(s + i + 1024, 0, 0);
            const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
            const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
            const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i), a);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
        }
        std::memcpy(d + i, s + i, bytes - i);
        return;
    }
#endif
    std::memcpy(dst, src, bytes);
}

// Strided DMA bursts each start on a new GM line the hardware prefetcher has not seen: the GM side of the burst
// kStridedLookahead bursts ahead is requested while this one is copied, so the misses of several bursts overlap. A
// read is asked for non-temporally (the kernel reads its inputs once; CopyFromGm's hint too), a write to be kept (its
// line is written shortly, and a burst that ends mid-line shares the line with the next). Only the twin's speed changes.
constexpr uint64_t kStridedLookahead = 8;
inline void PrefetchBurst(const uint8_t* p, uint64_t bytes, bool forWrite) {
    const uint8_t* end = p + bytes;
    for (const uint8_t* line = p - uintptr_t(p) % 64; line < end; line += 64) {
        if (forWrite) __builtin_prefetch(line, 1, 3);
        else __builtin_prefetch(line, 0, 0);
    }
}

inline void RecordGmRead(BlockContext& ctx, uint64_t bytes, uint64_t transfers = 1) {
    ctx.stats.gmBytesRead += bytes * transfers;
    ctx.RecordDma(bytes, transfers);
}
// A contiguous GM -> UB copy recorded (deferred_copy.h); false if the caller is to copy it now.
template <typename T>
bool DeferCopyToUb(BlockContext& ctx, const AscendC::LocalTensor<T>& dst, const void* gm, uint64_t bytes) {
    return DeferStores() && DeferCopy(ctx, dst.BytePtr(), dst.Record()->deferred, gm, bytes);
}

inline void RecordGmWriteDma(BlockContext& ctx, const void* p, uint64_t bytes) {
    ctx.RecordGmWrite(uintptr_t(p), bytes);
    ctx.RecordDma(bytes);
}

template <typename T>
void CheckWholeBlocks(uint64_t count, const char* api) {
    if (count * sizeof(T) % kBlockBytes != 0)
        Fail(ErrorKind::Alignment, api, "count ", count, " x sizeof(", TypeName<T>(), ") = ", count * sizeof(T),
             " bytes is not a multiple of 32 (the NPU silently drops the tail; use DataCopyPad)");
}

template <typename T>
void CheckPadBlock(const AscendC::DataCopyExtParams& p, const char* api, bool gmToUb) {
    BlockContext& ctx = Block(api);
    if (!ctx.soc().dataCopyPad)
        Fail(ErrorKind::Unsupported, api, "DataCopyPad is not available on ", ctx.soc().name);
    RequireStorageType<T>(api);
    if (p.blockCount > 4095) Fail(ErrorKind::InvalidArgument, api, "blockCount ", p.blockCount, " exceeds 4095");
    if (p.blockLen > 2097151) Fail(ErrorKind::InvalidArgument, api, "blockLen ", p.blockLen, " bytes exceeds 2097151");
    if (gmToUb && p.blockLen % sizeof(T) != 0)
        Fail(ErrorKind::InvalidArgument, api, "blockLen ", p.blockLen, " bytes is not a multiple of sizeof(", TypeName<T>(), ")");
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
    const char* api = "DataCopy(GM->UB)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::RequireStorageType<T>(api);
    actgrad_sim::CheckDmaDestination(dst, uint64_t(count) * sizeof(T), api, actgrad_sim::Access::Overwrite);
    actgrad_sim::CheckWholeBlocks<T>(count, api);
    if (count == 0) return;
    src.CheckAccess(api, 0, count);
    if (!actgrad_sim::DeferCopyToUb(ctx, dst, src.GetPhyAddr(), uint64_t(count) * sizeof(T)))
        actgrad_sim::CopyFromGm(dst.Data(), src.GetPhyAddr(), size_t(count) * sizeof(T));
    actgrad_sim::RecordGmRead(ctx, uint64_t(count) * sizeof(T));
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
    const char* api = "DataCopy(UB->GM)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::RequireStorageType<T>(api);
    actgrad_sim::CheckDmaSource(src, uint64_t(count) * sizeof(T), api);
    actgrad_sim::CheckWholeBlocks<T>(count, api);
    if (count == 0) return;
    dst.CheckAccess(api, 0, count);
    actgrad_sim::SettleGmWrite(ctx, dst.GetPhyAddr(), uint64_t(count) * sizeof(T));
    actgrad_sim::CopyToGm(dst.GetPhyAddr(), src.Data(), size_t(count) * sizeof(T));
    actgrad_sim::RecordGmWriteDma(ctx, dst.GetPhyAddr(), uint64_t(count) * sizeof(T));
}

template <typename T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
    const char* api = "DataCopy(GM->UB, DataCopyParams)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::RequireStorageType<T>(api);
    if (p.blockCount > 4095) actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "blockCount ", p.blockCount, " exceeds 4095");
    const uint64_t blk = uint64_t(p.blockLen) * 32, n = p.blockCount;
    const uint64_t ubBytes = n == 0 ? 0 : n * blk + (n - 1) * p.dstStride * 32;
    actgrad_sim::CheckDmaDestination(dst, ubBytes, api);
    for (uint64_t b = 0; b < n && blk > 0; ++b) {
        const uint64_t gmOff = b * (blk + uint64_t(p.srcStride) * 32);
        src.CheckAccess(api, gmOff / sizeof(T), blk / sizeof(T));
        actgrad_sim::CopyFromGm(dst.BytePtr() + b * (blk + uint64_t(p.dstStride) * 32),
                                reinterpret_cast<const uint8_t*>(src.GetPhyAddr()) + gmOff, blk);
        actgrad_sim::RecordGmRead(ctx, blk);
    }
}

template <typename T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
    const char* api = "DataCopy(UB->GM, DataCopyParams)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::RequireStorageType<T>(api);
    if (p.blockCount > 4095) actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "blockCount ", p.blockCount, " exceeds 4095");
    const uint64_t blk = uint64_t(p.blockLen) * 32, n = p.blockCount;
    const uint64_t ubBytes = n == 0 ? 0 : n * blk + (n - 1) * p.srcStride * 32;
    actgrad_sim::CheckDmaSource(src, ubBytes, api);
    for (uint64_t b = 0; b < n && blk > 0; ++b) {
        const uint64_t gmOff = b * (blk + uint64_t(p.dstStride) * 32);
        dst.CheckAccess(api, gmOff / sizeof(T), blk / sizeof(T));
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.GetPhyAddr()) + gmOff;
        actgrad_sim::SettleGmWrite(ctx, g, blk);
        actgrad_sim::CopyToGm(g, src.BytePtr() + b * (blk + uint64_t(p.srcStride) * 32), blk);
        actgrad_sim::RecordGmWriteDma(ctx, g, blk);
    }
}

template <typename T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
    const char* api = "DataCopyPad(GM->UB)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::CheckPadBlock<T>(p, api, true);
    const uint32_t left = pad.leftPadding * sizeof(T), right = pad.rightPadding * sizeof(T);
    if (left > 32 || right > 32)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "padding of ", int(pad.leftPadding), "/",
                          int(pad.rightPadding), " elements exceeds 32 bytes");
    if (sizeof(T) == 8 && pad.isPad && !(pad.paddingValue == T(0)))
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "64-bit types only pad with 0");
    const uint64_t row = (uint64_t(p.blockLen) + left + right + 31) / 32 * 32;
    const uint64_t n = p.blockCount;
    const uint64_t ubBytes = (n == 0 || p.blockLen == 0) ? 0 : n * row + (n - 1) * uint64_t(p.dstStride) * 32;
    // rows without gaps between them are written whole: padding, data and the canary up to the next 32 bytes
    actgrad_sim::CheckDmaDestination(dst, ubBytes, api,
                                     p.dstStride == 0 ? actgrad_sim::Access::Overwrite : actgrad_sim::Access::Write);
    if (ubBytes == 0) return;
    const uint64_t pitch = uint64_t(p.blockLen) + p.srcStride;
    src.CheckByteBlocks(api, n, p.blockLen, pitch);
    const uint8_t* gm = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    if (left == 0 && right == 0 && (n == 1 || (pitch == p.blockLen && row == p.blockLen && p.dstStride == 0))) {
        // one contiguous run in GM and in UB (its tail up to 32 bytes gets the canary)
        const uint64_t bytes = n * uint64_t(p.blockLen);
        if (!actgrad_sim::DeferCopyToUb(ctx, dst, gm, bytes)) std::memcpy(dst.BytePtr(), gm, bytes);
        actgrad_sim::FillCanary(dst.BytePtr() + bytes, uint32_t(ubBytes - bytes), uint32_t(bytes));
        actgrad_sim::RecordGmRead(ctx, p.blockLen, n);
        return;
    }
    const bool strided = pitch != p.blockLen;
    for (uint64_t b = 0; b < n; ++b) {
        const uint64_t gmOff = b * pitch;
        if (strided && b + actgrad_sim::kStridedLookahead < n)
            actgrad_sim::PrefetchBurst(gm + gmOff + actgrad_sim::kStridedLookahead * pitch, p.blockLen, false);
        uint8_t* u = dst.BytePtr() + b * (row + uint64_t(p.dstStride) * 32);
        if (pad.isPad) {
            for (uint32_t i = 0; i < pad.leftPadding; ++i) std::memcpy(u + i * sizeof(T), &pad.paddingValue, sizeof(T));
            for (uint32_t i = 0; i < pad.rightPadding; ++i)
                std::memcpy(u + left + p.blockLen + i * sizeof(T), &pad.paddingValue, sizeof(T));
        } else {
            actgrad_sim::FillCanary(u, left, 0);
            actgrad_sim::FillCanary(u + left + p.blockLen, right, left + p.blockLen);
        }
        std::memcpy(u + left, gm + gmOff, p.blockLen);
        const uint64_t used = left + uint64_t(p.blockLen) + right;
        actgrad_sim::FillCanary(u + used, uint32_t(row - used), uint32_t(used));
    }
    actgrad_sim::RecordGmRead(ctx, p.blockLen, n);
}

template <typename T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
    const char* api = "DataCopyPad(UB->GM)";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::CheckPadBlock<T>(p, api, false);
    const uint64_t row = (uint64_t(p.blockLen) + 31) / 32 * 32;
    const uint64_t n = p.blockCount;
    const uint64_t ubBytes = (n == 0 || p.blockLen == 0) ? 0 : n * row + (n - 1) * uint64_t(p.srcStride) * 32;
    actgrad_sim::CheckDmaSource(src, ubBytes, api);
    if (ubBytes == 0) return;
    const uint64_t pitch = uint64_t(p.blockLen) + p.dstStride;
    dst.CheckByteBlocks(api, n, p.blockLen, pitch);
    actgrad_sim::SettleGmWrite(ctx, dst.GetPhyAddr(), (n - 1) * pitch + p.blockLen);
    const bool strided = pitch != p.blockLen;
    for (uint64_t b = 0; b < n; ++b) {
        uint8_t* g = reinterpret_cast<uint8_t*>(dst.GetPhyAddr()) + b * pitch;
        if (strided && b + actgrad_sim::kStridedLookahead < n)
            actgrad_sim::PrefetchBurst(g + actgrad_sim::kStridedLookahead * pitch, p.blockLen, true);
        actgrad_sim::CopyToGm(g, src.BytePtr() + b * (row + uint64_t(p.srcStride) * 32), p.blockLen);
        ctx.RecordGmWrite(uintptr_t(g), p.blockLen);
    }
    ctx.RecordDma(p.blockLen, n);
}

}  // namespace AscendC
