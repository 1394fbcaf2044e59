// half and bfloat16_t as the vector core stores them, and the exact conversions between them and float.
// Widening is exact; narrowing rounds half to even. The bit tricks are branch-free so loops over them vectorise.
#pragma once
#include <cstdint>
#include <cstring>
#include <cmath>
#include <limits>
#include <type_traits>

namespace actgrad_sim {

inline uint32_t FloatBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float BitsFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline float HalfBitsToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t expMant = uint32_t(h & 0x7fffu) << 13;
    const uint32_t exp = expMant & 0x0f800000u;
    const float normal = BitsFloat(expMant + ((127u - 15u) << 23));
    const float infNan = BitsFloat(expMant + ((255u - 31u) << 23));
    // subnormal: let the FPU normalise, subtracting the implicit bit added by the exponent bias
    const float sub = BitsFloat(expMant + (113u << 23)) - BitsFloat(113u << 23);
    const float mag = exp == 0x0f800000u ? infNan : (exp == 0 ? sub : normal);
    return BitsFloat(FloatBits(mag) | sign);
}

inline uint16_t FloatToHalfBitsRne(float f) {
    const uint32_t x = FloatBits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t ax = x & 0x7fffffffu;
    const uint32_t nanBits = 0x7e00u | ((ax >> 13) & 0x3ffu);
    const uint32_t infOrNan = ax > 0x7f800000u ? nanBits : 0x7c00u;
    // below 2^-14 the result is subnormal: adding 0.5 aligns the mantissa so the FPU rounds to even for us
    const uint32_t sub = FloatBits(BitsFloat(ax) + 0.5f) - 0x3f000000u;
    const uint32_t normal = (ax + ((15u - 127u) << 23) + 0xfffu + ((ax >> 13) & 1u)) >> 13;
    const uint32_t mag = ax >= 0x47800000u ? infOrNan : (ax < (113u << 23) ? sub : normal);
    return uint16_t(mag | sign);
}

inline float Bf16BitsToFloat(uint16_t b) { return BitsFloat(uint32_t(b) << 16); }

inline uint16_t FloatToBf16BitsRne(float f) {
    const uint32_t x = FloatBits(f);
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    const bool nan = (x & 0x7fffffffu) > 0x7f800000u;
    return uint16_t(nan ? ((x >> 16) | 0x40u) : rounded);
}

// The A2/A3 saturation mode: infinities become the largest finite value, NaN becomes zero.
inline uint16_t SaturateHalfBits(uint16_t h) {
    const bool inf = (h & 0x7fffu) == 0x7c00u;
    const bool nan = (h & 0x7fffu) > 0x7c00u;
    return nan ? uint16_t(0) : (inf ? uint16_t((h & 0x8000u) | 0x7bffu) : h);
}
inline uint16_t SaturateBf16Bits(uint16_t b) {
    const bool inf = (b & 0x7fffu) == 0x7f80u;
    const bool nan = (b & 0x7fffu) > 0x7f80u;
    return nan ? uint16_t(0) : (inf ? uint16_t((b & 0x8000u) | 0x7f7fu) : b);
}

}  // namespace actgrad_sim

// IEEE binary16 as a 16-bit payload; arithmetic goes through float and rounds once.
struct half {
    uint16_t val;
    half() = default;
    half(float f) : val(actgrad_sim::FloatToHalfBitsRne(f)) {}
    half(double d) : half(float(d)) {}
    half(int i) : half(float(i)) {}
    operator float() const { return actgrad_sim::HalfBitsToFloat(val); }
    float ToFloat() const { return float(*this); }
    static half FromBits(uint16_t b) { half h; h.val = b; return h; }
};

// bfloat16: the upper 16 bits of a binary32.
struct bfloat16_t {
    uint16_t val;
    bfloat16_t() = default;
    bfloat16_t(float f) : val(actgrad_sim::FloatToBf16BitsRne(f)) {}
    bfloat16_t(double d) : bfloat16_t(float(d)) {}
    bfloat16_t(int i) : bfloat16_t(float(i)) {}
    operator float() const { return actgrad_sim::Bf16BitsToFloat(val); }
    float ToFloat() const { return float(*this); }
    static bfloat16_t FromBits(uint16_t b) { bfloat16_t h; h.val = b; return h; }
};
static_assert(sizeof(half) == 2 && std::is_trivial<half>::value, "half must be a 16-bit trivial type");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivial<bfloat16_t>::value, "bf16 must be a 16-bit trivial type");

namespace actgrad_sim {
template <typename T> constexpr bool IsHalfLike = std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value;

template <typename T> const char* TypeName() {
    if (std::is_same<T, float>::value) return "float";
    if (std::is_same<T, half>::value) return "half";
    if (std::is_same<T, bfloat16_t>::value) return "bfloat16_t";
    if (std::is_same<T, int32_t>::value) return "int32_t";
    if (std::is_same<T, uint32_t>::value) return "uint32_t";
    if (std::is_same<T, int16_t>::value) return "int16_t";
    if (std::is_same<T, uint16_t>::value) return "uint16_t";
    if (std::is_same<T, int8_t>::value) return "int8_t";
    if (std::is_same<T, uint8_t>::value) return "uint8_t";
    if (std::is_same<T, int64_t>::value) return "int64_t";
    if (std::is_same<T, uint64_t>::value) return "uint64_t";
    if (std::is_same<T, double>::value) return "double";
    return "?";
}
}  // namespace actgrad_sim
