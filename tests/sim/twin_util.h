// Helpers shared by the twin's C++ tests: GM buffers, one-block launches with a UB scratch allocator, and reference
// conversions written independently of sim/include (exact integer/double arithmetic, no bit tricks shared with it).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness.h"

namespace tu {

using AscendC::GlobalTensor;
using AscendC::LocalTensor;
using AscendC::RoundMode;
using AscendC::TPosition;
using actgrad_sim::ErrorKind;

// ---------------------------------------------------------------- GM

// GmAlloc'd storage of n elements of T, freed on scope exit.
template <typename T>
class Gm {
public:
    explicit Gm(size_t n, size_t allocBytes = 0) : n_(n) {
        bytes_ = allocBytes ? allocBytes : std::max<size_t>(1, n * sizeof(T));
        p_ = static_cast<T*>(AscendC::GmAlloc(bytes_));
        std::memset(static_cast<void*>(p_), 0, bytes_);
    }
    Gm(const std::vector<T>& v) : Gm(v.size()) { std::memcpy(static_cast<void*>(p_), v.data(), v.size() * sizeof(T)); }
    ~Gm() { AscendC::GmFree(p_); }
    Gm(const Gm&) = delete;
    Gm& operator=(const Gm&) = delete;
    T* data() const { return p_; }
    GM_ADDR addr() const { return reinterpret_cast<GM_ADDR>(p_); }
    size_t size() const { return n_; }
    T& operator[](size_t i) const { return p_[i]; }
    std::vector<T> vec() const { return std::vector<T>(p_, p_ + n_); }
    void fill_bytes(uint8_t b) { std::memset(static_cast<void*>(p_), b, bytes_); }

private:
    T* p_;
    size_t n_, bytes_;
};

// ---------------------------------------------------------------- launches

// An explicit SetFlag/WaitFlag pair (event id 0), e.g. V_S before the scalar unit reads vector results.
template <AscendC::HardEvent E>
void Sync() {
    AscendC::SetFlag<E>(0);
    AscendC::WaitFlag<E>(0);
}

inline actgrad_sim::LaunchOptions Sequential() { return actgrad_sim::LaunchOptions{1, {}}; }

// Runs fn() as the body of a one-block kernel named `name`. (std::function rather than a template parameter: one
// instantiation of the launcher per test file instead of one per test lambda keeps the -O2 build fast.)
inline actgrad_sim::LaunchStats RunBlock(const char* name, const std::function<void()>& fn) {
    return actgrad_sim::Launch(name, [&fn] { fn(); }, 1, Sequential());
}

// Runs fn() on `blocks` blocks with `threads` worker threads (1: sequential).
inline actgrad_sim::LaunchStats RunBlocks(const char* name, uint32_t blocks, const std::function<void()>& fn,
                                          uint32_t threads = 1) {
    return actgrad_sim::Launch(name, [&fn] { fn(); }, blocks, actgrad_sim::LaunchOptions{threads, {}});
}

// Scratch UB for API tests: one TBuf<VECCALC> carved by a live TPipe; views are handed out at 256-byte steps.
// Inputs are placed with memcpy through GetPhyAddr (a host pointer in the twin), so no pipe is involved and the
// sync tracker has nothing to say: these tests are about the values an API computes.
class Ub {
public:
    static constexpr uint32_t kBytes = 180 * 1024;  // below the 184 KiB mark, so Select modes 1/2 are allowed
    explicit Ub(AscendC::TBuf<TPosition::VECCALC>& buf) : buf_(buf) {}

