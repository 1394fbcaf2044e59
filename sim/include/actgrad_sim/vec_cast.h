// Cast with RoundMode: the (src, dst, mode) table of each architecture, exact rounding for every mode, and the
// count-form overlap rule (so the in-place widening idiom of production kernels works and partial overlaps do not).
#pragma once
#include <cfenv>
#include <cmath>
#include <limits>
#include <vector>

#include "operand_checks.h"
#include "vec_arith.h"

namespace AscendC {
enum class RoundMode : uint8_t {
    CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID, CAST_EVEN,
    CAST_ZERO, UNKNOWN = 0xFF
};
}  // namespace AscendC

namespace actgrad_sim {

enum : uint32_t {
    kNone = 1u << 0, kRint = 1u << 1, kFloor = 1u << 2, kCeil = 1u << 3, kRound = 1u << 4, kTrunc = 1u << 5, kOdd = 1u << 6,
    kDirected = kRint | kFloor | kCeil | kRound | kTrunc,
};

template <typename T> constexpr int DtypeId() {
    if (std::is_same<T, float>::value) return 0;
    if (std::is_same<T, half>::value) return 1;
    if (std::is_same<T, bfloat16_t>::value) return 2;
    if (std::is_same<T, int32_t>::value) return 3;
    if (std::is_same<T, int16_t>::value) return 4;
    if (std::is_same<T, int8_t>::value) return 5;
    if (std::is_same<T, uint8_t>::value) return 6;
    if (std::is_same<T, int64_t>::value) return 7;
    return -1;
}

// Round modes allowed for src -> dst, per architecture (ascendc-api.md §5.5). 0 = pair not supported.
inline uint32_t CastModes(uint32_t arch, int src, int dst) {
    enum { F32, F16, BF16, I32, I16, I8, U8, I64 };
    auto is = [&](int s, int d) { return src == s && dst == d; };
    if (arch == 2002) {
        if (is(F16, F32)) return kNone;
        if (is(F32, F16)) return kOdd | kNone;
        if (is(F16, I32)) return kDirected;
        if (is(F16, I8) || is(F16, U8)) return kFloor | kCeil | kRound | kTrunc | kNone;
        if (is(F16, I16)) return kRint;
        if (is(I32, F32)) return kNone;
        if (is(F32, I64)) return kDirected;
        return 0;
    }
    uint32_t extra = 0;
    if (arch == 3510 && (is(F16, BF16) || is(BF16, F16))) extra = kDirected;
    if (is(F16, F32) || is(BF16, F32)) return kNone;
    if (is(F16, I32) || is(F16, I16) || is(BF16, I32)) return kDirected;
    if (is(F16, I8) || is(F16, U8)) return kDirected | kNone;
    if (is(F32, F16)) return kDirected | kOdd | kNone;
    if (is(F32, BF16) || is(F32, F32) || is(F32, I32) || is(F32, I16) || is(F32, I64)) return kDirected;
    if (is(I32, F32)) return kDirected | kNone;
    if (is(I32, I16) || is(I32, I64) || is(I64, I32)) return kNone;
    if (is(I64, F32)) return kDirected;
    if (is(I16, F16)) return kDirected | kNone;
    if (is(I16, F32) || is(I8, F16) || is(U8, F16)) return kNone;
    return extra;
}

inline uint32_t ModeBit(AscendC::RoundMode m) {
    switch (m) {
        case AscendC::RoundMode::CAST_NONE: return kNone;
        case AscendC::RoundMode::CAST_RINT: return kRint;
        case AscendC::RoundMode::CAST_FLOOR: return kFloor;
        case AscendC::RoundMode::CAST_CEIL: return kCeil;
        case AscendC::RoundMode::CAST_ROUND: return kRound;
        case AscendC::RoundMode::CAST_TRUNC: return kTrunc;
        case AscendC::RoundMode::CAST_ODD: return kOdd;
        default: return 0;
    }
}

inline const char* RoundModeName(AscendC::RoundMode m) {
    static const char* names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
                                  "CAST_ODD", "CAST_HYBRID", "CAST_EVEN", "CAST_ZERO"};
    return uint8_t(m) < 10 ? names[uint8_t(m)] : "UNKNOWN";
}

// Pick between the two representable neighbours `down` < v < `up` of an inexact value per the round mode;
// `nearest` is the round-half-even result, `downOdd` says whether down's last mantissa bit is set.
template <typename R, typename V>
R PickRounded(V v, R down, R up, R nearest, V downValue, V upValue, bool downOdd, AscendC::RoundMode m) {
    switch (m) {
        case AscendC::RoundMode::CAST_FLOOR: return down;
        case AscendC::RoundMode::CAST_CEIL: return up;
        case AscendC::RoundMode::CAST_TRUNC: return v > 0 ? down : up;
        case AscendC::RoundMode::CAST_ROUND:
            if (v == (downValue + upValue) / 2) return v > 0 ? up : down;
            return nearest;
        case AscendC::RoundMode::CAST_ODD: return downOdd ? down : up;
        default: return nearest;
    }
}

