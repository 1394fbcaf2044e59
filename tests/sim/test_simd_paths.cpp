// The AVX2 loops of sim/include/actgrad_sim/simd_avx2.h against plain scalar references, on every bf16 pattern and on
// float patterns that hit every rounding case. (The API tests then check whichever path the machine runs against
// the vector unit's semantics; tests/test_sim.py also runs them with ACTGRAD_SIM_NO_AVX2=1 for the portable path.)
#include <algorithm>

#include "harness.h"

#if defined(ACTGRAD_SIM_AVX2)
namespace {

using namespace actgrad_sim;

void RequireAvx2() {
    if (!__builtin_cpu_supports("avx2")) FAIL("this machine has no AVX2; the test cannot run its subject");
}

// Floats whose low 16 bits take every rounding-relevant value (0, 1, just below/at/above the half-way point, all
// ones) under every upper pattern: every exponent, sign, NaN, inf and subnormal.
std::vector<uint32_t> RoundingPatterns() {
    const uint32_t lows[] = {0x0000, 0x0001, 0x3fff, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff};
    std::vector<uint32_t> out;
    for (uint32_t hi = 0; hi < 65536; ++hi)
        for (uint32_t lo : lows) out.push_back(hi << 16 | lo);
    return out;
}

// Float patterns spread over the whole range (every sign, exponent, NaN, inf, subnormal), plus the edges of Exp.
std::vector<float> SpreadFloats() {
    std::vector<float> out;
    for (uint64_t b = 0; b < (1ull << 32); b += 4099) out.push_back(BitsFloat(uint32_t(b)));
    for (float v : {0.0f, -0.0f, 88.72f, 88.73f, -87.33f, -103.9f, -104.1f, INFINITY, -INFINITY, NAN}) out.push_back(v);
    return out;
}

TEST(Avx2_narrow_bf16_matches_scalar_rne) {
    RequireAvx2();
    const std::vector<uint32_t> bits = RoundingPatterns();
    std::vector<float> in(bits.size());
    std::memcpy(in.data(), bits.data(), bits.size() * 4);
    std::vector<uint16_t> out(in.size() + 16, 0xA5A5);
    const uint32_t n = uint32_t(in.size() - 5);  // a tail the AVX2 loop leaves to the caller
    const uint32_t done = avx2::NarrowBf16(out.data(), in.data(), n);
    CHECK_EQ(done, n / 16 * 16);
    for (uint32_t i = 0; i < done; ++i)
        if (out[i] != FloatToBf16BitsRne(in[i])) FAIL("float bits ", bits[i], ": got ", out[i], " want ", FloatToBf16BitsRne(in[i]));
    for (uint32_t i = done; i < out.size(); ++i) CHECK_EQ(out[i], 0xA5A5);
}

TEST(F16c_half_widen_every_pattern_and_narrow_rounding_cases) {
    RequireAvx2();
    std::vector<uint16_t> h(65536 + 5);  // a tail the loop leaves to the caller
    for (uint32_t i = 0; i < h.size(); ++i) h[i] = uint16_t(i);
    std::vector<float> wide(h.size(), 0.0f);
    const uint32_t done = avx2::WidenHalf(wide.data(), h.data(), uint32_t(h.size()));
    CHECK_EQ(done, uint32_t(h.size()) / 8 * 8);
    for (uint32_t i = 0; i < done; ++i)  // bit for bit, signalling NaNs included
        if (FloatBits(wide[i]) != FloatBits(HalfBitsToFloat(h[i]))) FAIL("half bits ", h[i], ": got ", wide[i]);
    for (uint32_t i = done; i < wide.size(); ++i) CHECK_EQ(FloatBits(wide[i]), 0u);

    // every exponent and sign, with the low 13 bits (what half drops) at every rounding case, plus a spread
    std::vector<float> f;
    const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x0800, 0x17ff};
    for (uint32_t hi = 0; hi < (1u << 19); ++hi)
        for (uint32_t lo : lows) f.push_back(BitsFloat(hi << 13 | lo));
    for (float v : SpreadFloats()) f.push_back(v);
    std::vector<uint16_t> narrow(f.size());
    const uint32_t m = uint32_t(f.size()) / 8 * 8;
    CHECK_EQ(avx2::NarrowHalf(narrow.data(), f.data(), m), m);
    for (uint32_t i = 0; i < m; ++i)
        if (narrow[i] != FloatToHalfBitsRne(f[i])) FAIL("float bits ", FloatBits(f[i]), ": got ", narrow[i], " want ", FloatToHalfBitsRne(f[i]));
}