    // A view of n elements (the tensor is exactly n*sizeof(T) bytes) pre-filled with `fill` bytes.
    template <typename T>
    LocalTensor<T> Alloc(uint32_t n, uint8_t fill = 0xA5) {
        const uint32_t bytes = uint32_t(n * sizeof(T));
        const uint32_t step = (std::max<uint32_t>(bytes, 32) + 255) / 256 * 256;
        if (off_ + step > kBytes) FAIL("test UB scratch exhausted");
        LocalTensor<T> t = buf_.GetWithOffset<T>(n, off_);
        off_ += step;
        std::memset(static_cast<void*>(t.GetPhyAddr()), fill, bytes);
        return t;
    }
    template <typename T>
    LocalTensor<T> Load(const std::vector<T>& v) {
        LocalTensor<T> t = Alloc<T>(uint32_t(v.size()));
        std::memcpy(static_cast<void*>(t.GetPhyAddr()), v.data(), v.size() * sizeof(T));
        return t;
    }
    template <typename T>
    static std::vector<T> Read(const LocalTensor<T>& t, uint32_t n) {
        std::vector<T> out(n);
        std::memcpy(static_cast<void*>(out.data()), t.GetPhyAddr(), n * sizeof(T));
        return out;
    }
    void Reset() { off_ = 0; }

private:
    AscendC::TBuf<TPosition::VECCALC>& buf_;
    uint32_t off_ = 0;
};

// One block with a TPipe and the scratch Ub; fn(Ub&).
inline actgrad_sim::LaunchStats RunUb(const std::function<void(Ub&)>& fn, const char* name = "api_test") {
    return RunBlock(name, [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, Ub::kBytes);
        Ub ub(buf);
        fn(ub);
    });
}

// One block with a 16 KiB VECCALC buffer of floats, all 1.0f; fn(buffer). The misuse tests' arena.
inline actgrad_sim::LaunchStats RunWithFloats(const char* name,
                                              const std::function<void(const LocalTensor<float>&)>& fn) {
    return RunBlock(name, [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 16384);
        auto t = b.Get<float>();
        AscendC::Duplicate(t, 1.0f, 4096);
        fn(t);
    });
}

// The last error names the kernel, the block (0 of 1) and the API.
inline void ExpectApi(const char* kernel, const char* api) {
    CHECK_CONTAINS(th::LastError(), std::string("kernel '") + kernel + "'");
    CHECK_CONTAINS(th::LastError(), "block 0/1 on Ascend");
    CHECK_CONTAINS(th::LastError(), std::string(": ") + api + ": ");
}

// ---------------------------------------------------------------- 16-bit float references

inline float F(uint32_t bits) { float f; std::memcpy(&f, &bits, 4); return f; }
inline uint32_t B(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

struct Format16 {
    int mant;  // explicit mantissa bits
    int emin;  // exponent of the smallest normal
    int emax;  // exponent of the largest finite
    int bias;
};
constexpr Format16 kHalf{10, -14, 15, 15};
constexpr Format16 kBf16{7, -126, 127, 127};

// Value of a 16-bit pattern, decoded with ldexp (NaN for NaN patterns).
inline double Decode16(uint16_t b, const Format16& f) {
    const int expBits = 15 - f.mant;
    const uint32_t e = (b >> f.mant) & ((1u << expBits) - 1);
    const uint32_t m = b & ((1u << f.mant) - 1);
    const double sign = (b & 0x8000u) ? -1.0 : 1.0;
    if (e == (1u << expBits) - 1) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    if (e == 0) return sign * std::ldexp(double(m), f.emin - f.mant);
    return sign * std::ldexp(double(m | (1u << f.mant)), int(e) - f.bias - f.mant);
}
inline double DecodeHalf(uint16_t b) { return Decode16(b, kHalf); }
inline double DecodeBf16(uint16_t b) { return Decode16(b, kBf16); }
inline bool IsNan16(uint16_t b, const Format16& f) {
    const uint16_t expMask = uint16_t(((1u << (15 - f.mant)) - 1) << f.mant);
    return (b & expMask) == expMask && (b & ((1u << f.mant) - 1)) != 0;
}

enum class Rnd { Rne, Floor, Ceil, Round, Trunc, Odd };

inline Rnd FromMode(RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return Rnd::Floor;
        case RoundMode::CAST_CEIL: return Rnd::Ceil;
        case RoundMode::CAST_ROUND: return Rnd::Round;
        case RoundMode::CAST_TRUNC: return Rnd::Trunc;
        case RoundMode::CAST_ODD: return Rnd::Odd;
        default: return Rnd::Rne;
    }
}