// Values reach the rounding functions as long double: exact for every source type, int64 included.
using Wide = long double;

inline float RoundToFloat(Wide v, AscendC::RoundMode m) {
    const float r = float(v);
    if (Wide(r) == v || v != v || std::isinf(v)) return r;
    const float down = Wide(r) < v ? r : std::nextafter(r, -INFINITY);
    const float up = Wide(r) > v ? r : std::nextafter(r, INFINITY);
    return PickRounded<float, Wide>(v, down, up, r, Wide(down), Wide(up), (FloatBits(down) & 1u) != 0, m);
}

// Neighbour of a 16-bit float pattern toward +inf (up) or -inf.
inline uint16_t Step16(uint16_t b, bool up) {
    if (b & 0x8000u) {
        if ((b & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u;
        return uint16_t(up ? b - 1 : b + 1);
    }
    if (b == 0) return up ? 0x0001u : 0x8001u;
    return uint16_t(up ? b + 1 : b - 1);
}

template <typename T>  // half or bfloat16_t, from a float value
inline uint16_t RoundTo16(float f, AscendC::RoundMode m) {
    const uint16_t n = std::is_same<T, half>::value ? FloatToHalfBitsRne(f) : FloatToBf16BitsRne(f);
    const float nv = float(T::FromBits(n));
    if (nv == f || f != f) return n;
    const uint16_t down = nv < f ? n : Step16(n, false);
    const uint16_t up = nv > f ? n : Step16(n, true);
    return PickRounded<uint16_t, Wide>(f, down, up, n, Wide(float(T::FromBits(down))), Wide(float(T::FromBits(up))),
                                       (down & 1u) != 0, m);
}

template <typename I>
inline I RoundToInt(Wide v, AscendC::RoundMode m) {
    if (v != v) return I(0);
    Wide r;
    switch (m) {
        case AscendC::RoundMode::CAST_FLOOR: r = std::floor(v); break;
        case AscendC::RoundMode::CAST_CEIL: r = std::ceil(v); break;
        case AscendC::RoundMode::CAST_ROUND: r = std::round(v); break;
        case AscendC::RoundMode::CAST_TRUNC: r = std::trunc(v); break;
        default: r = std::nearbyint(v); break;
    }
    // float -> int conversions saturate (CTRL[59] default)
    if (r <= Wide(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (r >= Wide(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return I(r);
}

template <typename T> inline Wide ToWide(T v) {
    if constexpr (IsHalfLike<T>) return Wide(float(v));
    else return Wide(v);
}

template <typename D, typename S>
inline D ConvertOne(S s, AscendC::RoundMode m, bool saturate) {
    const Wide v = ToWide(s);
    if constexpr (std::is_same<D, float>::value) {
        if constexpr (std::is_same<S, float>::value) {
            // float -> float with a mode rounds to an integral value
            switch (m) {
                case AscendC::RoundMode::CAST_FLOOR: return std::floor(s);
                case AscendC::RoundMode::CAST_CEIL: return std::ceil(s);
                case AscendC::RoundMode::CAST_ROUND: return std::round(s);
                case AscendC::RoundMode::CAST_TRUNC: return std::trunc(s);
                default: return std::nearbyint(s);
            }
        } else {
            return RoundToFloat(v, m);
        }
    } else if constexpr (IsHalfLike<D>) {
        const float f = std::is_same<S, float>::value || IsHalfLike<S> ? float(v) : RoundToFloat(v, AscendC::RoundMode::CAST_RINT);
        const uint16_t b = RoundTo16<D>(f, m);
        if (!saturate) return D::FromBits(b);
        return D::FromBits(std::is_same<D, half>::value ? SaturateHalfBits(b) : SaturateBf16Bits(b));
    } else {
        return RoundToInt<D>(v, m);
    }
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, typename U>
void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count) {
    static_assert(actgrad_sim::DtypeId<T>() >= 0 && actgrad_sim::DtypeId<U>() >= 0, "Cast: unsupported dtype");
    const char* api = "Cast";
    auto& ctx = actgrad_sim::Block(api);
    actgrad_sim::RequireStorageType<T>(api);
    actgrad_sim::RequireStorageType<U>(api);
    const uint32_t modes = actgrad_sim::CastModes(ctx.soc().npuArch, actgrad_sim::DtypeId<U>(), actgrad_sim::DtypeId<T>());
    if (modes == 0)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::Unsupported, api, "no ", actgrad_sim::TypeName<U>(), " -> ",
                          actgrad_sim::TypeName<T>(), " conversion on ", ctx.soc().name);
    if ((modes & actgrad_sim::ModeBit(roundMode)) == 0)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::Unsupported, api, actgrad_sim::TypeName<U>(), " -> ",
                          actgrad_sim::TypeName<T>(), " does not accept ", actgrad_sim::RoundModeName(roundMode), " on ",
                          ctx.soc().name);
    const uint64_t dBytes = uint64_t(count) * sizeof(T), sBytes = uint64_t(count) * sizeof(U);
    // a widening into separate bytes is recorded (deferred_widen.h), reading a deferred copy's source from GM
    constexpr bool kWidening = std::is_same<T, float>::value && actgrad_sim::IsHalfLike<U>;
    const bool deferred = kWidening && actgrad_sim::DeferStores() &&
                          !actgrad_sim::Overlaps(dst.BytePtr(), dBytes, src.BytePtr(), sBytes);
    actgrad_sim::CheckVectorOperand(src, sBytes, api, "src",
                                    deferred ? actgrad_sim::Access::ReadCopy : actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(dst, dBytes, api, "dst", actgrad_sim::Access::Overwrite);
    actgrad_sim::CountVectorInstruction();

    // count-form overlap rule (ascendc-api.md §15.8)
    const uint8_t* d = dst.BytePtr();
    const uint8_t* s = src.BytePtr();
    bool overlapping = false;
    if (d != s || sizeof(T) != sizeof(U)) {
        const bool narrowSrcAbove = sizeof(U) < sizeof(T) && s >= d + (dBytes == 0 ? 0 : ((uint64_t(count) * sizeof(U) + 31) / 32 * 32));
        const uint8_t* lo = d < s ? d : s;
        const uint8_t* hi = d < s ? s : d;
        const uint64_t loLen = lo == d ? dBytes : sBytes;
        if (d == s && sizeof(T) > sizeof(U))
            actgrad_sim::Fail(actgrad_sim::ErrorKind::Overlap, api, "widening ", actgrad_sim::TypeName<U>(), " -> ",
                              actgrad_sim::TypeName<T>(), " in place is not supported");
        overlapping = lo + loLen > hi;
        if (d != s && !narrowSrcAbove && overlapping && loLen > actgrad_sim::kRepeatBytes)
            actgrad_sim::Fail(actgrad_sim::ErrorKind::Overlap, api, "dst [UB ", actgrad_sim::UbOffset(dst), ", +", dBytes,
                              ") and src [UB ", actgrad_sim::UbOffset(src), ", +", sBytes, ") overlap beyond one repeat");
    }
    // hardware streams repeats front to back and never overtakes a read: a snapshot of src reproduces that
    std::vector<U> snapshot;
    const U* in = src.Data();
    if (overlapping) {
        snapshot.assign(in, in + count);
        in = snapshot.data();
    }
    T* out = dst.Data();
    const bool sat = ctx.saturateCast;
    if constexpr (kWidening) {
        typedef uint16_t AliasU16 __attribute__((may_alias));
        const AliasU16* bits = reinterpret_cast<const AliasU16*>(in);
        constexpr bool kHalf = std::is_same<U, half>::value;
        if (deferred) {  // exact: recorded, or run at once where src and dst overlap
            if (const uint8_t* gm = actgrad_sim::CopySource(src.BytePtr(), sBytes))
                return actgrad_sim::DeferWiden(ctx, out, dst.Record()->deferred, reinterpret_cast<const AliasU16*>(gm),
                                               ctx.gmRefs, count, kHalf);
            return actgrad_sim::DeferWiden(ctx, out, dst.Record()->deferred, bits, src.Record()->deferred, count, kHalf);
        }
        actgrad_sim::Materialize(out, bits, count, kHalf);
    } else if constexpr (actgrad_sim::IsHalfLike<T> && std::is_same<U, float>::value) {
        if (roundMode == RoundMode::CAST_RINT || roundMode == RoundMode::CAST_NONE) {
            actgrad_sim::NarrowInto(out, in, count, sat);
            return;
        }
        for (uint32_t i = 0; i < count; ++i) out[i] = actgrad_sim::ConvertOne<T>(in[i], roundMode, sat);
    } else {
        for (uint32_t i = 0; i < count; ++i) out[i] = actgrad_sim::ConvertOne<T>(in[i], roundMode, sat);
    }
}

}  // namespace AscendC