// check(Pred, ref, name) for every compare mode, Pred as a std::integral_constant
template <typename Check>
void ForEveryMode(Check check) {
    check(std::integral_constant<int, _CMP_LT_OQ>{}, [](float x, float y) { return x < y; }, "LT");
    check(std::integral_constant<int, _CMP_GT_OQ>{}, [](float x, float y) { return x > y; }, "GT");
    check(std::integral_constant<int, _CMP_EQ_OQ>{}, [](float x, float y) { return x == y; }, "EQ");
    check(std::integral_constant<int, _CMP_LE_OQ>{}, [](float x, float y) { return x <= y; }, "LE");
    check(std::integral_constant<int, _CMP_GE_OQ>{}, [](float x, float y) { return x >= y; }, "GE");
    check(std::integral_constant<int, _CMP_NEQ_UQ>{}, [](float x, float y) { return x != y; }, "NE");
}

template <int Pred, typename Ref>
void CheckCompare(const std::vector<float>& a, const std::vector<float>& b, Ref ref, const char* name) {
    const uint32_t n = uint32_t(a.size()) - 8;  // 32 lanes per store, then a tail of 8
    std::vector<uint8_t> t(n / 8 + 1, 0xA5), s(n / 8 + 1, 0xA5), self(n / 8 + 1, 0xA5);
    avx2::Compare<Pred>(t.data(), a.data(), b.data(), n);
    avx2::Compare<Pred>(s.data(), a.data(), b[3], n);
    avx2::Compare<Pred>(self.data(), a.data(), a.data(), n);
    for (uint32_t i = 0; i < n; ++i) {
        if (((t[i / 8] >> (i % 8)) & 1) != (ref(a[i], b[i]) ? 1 : 0)) FAIL(name, " tensor lane ", i, ": ", a[i], " vs ", b[i]);
        if (((s[i / 8] >> (i % 8)) & 1) != (ref(a[i], b[3]) ? 1 : 0)) FAIL(name, " scalar lane ", i, ": ", a[i], " vs ", b[3]);
        if (((self[i / 8] >> (i % 8)) & 1) != (ref(a[i], a[i]) ? 1 : 0)) FAIL(name, " self lane ", i, ": ", a[i]);
    }
    CHECK_EQ(t[n / 8], 0xA5);  // nothing past the count
    CHECK_EQ(s[n / 8], 0xA5);
}

TEST(Avx2_compare_every_mode_with_nan_inf_zeros) {
    RequireAvx2();
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-45f, -3.5f, 2.0f, 1.0f, NAN};
    std::vector<float> a, b;
    for (float x : specials)
        for (float y : specials) a.push_back(x), b.push_back(y);
    while (a.size() % 64) a.push_back(0.5f), b.push_back(NAN);
    ForEveryMode([&](auto pred, auto ref, const char* name) { CheckCompare<decltype(pred)::value>(a, b, ref, name); });
}