// Rounds a non-negative magnitude n (in units of the quantum) to an integer; `negative` says the value's sign.
inline double RoundUnits(double n, Rnd r, bool negative) {
    const double fl = std::floor(n);
    if (fl == n) return n;
    const double frac = n - fl;
    switch (r) {
        case Rnd::Floor: return negative ? fl + 1 : fl;
        case Rnd::Ceil: return negative ? fl : fl + 1;
        case Rnd::Trunc: return fl;
        case Rnd::Round: return frac >= 0.5 ? fl + 1 : fl;
        case Rnd::Odd: return std::fmod(fl, 2.0) == 1.0 ? fl : fl + 1;
        case Rnd::Rne:
        default:
            if (frac > 0.5) return fl + 1;
            if (frac < 0.5) return fl;
            return std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1;
    }
}

// IEEE rounding of an exactly representable double to a 16-bit format, no saturation (overflow per IEEE rules).
inline uint16_t Encode16(double v, const Format16& f, Rnd r) {
    const int expBits = 15 - f.mant;
    const uint16_t infBits = uint16_t(((1u << expBits) - 1) << f.mant);
    if (v != v) return uint16_t(infBits | (1u << (f.mant - 1)));
    const bool neg = std::signbit(v);
    const uint16_t sign = neg ? 0x8000u : 0;
    const double a = std::fabs(v);
    if (a == 0) return sign;
    if (std::isinf(a)) return uint16_t(sign | infBits);
    int E;
    std::frexp(a, &E);  // a = m * 2^E, m in [0.5, 1)
    int e = E - 1;
    if (e < f.emin) e = f.emin;  // subnormal quantum
    const double q = std::ldexp(1.0, e - f.mant);
    const double k = RoundUnits(a / q, r, neg);
    const double value = k * q;
    if (k == 0) return sign;
    const double maxFinite = std::ldexp(double((2u << f.mant) - 1), f.emax - f.mant);
    if (value > maxFinite) {
        // overflow: IEEE gives inf for modes rounding the magnitude up (and for nearest), max finite otherwise
        const bool towardInf = r == Rnd::Rne || r == Rnd::Round || (r == Rnd::Ceil && !neg) || (r == Rnd::Floor && neg);
        return towardInf ? uint16_t(sign | infBits) : uint16_t(sign | (infBits - 1));
    }
    int E2;
    std::frexp(value, &E2);
    int e2 = E2 - 1;
    if (e2 < f.emin) return uint16_t(sign | uint16_t(k));  // subnormal: the quantum is 2^(emin-mant)
    const double mant = std::ldexp(value, f.mant - e2) - std::ldexp(1.0, f.mant);
    return uint16_t(sign | uint16_t((e2 + f.bias) << f.mant) | uint16_t(mant));
}
inline uint16_t RefHalf(double v, Rnd r = Rnd::Rne) { return Encode16(v, kHalf, r); }
inline uint16_t RefBf16(double v, Rnd r = Rnd::Rne) { return Encode16(v, kBf16, r); }

// A2/A3 saturation of a 16-bit result: inf -> +-max, NaN -> 0.
inline uint16_t Sat16(uint16_t b, const Format16& f) {
    const uint16_t infBits = uint16_t(((1u << (15 - f.mant)) - 1) << f.mant);
    if ((b & 0x7fffu) == infBits) return uint16_t((b & 0x8000u) | (infBits - 1));
    if ((b & 0x7fffu) > infBits) return 0;
    return b;
}

