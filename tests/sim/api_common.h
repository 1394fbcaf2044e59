// Helpers shared by the API tests (test_api.cpp, test_api_cast.cpp): value comparison with NaN/zero rules, the
// untouched-tail check, exact references rounded like the vector unit stores a type, and op runners.
#pragma once
#include "twin_util.h"

using namespace tu;
using AscendC::CMPMODE;
using AscendC::SELMODE;
using AscendC::SaturationMode;

namespace {

// ====================================================================================== comparison helpers

template <typename T>
bool IsNanValue(const T& v) {
    if constexpr (std::is_same<T, half>::value) return IsNan16(v.val, kHalf);
    else if constexpr (std::is_same<T, bfloat16_t>::value) return IsNan16(v.val, kBf16);
    else if constexpr (std::is_floating_point<T>::value) return v != v;
    else return false;
}

// Same value: identical bits, or both NaN (payloads are not specified); with zerosEqual +0 == -0.
template <typename T>
bool Same(const T& a, const T& b, bool zerosEqual = false) {
    if (IsNanValue(a) && IsNanValue(b)) return true;
    if (zerosEqual && !std::is_integral<T>::value && double(float(a)) == 0.0 && double(float(b)) == 0.0) return true;
    return th::Bits(a) == th::Bits(b);
}

template <typename T>
void CheckTail(const std::vector<T>& out, size_t from, const char* what) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(out.data());
    for (size_t i = from * sizeof(T); i < out.size() * sizeof(T); ++i)
        if (p[i] != 0xA5) FAIL(what, ": byte ", i, " beyond count was written (", int(p[i]), ")");
}

// Result of a computation done exactly in double, rounded like the vector unit stores T.
template <typename T>
T Store(double v, bool saturate) {
    if constexpr (std::is_same<T, half>::value) {
        const uint16_t b = RefHalf(v);
        return half::FromBits(saturate ? Sat16(b, kHalf) : b);
    } else if constexpr (std::is_same<T, bfloat16_t>::value) {
        const uint16_t b = RefBf16(v);
        return bfloat16_t::FromBits(saturate ? Sat16(b, kBf16) : b);
    } else {
        return T(v);
    }
}

// Runs api(dst, src0, src1, count) on a and b, checks every element against expect(a[i], b[i]) and the tail.
template <typename T, typename Api, typename Ref>
void RunBinary(const char* what, const std::vector<T>& a, const std::vector<T>& b, Api api, Ref expect,
               bool zerosEqual = false) {
    const uint32_t n = uint32_t(a.size());
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto d = ub.Alloc<T>(n + 16);
        api(d, x, y, int32_t(n));
        out = Ub::Read(d, n + 16);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const T e = expect(a[i], b[i]);
        if (!Same(out[i], e, zerosEqual))
            FAIL(what, " element ", i, ": f(", th::Show(a[i]), ", ", th::Show(b[i]), ") = ", th::Show(out[i]), ", expected ",
                 th::Show(e));
    }
    CheckTail(out, n, what);
}

template <typename T, typename Api, typename Ref>
void RunUnary(const char* what, const std::vector<T>& a, Api api, Ref expect) {
    const uint32_t n = uint32_t(a.size());
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto d = ub.Alloc<T>(n + 16);
        api(d, x, int32_t(n));
        out = Ub::Read(d, n + 16);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const T e = expect(a[i]);
        if (!Same(out[i], e))
            FAIL(what, " element ", i, ": f(", th::Show(a[i]), ") = ", th::Show(out[i]), ", expected ", th::Show(e));
    }
    CheckTail(out, n, what);
}

template <typename T>
std::vector<T> Reversed(std::vector<T> v) {
    std::reverse(v.begin(), v.end());
    return v;
}

// Pairs chosen to hit overflow, cancellation, NaN and subnormal results.
std::vector<float> FloatA() {
    auto v = FloatValues(300);
    for (float f : {3e38f, -3e38f, 1e-38f, 2.0f, INFINITY, 0.0f, 1e20f}) v.push_back(f);
    return v;
}
std::vector<float> FloatB() {
    auto v = Reversed(FloatValues(300, 77));
    for (float f : {3e38f, -3e38f, -1e-38f, 1e-39f, -INFINITY, 0.0f, -1e20f}) v.push_back(f);
    return v;
}

// Wrapping integer arithmetic reference.
template <typename T>
T Wrap(int64_t v) {
    using U = std::make_unsigned_t<T>;
    return T(U(uint64_t(v)));
}

#define API2(OP) [](const auto& d, const auto& x, const auto& y, int32_t n) { AscendC::OP(d, x, y, n); }
#define API1(OP) [](const auto& d, const auto& x, int32_t n) { AscendC::OP(d, x, n); }

template <typename T>
double D(const T& v) {
    if constexpr (actgrad_sim::IsHalfLike<T>) return double(float(v));
    else return double(v);
}

}  // namespace