// 16-bit operands `a` (65536 of them) against each float scalar, as the compare of their exact float values (`widen`),
// for counts that leave tails after whole 32s of lanes and counts below 32.
template <int Pred, typename E, typename Widen, typename Ref>
void CheckScalarCompare(const std::vector<E>& a, Widen widen, const std::vector<float>& scalars, Ref ref,
                        const char* name, const char* type) {
    std::vector<uint8_t> s(65536 / 8);
    for (float scalar : scalars) {
        for (uint32_t count : {65536u - 24, 8u, 24u, 40u}) {
            std::fill(s.begin(), s.end(), uint8_t(0xA5));
            avx2::Compare<Pred>(s.data(), a.data(), scalar, count);
            for (uint32_t i = 0; i < count; ++i) {
                if (((s[i / 8] >> (i % 8)) & 1) != (ref(widen(a[i]), scalar) ? 1 : 0))
                    FAIL(name, " ", type, " scalar ", scalar, " count ", count, " lane ", i);
            }
            CHECK_EQ(s[count / 8], 0xA5);  // nothing past the count
        }
    }
}

// f16 operands: every pattern against special and ordinary values, as the compare of their exact float values.
// f16 scalars go on the bits in whole 32s of lanes and through F16C after them; a NaN scalar and one that is not an
// f16 number take F16C throughout.
template <int Pred, typename Ref>
void CheckHalfCompare(Ref ref, const char* name) {
    std::vector<uint16_t> a(65536), b(65536);
    // every pattern, rotated so that with a count of n - 24 the 8 lanes past the last 32 (F16C's) hold numbers
    for (uint32_t i = 0; i < 65536; ++i) a[i] = uint16_t(i + 40), b[i] = uint16_t(i * 40503u);  // b: a permutation
    const uint32_t n = 65536;
    std::vector<uint8_t> t(65536 / 8), self(65536 / 8);
    avx2::Compare<Pred>(t.data(), a.data(), b.data(), n);
    avx2::Compare<Pred>(self.data(), a.data(), a.data(), n);  // the same tensor on both sides
    for (uint32_t i = 0; i < n; ++i) {
        const float x = HalfBitsToFloat(a[i]), y = HalfBitsToFloat(b[i]);
        if (((self[i / 8] >> (i % 8)) & 1) != (ref(x, x) ? 1 : 0)) FAIL(name, " f16 self lane ", i);
        if (((t[i / 8] >> (i % 8)) & 1) != (ref(x, y) ? 1 : 0)) FAIL(name, " f16 tensor lane ", i);
    }
    std::vector<float> scalars = {NAN, 0.1f};
    for (uint16_t bits : {0x0000, 0x8000, 0x3c00, 0xc200, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff})
        scalars.push_back(HalfBitsToFloat(bits));
    CheckScalarCompare<Pred>(a, HalfBitsToFloat, scalars, ref, name, "f16");
}

TEST(F16c_half_compare_every_pattern_every_mode) {
    RequireAvx2();
    ForEveryMode([](auto pred, auto ref, const char* name) { CheckHalfCompare<decltype(pred)::value>(ref, name); });
}

// bf16 operands (the source of a deferred widening) against a float scalar: every pattern, for bf16 numbers, a NaN and
// scalars between two bf16 numbers.
TEST(Avx2_bf16_scalar_compare_every_pattern_every_mode) {
    RequireAvx2();
    std::vector<bfloat16_t> a(65536);
    for (uint32_t i = 0; i < 65536; ++i) a[i] = bfloat16_t::FromBits(uint16_t(i + 40));
    std::vector<float> scalars = {NAN, 0.1f, -1.0000001f};
    for (uint16_t bits : {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x0001, 0x8001, 0x007f, 0x7f7f, 0xff7f})
        scalars.push_back(Bf16BitsToFloat(bits));
    const auto widen = [](bfloat16_t v) { return float(v); };
    ForEveryMode([&](auto pred, auto ref, const char* name) {
        CheckScalarCompare<decltype(pred)::value>(a, widen, scalars, ref, name, "bf16");
    });
}