// Float (binary32) rounding of an exact integer, by integer arithmetic.
inline float RefIntToFloat(int64_t v, Rnd r) {
    const bool neg = v < 0;
    uint64_t a = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    if (a < (1ull << 24)) return neg ? -float(a) : float(a);
    int len = 64 - __builtin_clzll(a);
    const int shift = len - 24;
    uint64_t k = a >> shift;
    const uint64_t rem = a & ((1ull << shift) - 1);
    const uint64_t halfway = 1ull << (shift - 1);
    if (rem != 0) {
        bool up = false;
        switch (r) {
            case Rnd::Floor: up = neg; break;
            case Rnd::Ceil: up = !neg; break;
            case Rnd::Trunc: up = false; break;
            case Rnd::Round: up = rem >= halfway; break;
            case Rnd::Odd: up = (k & 1) == 0; break;
            case Rnd::Rne: default: up = rem > halfway || (rem == halfway && (k & 1)); break;
        }
        if (up) k++;
    }
    const float mag = std::ldexp(float(k), shift);
    return neg ? -mag : mag;
}

// Rounding to an integer type, saturating, NaN -> 0.
template <typename I>
I RefToInt(double v, Rnd r) {
    if (v != v) return I(0);
    const bool neg = v < 0;
    const double k = RoundUnits(std::fabs(v), r == Rnd::Odd ? Rnd::Rne : r, neg);
    const double s = neg ? -k : k;
    if (s <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (s >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return I(s);
}

// ---------------------------------------------------------------- data

// Float test values: specials, subnormals, limits, and `randoms` log-uniform values of both signs.
inline std::vector<float> FloatValues(size_t randoms, uint32_t seed = 1) {
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.5f, 3.0f, 1e-40f, -1e-40f, 1.4e-45f,
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), INFINITY, -INFINITY, NAN, 65504.0f, 65520.0f,
                            1e30f, -1e30f, 123456.789f, 7.0f};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> ex(-30.0f, 30.0f);
    for (size_t i = 0; i < randoms; ++i) {
        const float m = std::ldexp(1.0f, 0) * std::exp2(ex(rng));
        v.push_back((rng() & 1) ? -m : m);
    }
    return v;
}

inline std::vector<half> HalfValues(size_t randoms, uint32_t seed = 2) {
    std::vector<uint16_t> bits = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff,
                                  0x7c00, 0xfc00, 0x7e00, 0x3555, 0x4900, 0x7800, 0x5bff};
    std::mt19937 rng(seed);
    for (size_t i = 0; i < randoms; ++i) {
        uint16_t b = uint16_t(rng());
        if ((b & 0x7c00) == 0x7c00) b &= 0xbfff;  // keep most randoms finite
        bits.push_back(b);
    }
    std::vector<half> out;
    for (uint16_t b : bits) out.push_back(half::FromBits(b));
    return out;
}

inline std::vector<bfloat16_t> Bf16Values(size_t randoms, uint32_t seed = 3) {
    std::vector<uint16_t> bits = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f,
                                  0x7f80, 0xff80, 0x7fc0, 0x4049, 0x4700};
    std::mt19937 rng(seed);
    for (size_t i = 0; i < randoms; ++i) {
        uint16_t b = uint16_t(rng());
        if ((b & 0x7f80) == 0x7f80) b &= 0xbfff;
        b = uint16_t((b & 0x8000) | (0x3000 + (b & 0x1fff)));  // moderate exponents so sums/products stay finite
        bits.push_back(b);
    }
    std::vector<bfloat16_t> out;
    for (uint16_t b : bits) out.push_back(bfloat16_t::FromBits(b));
    return out;
}

template <typename T>
std::vector<T> IntValues(size_t n, uint32_t seed = 4) {
    std::mt19937 rng(seed);
    std::vector<T> v = {T(0), T(1), T(-1), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(7)};
    while (v.size() < n) v.push_back(T(rng()));
    return v;
}

// Pads v (by repeating it) to exactly n elements.
template <typename T>
std::vector<T> Cycle(const std::vector<T>& v, size_t n) {
    std::vector<T> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = v[i % v.size()];
    return out;
}

// Distance in units in the last place between two floats (both finite or equal).
inline int64_t UlpDiff(float a, float b) {
    auto key = [](float x) {
        int32_t i;
        std::memcpy(&i, &x, 4);
        return i < 0 ? int64_t(INT32_MIN) - int64_t(i) : int64_t(i);
    };
    return std::llabs(key(a) - key(b));
}

}  // namespace tu