template <typename W>
void CheckSelect() {
    const uint32_t n = 1000;  // not a multiple of the vector width: the caller's tail stays untouched
    std::vector<W> a(n), b(n), d(n, W(0xA5A5)), ds(n, W(0xA5A5));
    std::vector<uint8_t> mask(n / 8 + 1);
    uint32_t state = 12345;
    auto next = [&]() { return state = state * 1664525u + 1013904223u; };
    for (uint32_t i = 0; i < n; ++i) a[i] = W(next()), b[i] = W(next());
    for (auto& m : mask) m = uint8_t(next() >> 24);
    const W scalar = W(0x7FC0DEADu);
    const uint32_t done = avx2::SelectBits(d.data(), mask.data(), a.data(), b.data(), n);
    const uint32_t doneS = avx2::SelectBits(ds.data(), mask.data(), a.data(), scalar, n);
    CHECK_EQ(done, n / (32 / sizeof(W)) * (32 / sizeof(W)));
    CHECK_EQ(doneS, done);
    for (uint32_t i = 0; i < n; ++i) {
        const bool take = (mask[i / 8] >> (i % 8)) & 1;
        CHECK_EQ(uint64_t(d[i]), uint64_t(i < done ? (take ? a[i] : b[i]) : W(0xA5A5)));
        CHECK_EQ(uint64_t(ds[i]), uint64_t(i < done ? (take ? a[i] : scalar) : W(0xA5A5)));
    }

    // in place (dst is the true side): 64-lane runs of set bits are skipped, the others patched, the tail untouched
    std::vector<uint8_t> mostly(mask.size(), 0xFF);
    for (uint32_t k = 0; k < mostly.size(); k += 11) mostly[k] = uint8_t(next() >> 24);
    std::vector<W> in(a), inS(a);
    CHECK_EQ(avx2::SelectBits(in.data(), mostly.data(), in.data(), b.data(), n), done);
    CHECK_EQ(avx2::SelectBits(inS.data(), mostly.data(), inS.data(), scalar, n), done);
    for (uint32_t i = 0; i < n; ++i) {
        const bool take = i >= done || ((mostly[i / 8] >> (i % 8)) & 1);
        CHECK_EQ(uint64_t(in[i]), uint64_t(take ? a[i] : b[i]));
        CHECK_EQ(uint64_t(inS[i]), uint64_t(take ? a[i] : scalar));
    }
}

TEST(Avx2_select_32_and_16_bit_lanes_tensor_and_scalar) {
    RequireAvx2();
    CheckSelect<uint32_t>();
    CheckSelect<uint16_t>();
}

TEST(Avx2_float_loops_give_the_bits_of_the_baseline_loops) {
    RequireAvx2();
    const std::vector<float> a = SpreadFloats();
    std::vector<float> b(a.rbegin(), a.rend());
    const int32_t n = int32_t(a.size());
    std::vector<float> got(a.size()), want(a.size());
    auto same = [&](const char* what) {
        for (int32_t i = 0; i < n; ++i)
            if (FloatBits(got[i]) != FloatBits(want[i]) && !(got[i] != got[i] && want[i] != want[i]))
                FAIL(what, " of ", a[i], " (and ", b[i], "): AVX2 ", got[i], ", baseline ", want[i]);
    };
    // the baseline: one call per element, which the compiler cannot turn into an AVX2 loop
    auto baseline = [&](auto f) {
        for (int32_t i = 0; i < n; ++i) {
            volatile float x = a[i], y = b[i];
            want[i] = f(x, y);
        }
    };
    ApplyUnaryAvx2(got.data(), a.data(), n, [](float x) { return ExpF(x); });
    baseline([](float x, float) { return ExpF(x); });
    same("Exp");
    ApplyBinaryAvx2(got.data(), a.data(), b.data(), n, [](float x, float y) { return x / y; });
    baseline([](float x, float y) { return x / y; });
    same("Div");
    ApplyBinaryAvx2(got.data(), a.data(), b.data(), n, [](float x, float y) { return MaxNan(x, y); });
    baseline([](float x, float y) { return MaxNan(x, y); });
    same("Max");
}

// Add and Mul on 8 lanes (the x86 instruction with src0 first) give the bits of the twin's NaN rule, KeepFirstNan:
// every pair of NaN payloads (quiet and signalling, both signs) in either order, NaN against numbers, and numbers.
TEST(Avx2_add_mul_lanes_keep_the_first_nan) {
    RequireAvx2();
    std::vector<float> a, b;
    const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u, 0x7fbfffffu};
    const float numbers[] = {0.0f, -0.0f, 1.5f, -3.0e38f, INFINITY, -INFINITY, 1e-45f};
    for (uint32_t x : nans) {
        for (uint32_t y : nans) {
            a.push_back(BitsFloat(x));
            b.push_back(BitsFloat(y));
        }
        for (float v : numbers) {
            a.push_back(BitsFloat(x));
            b.push_back(v);
            a.push_back(v);
            b.push_back(BitsFloat(x));
        }
    }
    for (float x : numbers)
        for (float y : numbers) {
            a.push_back(x);
            b.push_back(y);
        }
    while (a.size() % 8 != 0) {
        a.push_back(2.0f);
        b.push_back(BitsFloat(0x7fc00003u));
    }
    const int32_t n = int32_t(a.size());
    std::vector<float> got(a.size());
    ApplyBinaryLanes8(got.data(), a.data(), b.data(), n, [](const auto& x, const auto& y) { return AddKeepFirstNan(x, y); });
    for (int32_t i = 0; i < n; ++i)
        if (FloatBits(got[i]) != FloatBits(KeepFirstNan(a[i], a[i] + b[i])))
            FAIL("Add of bits ", FloatBits(a[i]), " and ", FloatBits(b[i]), ": got ", FloatBits(got[i]));
    ApplyBinaryLanes8(got.data(), a.data(), b.data(), n, [](const auto& x, const auto& y) { return MulKeepFirstNan(x, y); });
    for (int32_t i = 0; i < n; ++i)
        if (FloatBits(got[i]) != FloatBits(KeepFirstNan(a[i], a[i] * b[i])))
            FAIL("Mul of bits ", FloatBits(a[i]), " and ", FloatBits(b[i]), ": got ", FloatBits(got[i]));
}

// The 8-lane Exp (fast_math.h) bit for bit, NaN payloads included, on f32 patterns (with both sides of its
// in-range test at 86.5 and a vector mixing the two cases) and on every bf16 pattern read as a deferred widening's
// source.
TEST(Avx2_exp_lanes_give_the_bits_of_ExpF) {
    RequireAvx2();
    std::vector<float> a = SpreadFloats();
    for (float v : {86.5f, -86.5f, 86.50001f, -86.50001f, 86.49999f, -86.49999f, 1e-45f, -1e-45f, 0.5f, -0.5f})
        a.push_back(v);
    const uint32_t n = uint32_t(a.size());
    std::vector<float> got(n + 3, -1.0f);
    const uint32_t done = avx2::ExpInto(got.data(), a.data(), n);
    CHECK_EQ(done, n / 8 * 8);
    for (uint32_t i = 0; i < done; ++i)
        if (FloatBits(got[i]) != FloatBits(ExpF(a[i]))) FAIL("Exp of float bits ", FloatBits(a[i]), ": got ", FloatBits(got[i]));
    for (uint32_t i = done; i < got.size(); ++i) CHECK_EQ(got[i], -1.0f);

    std::vector<bfloat16_t> h(65536);
    for (uint32_t i = 0; i < h.size(); ++i) h[i] = bfloat16_t::FromBits(uint16_t(i));
    got.assign(h.size(), 0.0f);
    CHECK_EQ(avx2::ExpInto(got.data(), h.data(), uint32_t(h.size())), uint32_t(h.size()));
    for (uint32_t i = 0; i < h.size(); ++i)
        if (FloatBits(got[i]) != FloatBits(ExpF(Bf16BitsToFloat(uint16_t(i))))) FAIL("Exp of bf16 bits ", i, ": got ", FloatBits(got[i]));
}

}  // namespace
#endif

TEST_MAIN()
