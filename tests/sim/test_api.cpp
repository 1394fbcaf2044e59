// Every twin API against a scalar reference: vector arithmetic, Compare/Select, high-level math, data movement,
// tensors and buffers, SoC selection, launch statistics and threading. Cast, the 16-bit float formats and the
// saturation switch are in test_api_cast.cpp (a separate translation unit so the two compile in parallel).
#include "api_common.h"
#include "add_kernel.h"

// ====================================================================================== binary tensor-tensor

TEST(Add_float_half_int16_int32) {
    RunBinary<float>("Add<float>", FloatA(), FloatB(), API2(Add), [](float a, float b) { return a + b; });
    auto ha = HalfValues(400), hb = Reversed(HalfValues(400, 9));
    ha.push_back(half(60000.0f)); hb.push_back(half(60000.0f));
    RunBinary<half>("Add<half>", ha, hb, API2(Add), [](half a, half b) { return Store<half>(D(a) + D(b), true); });
    RunBinary<int16_t>("Add<int16_t>", IntValues<int16_t>(200), Reversed(IntValues<int16_t>(200, 5)), API2(Add),
                       [](int16_t a, int16_t b) { return Wrap<int16_t>(int64_t(a) + b); });
    RunBinary<int32_t>("Add<int32_t>", IntValues<int32_t>(200), Reversed(IntValues<int32_t>(200, 5)), API2(Add),
                       [](int32_t a, int32_t b) { return Wrap<int32_t>(int64_t(a) + b); });
}

TEST(Sub_float_half_int16_int32) {
    RunBinary<float>("Sub<float>", FloatA(), FloatB(), API2(Sub), [](float a, float b) { return a - b; });
    RunBinary<half>("Sub<half>", HalfValues(400), Reversed(HalfValues(400, 9)), API2(Sub),
                    [](half a, half b) { return Store<half>(D(a) - D(b), true); });
    RunBinary<int16_t>("Sub<int16_t>", IntValues<int16_t>(200), Reversed(IntValues<int16_t>(200, 5)), API2(Sub),
                       [](int16_t a, int16_t b) { return Wrap<int16_t>(int64_t(a) - b); });
    RunBinary<int32_t>("Sub<int32_t>", IntValues<int32_t>(200), Reversed(IntValues<int32_t>(200, 5)), API2(Sub),
                       [](int32_t a, int32_t b) { return Wrap<int32_t>(int64_t(a) - b); });
}

TEST(Mul_float_half_int16_int32) {
    RunBinary<float>("Mul<float>", FloatA(), FloatB(), API2(Mul), [](float a, float b) { return a * b; });
    RunBinary<half>("Mul<half>", HalfValues(400), Reversed(HalfValues(400, 9)), API2(Mul),
                    [](half a, half b) { return Store<half>(D(a) * D(b), true); });
    RunBinary<int16_t>("Mul<int16_t>", IntValues<int16_t>(200), Reversed(IntValues<int16_t>(200, 5)), API2(Mul),
                       [](int16_t a, int16_t b) { return Wrap<int16_t>(int64_t(a) * b); });
    RunBinary<int32_t>("Mul<int32_t>", IntValues<int32_t>(200), Reversed(IntValues<int32_t>(200, 5)), API2(Mul),
                       [](int32_t a, int32_t b) { return Wrap<int32_t>(int64_t(a) * b); });
}

// Where both operands are NaN the result keeps src0's NaN, quieted (the twin's rule: IEEE leaves the payload open);
// where one is, that one's. Same bits whatever loop runs (tests/test_sim.py runs this with and without AVX2).
TEST(Add_Mul_Sub_Div_float_nan_payloads) {
    const std::vector<uint32_t> aBits = {0x7fc00001, 0x7f800001, 0xffc12345, 0x3f800000, 0xff80beef, 0x7fffffff};
    const std::vector<uint32_t> bBits = {0x7fc0beef, 0xff800002, 0x40000000, 0x7f812345, 0x7fc00000, 0xffc00001};
    std::vector<float> a, b;
    for (size_t k = 0; k < 64; ++k) {  // several vector widths' worth, so the vector loops and their tails both run
        a.push_back(actgrad_sim::BitsFloat(aBits[k % aBits.size()]));
        b.push_back(actgrad_sim::BitsFloat(bBits[(k / aBits.size() + k) % bBits.size()]));
    }
    auto expect = [](float x, float y) {
        const float nan = x != x ? x : y;
        return actgrad_sim::FloatBits(nan) | 0x00400000u;
    };
    auto check = [&](const char* what, auto api) {
        std::vector<float> out;
        RunUb([&](Ub& ub) {
            auto x = ub.Load(a);
            auto y = ub.Load(b);
            auto d = ub.Alloc<float>(uint32_t(a.size()) + 16);
            api(d, x, y, int32_t(a.size()));
            out = Ub::Read(d, uint32_t(a.size()));
        });
        for (size_t i = 0; i < a.size(); ++i)
            if ((a[i] != a[i] || b[i] != b[i]) && actgrad_sim::FloatBits(out[i]) != expect(a[i], b[i]))
                FAIL(what, " element ", i, ": ", th::Show(a[i]), ", ", th::Show(b[i]), " gave bits ", actgrad_sim::FloatBits(out[i]),
                     ", expected ", expect(a[i], b[i]));
    };
    check("Add", API2(Add));
    check("Mul", API2(Mul));
    check("Sub", API2(Sub));
    check("Div", API2(Div));
    // the tensor-scalar forms take the tensor as src0: a NaN scalar, against each of the tensor's values
    for (const uint32_t scalarBits : bBits) {
        const float s = actgrad_sim::BitsFloat(scalarBits);
        const std::vector<float> all(a.size(), s);
        std::vector<float> keep = b;
        b = all;
        check("Adds", [s](auto& d, auto& x, auto&, int32_t n) { AscendC::Adds(d, x, s, n); });
        check("Muls", [s](auto& d, auto& x, auto&, int32_t n) { AscendC::Muls(d, x, s, n); });
        b = keep;
    }
}

TEST(Div_float_half) {
    RunBinary<float>("Div<float>", FloatA(), FloatB(), API2(Div), [](float a, float b) { return a / b; });
    // double rounding through float is innocuous for division of halves (24 >= 2*11+2), so compare with RNE(exact)
    auto hb = Reversed(HalfValues(400, 9));
    hb[3] = half(0.0f);
    RunBinary<half>("Div<half>", HalfValues(400), hb, API2(Div), [](half a, half b) { return Store<half>(D(a) / D(b), true); });
}

TEST(Max_Min_float_half_int16_int32) {
    auto maxRef = [](double a, double b) { return (a != a || b != b) ? NAN : std::max(a, b); };
    auto minRef = [](double a, double b) { return (a != a || b != b) ? NAN : std::min(a, b); };
    RunBinary<float>("Max<float>", FloatA(), FloatB(), API2(Max), [&](float a, float b) { return float(maxRef(a, b)); }, true);
    RunBinary<float>("Min<float>", FloatA(), FloatB(), API2(Min), [&](float a, float b) { return float(minRef(a, b)); }, true);
    RunBinary<half>("Max<half>", HalfValues(300), Reversed(HalfValues(300, 9)), API2(Max),
                    [&](half a, half b) { return Store<half>(maxRef(D(a), D(b)), true); }, true);
    RunBinary<half>("Min<half>", HalfValues(300), Reversed(HalfValues(300, 9)), API2(Min),
                    [&](half a, half b) { return Store<half>(minRef(D(a), D(b)), true); }, true);
    RunBinary<int16_t>("Max<int16_t>", IntValues<int16_t>(100), Reversed(IntValues<int16_t>(100, 5)), API2(Max),
                       [](int16_t a, int16_t b) { return std::max(a, b); });
    RunBinary<int32_t>("Min<int32_t>", IntValues<int32_t>(100), Reversed(IntValues<int32_t>(100, 5)), API2(Min),
                       [](int32_t a, int32_t b) { return std::min(a, b); });
    RunBinary<int16_t>("Min<int16_t>", IntValues<int16_t>(100), Reversed(IntValues<int16_t>(100, 5)), API2(Min),
                       [](int16_t a, int16_t b) { return std::min(a, b); });
    RunBinary<int32_t>("Max<int32_t>", IntValues<int32_t>(100), Reversed(IntValues<int32_t>(100, 5)), API2(Max),
                       [](int32_t a, int32_t b) { return std::max(a, b); });
}

TEST(And_Or_Not_int16_uint16) {
    RunBinary<int16_t>("And<int16_t>", IntValues<int16_t>(100), Reversed(IntValues<int16_t>(100, 5)), API2(And),
                       [](int16_t a, int16_t b) { return int16_t(a & b); });
    RunBinary<uint16_t>("Or<uint16_t>", IntValues<uint16_t>(100), Reversed(IntValues<uint16_t>(100, 5)), API2(Or),
                        [](uint16_t a, uint16_t b) { return uint16_t(a | b); });
    RunBinary<uint16_t>("And<uint16_t>", IntValues<uint16_t>(100), Reversed(IntValues<uint16_t>(100, 5)), API2(And),
                        [](uint16_t a, uint16_t b) { return uint16_t(a & b); });
    RunBinary<int16_t>("Or<int16_t>", IntValues<int16_t>(100), Reversed(IntValues<int16_t>(100, 5)), API2(Or),
                       [](int16_t a, int16_t b) { return int16_t(a | b); });
    RunUnary<int16_t>("Not<int16_t>", IntValues<int16_t>(100), API1(Not), [](int16_t a) { return int16_t(~a); });
    RunUnary<uint16_t>("Not<uint16_t>", IntValues<uint16_t>(100), API1(Not), [](uint16_t a) { return uint16_t(~a); });
}

TEST(Binary_in_place_and_count_zero) {
    // full overlap (dst == src0 == src1) is legal; count 0 writes nothing
    std::vector<float> v = FloatValues(100);
    std::vector<float> out, untouched;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(v);
        AscendC::Add(x, x, x, int32_t(v.size()));
        out = Ub::Read(x, uint32_t(v.size()));
        auto d = ub.Alloc<float>(64);
        AscendC::Mul(d, x, x, 0);
        untouched = Ub::Read(d, 64);
    });
    for (size_t i = 0; i < v.size(); ++i) CHECK_MSG(Same(out[i], v[i] + v[i]), "element ", i);
    CheckTail(untouched, 0, "Mul count 0");
}

// ====================================================================================== tensor-scalar

TEST(Adds_Muls_Maxs_Mins_float_half_int) {
    const float s = 0.3f;
    RunUnary<float>("Adds<float>", FloatA(), [&](const auto& d, const auto& x, int32_t n) { AscendC::Adds(d, x, s, n); },
                    [&](float a) { return a + s; });
    RunUnary<float>("Muls<float>", FloatA(), [&](const auto& d, const auto& x, int32_t n) { AscendC::Muls(d, x, -2.5f, n); },
                    [&](float a) { return a * -2.5f; });
    RunUnary<float>("Maxs<float>", FloatA(), [&](const auto& d, const auto& x, int32_t n) { AscendC::Maxs(d, x, 1.0f, n); },
                    [&](float a) { return a != a ? a : std::max(a, 1.0f); });
    RunUnary<float>("Mins<float>", FloatA(), [&](const auto& d, const auto& x, int32_t n) { AscendC::Mins(d, x, 1.0f, n); },
                    [&](float a) { return a != a ? a : std::min(a, 1.0f); });
    const half hs = half(0.1f);
    RunUnary<half>("Adds<half>", HalfValues(300), [&](const auto& d, const auto& x, int32_t n) { AscendC::Adds(d, x, hs, n); },
                   [&](half a) { return Store<half>(D(a) + D(hs), true); });
    RunUnary<half>("Muls<half>", HalfValues(300), [&](const auto& d, const auto& x, int32_t n) { AscendC::Muls(d, x, hs, n); },
                   [&](half a) { return Store<half>(D(a) * D(hs), true); });
    RunUnary<half>("Maxs<half>", HalfValues(300), [&](const auto& d, const auto& x, int32_t n) { AscendC::Maxs(d, x, hs, n); },
                   [&](half a) { return Store<half>(IsNanValue(a) ? NAN : std::max(D(a), D(hs)), true); });
    RunUnary<half>("Mins<half>", HalfValues(300), [&](const auto& d, const auto& x, int32_t n) { AscendC::Mins(d, x, hs, n); },
                   [&](half a) { return Store<half>(IsNanValue(a) ? NAN : std::min(D(a), D(hs)), true); });
    RunUnary<int16_t>("Adds<int16_t>", IntValues<int16_t>(100),
                      [&](const auto& d, const auto& x, int32_t n) { AscendC::Adds(d, x, int16_t(1000), n); },
                      [&](int16_t a) { return Wrap<int16_t>(int64_t(a) + 1000); });
    RunUnary<int32_t>("Muls<int32_t>", IntValues<int32_t>(100),
                      [&](const auto& d, const auto& x, int32_t n) { AscendC::Muls(d, x, int32_t(-3), n); },
                      [&](int32_t a) { return Wrap<int32_t>(int64_t(a) * -3); });
    RunUnary<int16_t>("Muls<int16_t>", IntValues<int16_t>(100),
                      [&](const auto& d, const auto& x, int32_t n) { AscendC::Muls(d, x, int16_t(-3), n); },
                      [&](int16_t a) { return Wrap<int16_t>(int64_t(a) * -3); });
    RunUnary<int32_t>("Maxs<int32_t>", IntValues<int32_t>(100),
                      [&](const auto& d, const auto& x, int32_t n) { AscendC::Maxs(d, x, int32_t(5), n); },
                      [&](int32_t a) { return std::max(a, int32_t(5)); });
    RunUnary<int16_t>("Mins<int16_t>", IntValues<int16_t>(100),
                      [&](const auto& d, const auto& x, int32_t n) { AscendC::Mins(d, x, int16_t(5), n); },
                      [&](int16_t a) { return std::min(a, int16_t(5)); });
}

TEST(LeakyRelu_float_half) {
    RunUnary<float>("LeakyRelu<float>", FloatA(),
                    [&](const auto& d, const auto& x, int32_t n) { AscendC::LeakyRelu(d, x, 0.01f, n); },
                    [&](float a) { return a >= 0 ? a : 0.01f * a; });
    const half s = half(0.2f);
    RunUnary<half>("LeakyRelu<half>", HalfValues(300),
                   [&](const auto& d, const auto& x, int32_t n) { AscendC::LeakyRelu(d, x, s, n); },
                   [&](half a) { return Store<half>(D(a) >= 0 ? D(a) : D(s) * D(a), true); });
}

// ====================================================================================== unary

namespace {
// Checks a float unary API within maxUlp of a double reference (exact match required for non-finite results).
template <typename Api>
void UnaryUlpFloat(const char* what, const std::vector<float>& in, Api api, double (*ref)(double), int64_t maxUlp) {
    const uint32_t n = uint32_t(in.size());
    std::vector<float> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(in);
        auto d = ub.Alloc<float>(n);
        api(d, x, int32_t(n));
        out = Ub::Read(d, n);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const float e = float(ref(double(in[i])));
        if (IsNanValue(e) || std::isinf(e) || std::isinf(out[i]) || IsNanValue(out[i])) {
            if (!Same(out[i], e)) FAIL(what, "(", th::Show(in[i]), ") = ", th::Show(out[i]), ", expected ", th::Show(e));
            continue;
        }
        if (UlpDiff(out[i], e) > maxUlp)
            FAIL(what, "(", th::Show(in[i]), ") = ", th::Show(out[i]), ", expected ", th::Show(e), " (", UlpDiff(out[i], e),
                 " ulp > ", maxUlp, ")");
    }
}

// Half unary: within maxUlp half-ulps of RNE(ref) (after saturation).
template <typename Api>
void UnaryHalf(const char* what, const std::vector<half>& in, Api api, double (*ref)(double), int maxUlp) {
    const uint32_t n = uint32_t(in.size());
    std::vector<half> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(in);
        auto d = ub.Alloc<half>(n);
        api(d, x, int32_t(n));
        out = Ub::Read(d, n);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const uint16_t e = Sat16(RefHalf(ref(D(in[i]))), kHalf);
        const uint16_t g = out[i].val;
        auto key = [](uint16_t b) { return (b & 0x8000) ? -int(b & 0x7fff) : int(b); };
        if (std::abs(key(g) - key(e)) > maxUlp)
            FAIL(what, "(", th::Show(in[i]), ") = ", th::Show(out[i]), ", expected ", th::Show(half::FromBits(e)));
    }
}

std::vector<float> Range(float lo, float hi, size_t n) {
    std::vector<float> v;
    for (size_t i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * float(i) / float(n - 1));
    return v;
}

double Exp(double x) { return std::exp(x); }
double Log(double x) { return std::log(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Rsqrt(double x) { return 1.0 / std::sqrt(x); }
double Recip(double x) { return 1.0 / x; }
double Tanh(double x) { return std::tanh(x); }
double Sigm(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Erf(double x) { return std::erf(x); }
}  // namespace

TEST(Exp_float_within_2ulp_half_within_1ulp) {
    auto in = Range(-104.0f, 89.0f, 6000);
    for (float f : {0.0f, -0.0f, 1.0f, 88.72f, 88.73f, -87.3f, -100.0f, -103.9f, 1e-30f, INFINITY, -INFINITY, NAN, 200.0f,
                    -200.0f})
        in.push_back(f);
    UnaryUlpFloat("Exp<float>", in, API1(Exp), Exp, 2);
    UnaryHalf("Exp<half>", HalfValues(2000), API1(Exp), Exp, 1);
}

TEST(Ln_Sqrt_Rsqrt_Reciprocal_float_half) {
    auto pos = FloatValues(2000);
    UnaryUlpFloat("Ln<float>", pos, API1(Ln), Log, 1);
    UnaryUlpFloat("Sqrt<float>", pos, API1(Sqrt), Sqrt, 0);
    UnaryUlpFloat("Rsqrt<float>", pos, API1(Rsqrt), Rsqrt, 1);
    UnaryUlpFloat("Reciprocal<float>", pos, API1(Reciprocal), Recip, 1);
    auto hv = HalfValues(2000);
    UnaryHalf("Ln<half>", hv, API1(Ln), Log, 1);
    UnaryHalf("Sqrt<half>", hv, API1(Sqrt), Sqrt, 0);
    UnaryHalf("Rsqrt<half>", hv, API1(Rsqrt), Rsqrt, 1);
    UnaryHalf("Reciprocal<half>", hv, API1(Reciprocal), Recip, 1);
    // specials: Ln(0) = -inf, Ln(-1) = NaN; in half both saturate (-65504 and 0)
    std::vector<half> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(std::vector<half>{half(0.0f), half(-1.0f), half(1.0f), half(-0.0f)});
        auto d = ub.Alloc<half>(4);
        AscendC::Ln(d, x, 4);
        out = Ub::Read(d, 4);
    });
    CHECK_EQ(out[0].val, 0xfbff);
    CHECK_EQ(out[1].val, 0x0000);
    CHECK_EQ(out[2].val, 0x0000);
}

TEST(Abs_Relu_float_half_int32) {
    RunUnary<float>("Abs<float>", FloatA(), API1(Abs), [](float a) { return std::fabs(a); });
    RunUnary<half>("Abs<half>", HalfValues(300), API1(Abs), [](half a) { return Store<half>(std::fabs(D(a)), true); });
    RunUnary<float>("Relu<float>", FloatA(), API1(Relu), [](float a) { return a != a ? a : (a > 0 ? a : 0.0f); });
    RunUnary<half>("Relu<half>", HalfValues(300), API1(Relu),
                   [](half a) { return Store<half>(IsNanValue(a) ? NAN : (D(a) > 0 ? D(a) : 0.0), true); });
    RunUnary<int32_t>("Relu<int32_t>", IntValues<int32_t>(100), API1(Relu), [](int32_t a) { return a > 0 ? a : 0; });
}

TEST(Duplicate_all_types) {
    auto run = [](auto value, uint32_t n) {
        using T = decltype(value);
        std::vector<T> out;
        RunUb([&](Ub& ub) {
            auto d = ub.Alloc<T>(n + 16);
            AscendC::Duplicate(d, value, int32_t(n));
            out = Ub::Read(d, n + 16);
        });
        for (uint32_t i = 0; i < n; ++i) CHECK_MSG(th::Bits(out[i]) == th::Bits(value), actgrad_sim::TypeName<T>(), " element ", i);
        CheckTail(out, n, "Duplicate");
    };
    run(1.5f, 77);
    run(half(-2.25f), 130);
    run(int16_t(-7), 33);
    run(uint16_t(65535), 300);
    run(int32_t(-123456), 65);
    run(uint32_t(4000000000u), 1);
    run(bfloat16_t(3.0f), 129);  // bf16 fill works on 910B
}


// ====================================================================================== Compare / Compares / Select

namespace {
const CMPMODE kCmp[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};
bool RefCmp(double a, double b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

template <typename T, typename U>
void CheckCompare(const std::vector<T>& a, const std::vector<T>& b, CMPMODE m) {
    const uint32_t n = uint32_t(a.size());
    std::vector<U> mask;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto d = ub.Alloc<U>(n / 8 + 32);
        AscendC::Compare(d, x, y, m, n);
        mask = Ub::Read(d, n / 8 + 32);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const bool bit = (uint8_t(mask[i / 8]) >> (i % 8)) & 1u;
        const bool want = RefCmp(D(a[i]), D(b[i]), m);
        if (bit != want)
            FAIL("Compare<", actgrad_sim::TypeName<T>(), "> ", actgrad_sim::CmpModeName(m), " element ", i, ": ", th::Show(a[i]),
                 " vs ", th::Show(b[i]), " gave ", bit);
    }
    CheckTail(mask, n / 8, "Compare");
}
template <typename T>
void CheckCompares(const std::vector<T>& a, T s, CMPMODE m) {
    const uint32_t n = uint32_t(a.size());
    std::vector<uint8_t> mask;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto d = ub.Alloc<uint8_t>(n / 8 + 32);
        AscendC::Compares(d, x, s, m, n);
        mask = Ub::Read(d, n / 8 + 32);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const bool bit = (mask[i / 8] >> (i % 8)) & 1u;
        if (bit != RefCmp(D(a[i]), D(s), m))
            FAIL("Compares<", actgrad_sim::TypeName<T>(), "> ", actgrad_sim::CmpModeName(m), " element ", i, ": ", th::Show(a[i]),
                 " vs ", th::Show(s), " gave ", bit);
    }
    CheckTail(mask, n / 8, "Compares");
}
}  // namespace

TEST(Compare_every_mode_float_half_bit_order_nan) {
    auto fa = Cycle(FloatValues(200, 31), 256);
    auto fb = Cycle(FloatValues(200, 32), 256);
    for (int i = 0; i < 40; ++i) fb[i] = fa[i];  // equal pairs
    fa[50] = NAN, fb[51] = NAN, fa[52] = 0.0f, fb[52] = -0.0f, fa[53] = INFINITY, fb[53] = INFINITY;
    auto ha = Cycle(HalfValues(300, 33), 512);
    auto hb = Cycle(HalfValues(300, 34), 512);
    for (int i = 0; i < 64; ++i) hb[i] = ha[i];
    ha[100] = half::FromBits(0x7e00), hb[101] = half::FromBits(0x7e00), ha[102] = half::FromBits(0x8000), hb[102] = half(0.0f);
    for (CMPMODE m : kCmp) {
        CheckCompare<float, uint8_t>(fa, fb, m);
        CheckCompare<half, int8_t>(ha, hb, m);
        CheckCompare<half, uint8_t>(ha, hb, m);
    }
}

TEST(Compare_documented_bit_order_example) {
    // results 0,0,0,0,1,1,1,1 -> byte 0b11110000 = 240 (element i -> byte i/8, bit i%8)
    std::vector<float> a(64, 0.0f), b(64, 1.0f);
    for (int i = 4; i < 8; ++i) a[i] = 2.0f;
    std::vector<uint8_t> mask;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto d = ub.Alloc<uint8_t>(32);
        AscendC::Compare(d, x, y, CMPMODE::GT, 64);
        mask = Ub::Read(d, 8);
    });
    CHECK_EQ(mask[0], 240);
    for (int i = 1; i < 8; ++i) CHECK_EQ(mask[i], 0);
}

TEST(Compare_int32_EQ_only) {
    auto a = IntValues<int32_t>(128, 41), b = IntValues<int32_t>(128, 42);
    for (int i = 0; i < 128; i += 3) b[i] = a[i];
    CheckCompare<int32_t, uint8_t>(a, b, CMPMODE::EQ);
    CheckCompares<int32_t>(a, a[5], CMPMODE::EQ);
    for (CMPMODE m : {CMPMODE::LT, CMPMODE::NE}) {
        EXPECT_SIM_ERROR(ErrorKind::Unsupported, "int32_t compares only with EQ", RunUb([&](Ub& ub) {
            auto x = ub.Load(a);
            auto d = ub.Alloc<uint8_t>(32);
            AscendC::Compare(d, x, x, m, 128);
        }));
    }
}

TEST(Compares_every_mode_float_half_nan_scalar) {
    auto fa = Cycle(FloatValues(100, 51), 128);
    fa[7] = 1.0f;
    auto ha = Cycle(HalfValues(200, 52), 256);
    ha[9] = half(1.0f);
    for (CMPMODE m : kCmp) {
        CheckCompares<float>(fa, 1.0f, m);
        CheckCompares<float>(fa, NAN, m);  // NaN: every mode false except NE
        CheckCompares<half>(ha, half(1.0f), m);
        CheckCompares<half>(ha, half::FromBits(0x7e00), m);
    }
}

namespace {
template <typename T, typename U>
void CheckSelect(SELMODE mode, uint32_t n) {
    std::mt19937 rng(61);
    std::vector<T> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = T(float(i) + 0.5f), b[i] = T(-float(i) - 0.25f);
    const uint32_t maskBytes = (n + 7) / 8 + 64;
    std::vector<uint8_t> maskBits(maskBytes);
    for (auto& m : maskBits) m = uint8_t(rng());
    const T scalar = T(42.0f);
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto m8 = ub.Load(maskBits);
        auto mask = m8.template ReinterpretCast<U>();
        auto d = ub.Alloc<T>(n + 16);
        if (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE) AscendC::Select(d, mask, x, scalar, mode, n);
        else AscendC::Select(d, mask, x, y, mode, n);
        out = Ub::Read(d, n + 16);
    });
    const uint32_t lanes = 256 / sizeof(T);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t k = mode == SELMODE::VSEL_CMPMASK_SPR ? i % lanes : i;  // mode 0 reuses the first repeat's bits
        const bool take0 = (maskBits[k / 8] >> (k % 8)) & 1u;
        const T want = take0 ? a[i] : (mode == SELMODE::VSEL_TENSOR_SCALAR_MODE ? scalar : b[i]);
        if (!Same(out[i], want))
            FAIL("Select<", actgrad_sim::TypeName<T>(), ", ", actgrad_sim::TypeName<U>(), "> mode ", int(mode), " element ", i, ": ",
                 th::Show(out[i]), ", expected ", th::Show(want));
    }
    CheckTail(out, n, "Select");
}
}  // namespace

TEST(Select_modes_0_1_2_float_half_all_mask_types) {
    for (SELMODE m : {SELMODE::VSEL_CMPMASK_SPR, SELMODE::VSEL_TENSOR_SCALAR_MODE, SELMODE::VSEL_TENSOR_TENSOR_MODE}) {
        CheckSelect<float, uint8_t>(m, 200);
        CheckSelect<float, uint16_t>(m, 333);
        CheckSelect<float, uint32_t>(m, 64);
        CheckSelect<half, uint64_t>(m, 700);
        CheckSelect<half, uint8_t>(m, 129);
    }
}

TEST(Select_mode_0_ignores_mask_bits_beyond_first_repeat) {
    // first 64 bits (float) all 1, the rest 0: mode 0 takes src0 everywhere, mode 2 only for the first 64
    std::vector<uint8_t> mask(64, 0);
    for (int i = 0; i < 8; ++i) mask[i] = 0xff;
    std::vector<float> a(256, 1.0f), b(256, 2.0f), out0, out2;
    RunUb([&](Ub& ub) {
        auto m = ub.Load(mask);
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto d = ub.Alloc<float>(256);
        AscendC::Select(d, m, x, y, SELMODE::VSEL_CMPMASK_SPR, 256);
        out0 = Ub::Read(d, 256);
        AscendC::Select(d, m, x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);
        out2 = Ub::Read(d, 256);
    });
    for (int i = 0; i < 256; ++i) {
        CHECK_EQ(out0[i], 1.0f);
        CHECK_EQ(out2[i], i < 64 ? 1.0f : 2.0f);
    }
}

TEST(Select_mode_and_overload_mismatch_rejected) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "needs a scalar src1", RunUb([](Ub& ub) {
        auto m = ub.Alloc<uint8_t>(32);
        auto x = ub.Alloc<float>(64);
        AscendC::Select(x, m, x, x, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
    }));
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "needs VSEL_TENSOR_SCALAR_MODE", RunUb([](Ub& ub) {
        auto m = ub.Alloc<uint8_t>(32);
        auto x = ub.Alloc<float>(64);
        AscendC::Select(x, m, x, 1.0f, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);
    }));
}

// ====================================================================================== high-level math

namespace {
template <typename T, typename Api>
void HighLevel(const char* what, Api api, double (*ref)(double), uint32_t tmpBytes, double absTol, double relTol) {
    std::vector<float> fin = Range(-12.0f, 12.0f, 1500);
    for (float f : {0.0f, -0.0f, 1e-20f, 30.0f, -30.0f, 100.0f, -100.0f}) fin.push_back(f);
    std::vector<T> in;
    for (float f : fin) in.push_back(T(f));
    const uint32_t n = uint32_t(in.size());
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(in);
        auto d = ub.Alloc<T>(n + 16);
        auto tmp = ub.Alloc<uint8_t>(tmpBytes);
        api(d, x, tmp, n);
        out = Ub::Read(d, n + 16);
    });
    for (uint32_t i = 0; i < n; ++i) {
        const double e = ref(D(in[i]));
        const double g = D(out[i]);
        if (!(std::fabs(g - e) <= absTol + relTol * std::fabs(e)))
            FAIL(what, "(", th::Show(in[i]), ") = ", g, ", expected ", e);
    }
    CheckTail(out, n, what);
}
}  // namespace

TEST(Tanh_Sigmoid_Erf_float_half_tolerances) {
    auto tanhApi = [](const auto& d, const auto& x, const auto& t, uint32_t n) { AscendC::Tanh(d, x, t, n); };
    auto sigApi = [](const auto& d, const auto& x, const auto& t, uint32_t n) { AscendC::Sigmoid(d, x, t, n); };
    auto erfApi = [](const auto& d, const auto& x, const auto& t, uint32_t n) { AscendC::Erf(d, x, t, n); };
    // float: the minimum tmp sizes of ascendc-api.md §5.8 (Tanh 256, Sigmoid 256, Erf 768)
    HighLevel<float>("Tanh<float>", tanhApi, Tanh, 256, 1e-7, 2e-7);
    HighLevel<float>("Sigmoid<float>", sigApi, Sigm, 256, 1e-7, 4e-7);
    HighLevel<float>("Erf<float>", erfApi, Erf, 768, 1e-7, 2e-7);
    // half: one half ulp (2^-11 relative) plus the input's own rounding is already in the reference
    HighLevel<half>("Tanh<half>", tanhApi, Tanh, 1024, 1e-7, 1.0 / 1024);
    HighLevel<half>("Sigmoid<half>", sigApi, Sigm, 256, 1e-7, 1.0 / 1024);
    HighLevel<half>("Erf<half>", erfApi, Erf, 2048, 1e-7, 1.0 / 1024);
}

TEST(Tanh_Sigmoid_Erf_tmp_size_and_overlap_checks) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "sharedTmpBuffer", RunUb([](Ub& ub) {
        auto x = ub.Alloc<half>(128);
        auto d = ub.Alloc<half>(128);
        auto tmp = ub.Alloc<uint8_t>(1000);  // half Tanh needs 1024
        AscendC::Tanh(d, x, tmp, 128);
    }));
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "sharedTmpBuffer", RunUb([](Ub& ub) {
        auto x = ub.Alloc<float>(128);
        auto d = ub.Alloc<float>(128);
        auto tmp = ub.Alloc<uint8_t>(512);  // float Erf needs 768
        AscendC::Erf(d, x, tmp, 128);
    }));
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "forbids any overlap", RunUb([](Ub& ub) {
        auto x = ub.Alloc<float>(128);
        auto tmp = ub.Alloc<uint8_t>(256);
        AscendC::Sigmoid(x, x, tmp, 128);  // high-level APIs forbid even in-place use
    }));
}

// ====================================================================================== data movement

namespace {
// One block that DataCopyPad's `gm` (blockCount rows) into a TBuf pre-filled with 0x11 and returns the UB bytes.
template <typename T>
std::vector<uint8_t> PadIn(const Gm<T>& gm, AscendC::DataCopyExtParams p, AscendC::DataCopyPadExtParams<T> pad, uint32_t ubBytes) {
    std::vector<uint8_t> out;
    RunBlock("pad_in", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, ubBytes);
        GlobalTensor<T> g;
        g.SetGlobalBuffer(gm.data(), gm.size());
        auto t = q.template AllocTensor<T>();
        std::memset(static_cast<void*>(t.GetPhyAddr()), 0x11, ubBytes);
        AscendC::DataCopyPad(t, g, p, pad);
        q.EnQue(t);
        auto u = q.template DeQue<T>();
        out.assign(u.BytePtr(), u.BytePtr() + ubBytes);
        q.FreeTensor(u);
    });
    return out;
}
uint32_t Word(const std::vector<uint8_t>& v, size_t off) {
    uint32_t w;
    std::memcpy(&w, v.data() + off, 4);
    return w;
}
}  // namespace

TEST(DataCopyPad_gm_to_ub_pad_values_and_canary) {
    Gm<float> gm(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    // one row: 5 floats with 2 left / 3 right pad elements -> 40 bytes used, row rounded to 64
    auto withPad = PadIn<float>(gm, {1, 20, 0, 0, 0}, {true, 2, 3, 7.5f}, 128);
    const float want[] = {7.5f, 7.5f, 1, 2, 3, 4, 5, 7.5f, 7.5f, 7.5f};
    for (int i = 0; i < 10; ++i) CHECK_EQ(th::Bits(F(Word(withPad, 4 * i))), th::Bits(want[i]));
    for (int off = 40; off < 64; off += 4) CHECK_EQ(Word(withPad, off), 0x7FC0DEADu);  // dummy tail: canary
    for (int off = 64; off < 128; ++off) CHECK_EQ(int(withPad[off]), 0x11);            // beyond the row: untouched
    // isPad = false: the pads themselves are unspecified -> canary
    auto noPad = PadIn<float>(gm, {1, 20, 0, 0, 0}, {false, 2, 3, 7.5f}, 128);
    CHECK_EQ(Word(noPad, 0), 0x7FC0DEADu);
    CHECK_EQ(Word(noPad, 4), 0x7FC0DEADu);
    CHECK_EQ(th::Bits(F(Word(noPad, 8))), th::Bits(1.0f));
    for (int off = 28; off < 64; off += 4) CHECK_EQ(Word(noPad, off), 0x7FC0DEADu);
    // three rows, GM gap of 8 bytes (srcStride), UB gap of one 32-byte block (dstStride): rows at 0, 64, 128
    auto rows = PadIn<float>(gm, {3, 12, 8, 1, 0}, {false, 0, 0, 0.0f}, 256);
    for (int r = 0; r < 3; ++r) {
        for (int i = 0; i < 3; ++i) CHECK_EQ(F(Word(rows, 64 * r + 4 * i)), float(1 + 5 * r + i));
        for (int off = 12; off < 32; off += 4) CHECK_EQ(Word(rows, 64 * r + off), 0x7FC0DEADu);
        if (r < 2) for (int off = 32; off < 64; ++off) CHECK_EQ(int(rows[64 * r + off]), 0x11);  // dstStride gap untouched
    }
    // 16-bit elements: the canary reads as 0xDEAD, 0x7FC0 alternately
    Gm<half> gh(std::vector<half>{half(1.0f), half(2.0f), half(3.0f)});
    auto h = PadIn<half>(gh, {1, 6, 0, 0, 0}, {true, 1, 1, half(-1.0f)}, 64);
    uint16_t hv[16];
    std::memcpy(hv, h.data(), 32);
    CHECK_EQ(hv[0], half(-1.0f).val);
    CHECK_EQ(hv[1], half(1.0f).val);
    CHECK_EQ(hv[3], half(3.0f).val);
    CHECK_EQ(hv[4], half(-1.0f).val);
    CHECK_EQ(hv[5], 0x7FC0);  // byte offset 10: upper half of a canary word
    CHECK_EQ(hv[6], 0xDEAD);
    CHECK_EQ(hv[7], 0x7FC0);
}

TEST(DataCopyPad_ub_to_gm_writes_exactly_blockLen_bytes) {
    Gm<uint8_t> gm(200);
    gm.fill_bytes(0xEE);
    RunBlock("pad_out", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 256);
        GlobalTensor<uint8_t> g;
        g.SetGlobalBuffer(gm.data(), 200);
        auto t = q.AllocTensor<uint8_t>();
        AscendC::Duplicate(t.ReinterpretCast<int16_t>(), int16_t(0x0101), 128);
        for (uint32_t i = 0; i < 256; ++i) t.SetValue(i, uint8_t(i));
        q.EnQue(t);
        auto u = q.DeQue<uint8_t>();
        AscendC::DataCopyPad(g, u, AscendC::DataCopyExtParams{1, 13, 0, 0, 0});  // 13 bytes at GM 0
        // two rows of 5 bytes from UB rows 32 apart plus srcStride 1 block (UB 64, 128), GM gap 3 bytes, at GM 100
        AscendC::DataCopyPad(g[100], u[64], AscendC::DataCopyExtParams{2, 5, 1, 3, 0});
        q.FreeTensor(u);
    });
    for (int i = 0; i < 13; ++i) CHECK_EQ(int(gm[i]), i);
    for (int i = 13; i < 100; ++i) CHECK_EQ(int(gm[i]), 0xEE);
    for (int i = 0; i < 5; ++i) CHECK_EQ(int(gm[100 + i]), 64 + i);
    for (int i = 105; i < 108; ++i) CHECK_EQ(int(gm[i]), 0xEE);
    for (int i = 0; i < 5; ++i) CHECK_EQ(int(gm[108 + i]), 128 + i);
    for (int i = 113; i < 200; ++i) CHECK_EQ(int(gm[i]), 0xEE);
    const auto& s = actgrad_sim::LastLaunchStats().blocks[0];
    CHECK_EQ(s.gmBytesWritten, 23u);
    CHECK_EQ(s.dmaTransfers, 3u);  // one per row
    CHECK_EQ(s.dmaBytesMin, 5u);
    CHECK_EQ(s.dmaBytesMax, 13u);
}

TEST(DataCopy_count_and_strided_DataCopyParams) {
    std::vector<float> src(256);
    for (int i = 0; i < 256; ++i) src[i] = float(i);
    Gm<float> in(src), out(256);
    out.fill_bytes(0);
    RunBlock("strided", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> qi;
        AscendC::TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qi, 1, 1024);
        pipe.InitBuffer(qo, 1, 1024);
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 256);
        go.SetGlobalBuffer(out.data(), 256);
        auto t = qi.AllocTensor<float>();
        AscendC::Duplicate(t, -1.0f, 256);  // a vector write then a DMA write into the same VECIN buffer,
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);  // ordered by a V -> MTE2 flag (without it the two race)
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);
        // 3 blocks of 16 floats (64 B), GM gap 8 floats (1 block), UB gap 2 blocks: UB rows at 0, 32, 64 floats
        AscendC::DataCopy(t, gi, AscendC::DataCopyParams{3, 2, 1, 2});
        qi.EnQue(t);
        auto u = qi.DeQue<float>();
        auto o = qo.AllocTensor<float>();
        AscendC::Adds(o, u, 0.0f, 256);
        qo.EnQue(o);
        qi.FreeTensor(u);
        auto w = qo.DeQue<float>();
        // write back the 3 rows to GM with UB gap 2 blocks and GM gap 3 blocks: GM rows at 0, 40, 80 floats
        AscendC::DataCopy(go, w, AscendC::DataCopyParams{3, 2, 2, 3});
        AscendC::DataCopy(go[128], w, 64);  // count form
        qo.FreeTensor(w);
    });
    auto o = out.vec();
    for (int r = 0; r < 3; ++r)
        for (int i = 0; i < 16; ++i) CHECK_EQ(o[40 * r + i], float(24 * r + i));
    for (int i = 16; i < 40; ++i) CHECK_EQ(o[i], 0.0f);
    for (int r = 0; r < 2; ++r)
        for (int i = 0; i < 16; ++i) CHECK_EQ(o[128 + 32 * r + i], float(24 * r + i));
    for (int i = 16; i < 32; ++i) CHECK_EQ(o[128 + i], -1.0f);  // the UB gap kept the Duplicate value
    const auto& s = actgrad_sim::LastLaunchStats().blocks[0];
    CHECK_EQ(s.gmBytesRead, 3u * 64);
    CHECK_EQ(s.gmBytesWritten, 3u * 64 + 256);
    CHECK_EQ(s.dmaTransfers, 7u);
}

TEST(GlobalTensor_get_set_value_views_and_reinterpret) {
    Gm<int32_t> gm(64);
    int64_t size0 = -1, sizeView = -1, sizeCast = -1;
    int32_t got = 0;
    RunBlock("gt", [&] {
        GlobalTensor<int32_t> g;
        g.SetGlobalBuffer(gm.data(), 64);
        for (int i = 0; i < 64; ++i) g.SetValue(i, i * 10);
        auto v = g[16];
        got = v.GetValue(3);
        size0 = int64_t(g.GetSize());
        sizeView = int64_t(v.GetSize());
        sizeCast = int64_t(g.ReinterpretCast<int16_t>().GetSize());
        CHECK(v.GetPhyAddr() == gm.data() + 16);
        CHECK(g.GetPhyAddr(5) == gm.data() + 5);
        GlobalTensor<int32_t> unsized;
        unsized.SetGlobalBuffer(gm.data());
        CHECK_EQ(unsized.GetSize(), 0u);
        CHECK_EQ(unsized.GetValue(63), 630);
    });
    CHECK_EQ(got, 190);
    CHECK_EQ(size0, 64);
    CHECK_EQ(sizeView, 48);
    CHECK_EQ(sizeCast, 128);
    for (int i = 0; i < 64; ++i) CHECK_EQ(gm[i], i * 10);
    const auto& s = actgrad_sim::LastLaunchStats().blocks[0];
    CHECK_EQ(s.gmBytesWritten, 256u);
    CHECK_EQ(s.gmBytesRead, 8u);
    CHECK_EQ(s.dmaTransfers, 0u);
}

TEST(GlobalTensor_empty_view_at_end_stays_bounded) {
    Gm<float> gm(64);
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "global tensor size", RunBlock("gt_end", [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(gm.data(), 8);
        g[8].SetValue(0, 1.0f);  // element 8 of an 8-element tensor
    }));
}

TEST(LocalTensor_accessors) {
    RunBlock("lt", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 100);  // rounded to 128 bytes
        auto t = q.AllocTensor<float>();
        CHECK_EQ(t.GetSize(), 32u);
        CHECK_EQ(t.GetLength(), 128u);
        CHECK_EQ(t.GetPosition(), int32_t(TPosition::VECIN));
        for (uint32_t i = 0; i < 32; ++i) t.SetValue(i, float(i) * 2);
        CHECK_EQ(t.GetValue(7), 14.0f);
        t(8) = 99.0f;
        CHECK_EQ(t.GetValue(8), 99.0f);
        auto v = t[8];
        CHECK_EQ(v.GetSize(), 24u);
        CHECK_EQ(v.GetValue(0), 99.0f);
        CHECK(v.GetPhyAddr() == t.GetPhyAddr() + 8);
        CHECK(t.GetPhyAddr(3) == t.GetPhyAddr() + 3);
        auto h = t.ReinterpretCast<half>();
        CHECK_EQ(h.GetSize(), 64u);
        CHECK_EQ(h.GetLength(), 128u);
        auto hv = v.ReinterpretCast<uint8_t>();
        CHECK_EQ(hv.GetSize(), 96u);
        t.SetSize(16);
        CHECK_EQ(t.GetSize(), 16u);
        EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "exceeds the buffer", t.SetSize(33));
        EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "not below the tensor size", t.GetValue(16));
        t.SetValue(3, 2.5);  // SetValue converts its argument to the element type
        CHECK_EQ(t.GetValue(3), 2.5f);
        q.FreeTensor(t);
    });
}

TEST(TBuf_Get_GetLen_GetWithOffset) {
    RunBlock("tbuf", [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 100);  // -> 128 bytes
        pipe.InitBuffer(b, 256);
        auto all = a.Get<float>();
        CHECK_EQ(all.GetSize(), 32u);
        auto part = a.Get<float>(16);
        CHECK_EQ(part.GetSize(), 16u);
        CHECK(part.GetPhyAddr() == all.GetPhyAddr());
        auto bb = b.Get<half>();
        CHECK_EQ(bb.GetSize(), 128u);
        CHECK_EQ(uint32_t(reinterpret_cast<uint8_t*>(bb.GetPhyAddr()) - reinterpret_cast<uint8_t*>(all.GetPhyAddr())), 128u);
        auto off = b.GetWithOffset<float>(8, 64);
        CHECK_EQ(off.GetSize(), 8u);
        CHECK_EQ(uint32_t(reinterpret_cast<uint8_t*>(off.GetPhyAddr()) - reinterpret_cast<uint8_t*>(bb.GetPhyAddr())), 64u);
        CHECK_EQ(off.GetPosition(), int32_t(TPosition::VECCALC));
        EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "multiple of 32 bytes", a.Get<float>(7));
        EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "must be > 0", a.Get<float>(0));
        EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "at most the buffer", a.Get<float>(40));
        EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "32-byte aligned", b.GetWithOffset<float>(8, 16));
        EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "inside the buffer", b.GetWithOffset<float>(64, 32));
    });
}

TEST(TPipe_carving_and_Reset) {
    uint32_t highWater = 0;
    RunBlock("pipe_reset", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> q;
        AscendC::TBuf<TPosition::VECCALC> tb;
        pipe.InitBuffer(q, 2, 1000);  // 2 x 1024
        pipe.InitBuffer(tb, 33);      // 64
        auto t0 = q.AllocTensor<float>();
        auto t1 = q.AllocTensor<float>();
        auto base = t0.BytePtr();
        CHECK_EQ(uint32_t(t1.BytePtr() - base), 1024u);
        CHECK_EQ(uint32_t(tb.Get<uint8_t>().BytePtr() - base), 2048u);
        q.FreeTensor(t1);
        pipe.Reset();
        EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "TPipe::Reset", AscendC::Adds(t0, t0, 1.0f, 8));
        EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "TPipe::Reset", tb.Get<float>());
        EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "TPipe::Reset", q.AllocTensor<float>());
        // carving restarts at offset 0
        AscendC::TBuf<TPosition::VECCALC> again;
        pipe.InitBuffer(again, 64);
        CHECK(again.Get<uint8_t>().BytePtr() == base);
        pipe.InitBuffer(q, 1, 512);
        auto t = q.AllocTensor<float>();
        CHECK_EQ(uint32_t(t.BytePtr() - base), 64u);
        AscendC::Duplicate(t, 1.0f, 128);
        q.FreeTensor(t);
        EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "released", t0.GetValue(0));
    });
    highWater = actgrad_sim::LastLaunchStats().blocks[0].ubHighWater;
    CHECK_EQ(highWater, 2048u + 64u);
}

TEST(TQue_round_robin_fifo_and_queries) {
    RunBlock("tque", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECOUT, 2> q;
        pipe.InitBuffer(q, 3, 64);
        CHECK(q.VacantInQue());
        CHECK(!q.HasTensorInQue());
        CHECK(q.HasIdleBuffer());
        auto a = q.AllocTensor<float>();
        auto b = q.AllocTensor<float>();
        auto c = q.AllocTensor<float>();
        CHECK(!q.HasIdleBuffer());
        CHECK_EQ(uint32_t(b.BytePtr() - a.BytePtr()), 64u);
        CHECK_EQ(uint32_t(c.BytePtr() - a.BytePtr()), 128u);
        a.SetValue(0, 1.0f);
        b.SetValue(0, 2.0f);
        q.EnQue(b);
        q.EnQue(a);
        CHECK_EQ(q.GetTensorCountInQue(), 2);
        CHECK(!q.VacantInQue());
        auto first = q.DeQue<float>();
        CHECK_EQ(first.GetValue(0), 2.0f);  // FIFO
        auto second = q.DeQue<float>();
        CHECK_EQ(second.GetValue(0), 1.0f);
        q.FreeTensor(second);  // frees a's buffer
        auto d = q.AllocTensor<float>();  // round robin continues after c, wraps to a
        CHECK(d.BytePtr() == a.BytePtr());
        q.FreeTensor(first);
        q.FreeTensor(c);
        q.FreeTensor(d);
        q.FreeAllEvent();
        // double buffering relies on the round robin: a freed buffer is not handed out again at once
        AscendC::TQue<TPosition::VECIN, 1> db;
        pipe.InitBuffer(db, 2, 64);
        auto x0 = db.AllocTensor<float>();
        auto p0 = x0.BytePtr();
        db.FreeTensor(x0);
        auto x1 = db.AllocTensor<float>();
        CHECK_EQ(uint32_t(x1.BytePtr() - p0), 64u);
        db.FreeTensor(x1);
        auto x2 = db.AllocTensor<float>();
        CHECK(x2.BytePtr() == p0);
        db.FreeTensor(x2);
    });
}

// ====================================================================================== SoC selection

TEST(Soc_default_SetSoc_env_and_unknown) {
    auto socOf = [] { return RunBlock("soc", [] {}).soc; };
    CHECK_EQ(socOf(), std::string("Ascend910B2"));
    setenv("ACTGRAD_SOC", "Ascend950", 1);
    CHECK_EQ(socOf(), std::string("Ascend950"));
    actgrad_sim::SetSoc("Ascend310P");  // SetSoc wins over the environment
    CHECK_EQ(socOf(), std::string("Ascend310P"));
    actgrad_sim::SelectedSocName().clear();
    CHECK_EQ(socOf(), std::string("Ascend950"));
    unsetenv("ACTGRAD_SOC");
    bool threw = false;
    try {
        actgrad_sim::SetSoc("Ascend910Z");
    } catch (const std::invalid_argument& e) {
        threw = true;
        CHECK_CONTAINS(e.what(), "Ascend910B2");  // lists the known SoCs
    }
    CHECK(threw);
    setenv("ACTGRAD_SOC", "NoSuchSoc", 1);
    threw = false;
    try {
        socOf();
    } catch (const std::invalid_argument&) {
        threw = true;
    }
    CHECK(threw);
    unsetenv("ACTGRAD_SOC");
    // the profile reaches the kernel: block count limits and UB size
    for (const char* soc : {"Ascend910B1", "Ascend910B3", "Ascend910B4", "Ascend910_93"}) {
        actgrad_sim::SetSoc(soc);
        CHECK_EQ(socOf(), std::string(soc));
    }
}

TEST(Soc_LaunchOptions_profile_overrides_selection) {
    actgrad_sim::SetSoc("Ascend310P");
    actgrad_sim::LaunchOptions o{1, {}, &actgrad_sim::FindSoc("Ascend950")};
    bool sat = true;
    auto s = actgrad_sim::Launch("opt_soc", [&] { sat = AscendC::GetSaturationFlag<SaturationMode::FLOAT>(); }, 1, o);
    CHECK_EQ(s.soc, std::string("Ascend950"));
    CHECK(!sat);
    CHECK_EQ(RunBlock("soc", [] {}).soc, std::string("Ascend310P"));
}

TEST(Soc_ub_capacity_per_soc) {
    auto initBytes = [](uint32_t bytes) {
        RunBlock("ub_cap", [&] {
            AscendC::TPipe pipe;
            AscendC::TBuf<TPosition::VECCALC> a, b;
            pipe.InitBuffer(a, bytes - 32);
            pipe.InitBuffer(b, 32);
        });
    };
    initBytes(196608);
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "196608 bytes of UB on Ascend910B2", initBytes(196640));
    actgrad_sim::SetSoc("Ascend950");
    initBytes(253952);
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "253952", initBytes(253984));
    actgrad_sim::SetSoc("Ascend310P");
    initBytes(253952);
}

TEST(Soc_specific_rejections_and_acceptances) {
    Gm<float> gm(64);
    auto padIn = [&] {
        RunBlock("pad", [&] {
            AscendC::TPipe pipe;
            AscendC::TQue<TPosition::VECIN, 1> q;
            pipe.InitBuffer(q, 1, 256);
            GlobalTensor<float> g;
            g.SetGlobalBuffer(gm.data(), 64);
            auto t = q.AllocTensor<float>();
            AscendC::DataCopyPad(t, g, AscendC::DataCopyExtParams{1, 12, 0, 0, 0}, AscendC::DataCopyPadExtParams<float>{});
            q.FreeTensor(t);
        });
    };
    padIn();  // fine on 910B2
    actgrad_sim::SetSoc("Ascend950");
    padIn();
    actgrad_sim::SetSoc("Ascend310P");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "DataCopyPad is not available on Ascend310P", padIn());
    CHECK_CONTAINS(th::LastError(), "DataCopyPad(GM->UB)");

    auto bf16Add = [] {
        std::vector<bfloat16_t> out;
        RunUb([&](Ub& ub) {
            auto x = ub.Load(std::vector<bfloat16_t>{bfloat16_t(1.5f), bfloat16_t(2.0f)});
            auto d = ub.Alloc<bfloat16_t>(2);
            AscendC::Add(d, x, x, 2);
            out = Ub::Read(d, 2);
        });
        return out;
    };
    actgrad_sim::SetSoc("Ascend910B2");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "bfloat16_t arithmetic is not available on Ascend910B2", bf16Add());
    actgrad_sim::SetSoc("Ascend950");
    auto r = bf16Add();
    CHECK_EQ(float(r[0]), 3.0f);
    CHECK_EQ(float(r[1]), 4.0f);
    RunBinary<bfloat16_t>("Add<bf16> on 950", Bf16Values(200), Reversed(Bf16Values(200, 8)), API2(Add),
                          [](bfloat16_t a, bfloat16_t b) { return Store<bfloat16_t>(D(a) + D(b), false); });
    RunBinary<bfloat16_t>("Mul<bf16> on 950", Bf16Values(200), Reversed(Bf16Values(200, 8)), API2(Mul),
                          [](bfloat16_t a, bfloat16_t b) { return Store<bfloat16_t>(D(a) * D(b), false); });

    actgrad_sim::SetSoc("Ascend310P");
    auto bf16Cast = [] {
        RunUb([&](Ub& ub) {
            auto x = ub.Alloc<float>(64, 0);
            auto d = ub.Alloc<bfloat16_t>(64);
            AscendC::Cast(d, x, RoundMode::CAST_RINT, 64);
        });
    };
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "bfloat16_t does not exist on Ascend310P", bf16Cast());
    CHECK_CONTAINS(th::LastError(), "Cast");
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "bfloat16_t does not exist on Ascend310P", RunUb([](Ub& ub) {
        auto d = ub.Alloc<bfloat16_t>(64);
        AscendC::Duplicate(d, bfloat16_t(1.0f), 64);
    }));
    actgrad_sim::SetSoc("Ascend910B2");
    bf16Cast();  // storage conversions exist on 910B
}

// ====================================================================================== launch statistics, threads

namespace {
struct AddRun {
    std::vector<float> z;
    actgrad_sim::LaunchStats stats;
};

AddRun RunAdd(uint32_t n, uint32_t tile, uint32_t blocks, uint32_t threads) {
    Gm<float> x(n), y(n), z(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = float(i) * 0.5f, y[i] = float(i % 97) - 40.0f;
    z.fill_bytes(0xCC);
    Gm<AddTiling> tiling(1);
    tiling[0] = AddTiling{n, tile};
    AddRun r;
    r.stats = actgrad_sim::Launch("add_custom", add_custom, blocks, actgrad_sim::LaunchOptions{threads, {}}, x.addr(), y.addr(),
                                  z.addr(), GM_ADDR(nullptr), tiling.addr());
    r.z = z.vec();
    return r;
}
}  // namespace

TEST(LaunchStats_exact_numbers_small_add_kernel) {
    // 100 floats, tile 32, one block: tiles 32, 32, 32, 4 (the last via DataCopyPad)
    auto one = RunAdd(100, 32, 1, 1);
    CHECK_EQ(one.stats.kernel, std::string("add_custom"));
    CHECK_EQ(one.stats.soc, std::string("Ascend910B2"));
    CHECK_EQ(one.stats.blockDim, 1u);
    CHECK_EQ(one.stats.threads, 1u);
    CHECK_EQ(one.stats.blocks.size(), 1u);
    const auto& b = one.stats.blocks[0];
    CHECK_EQ(b.block, 0u);
    CHECK_EQ(b.gmBytesRead, 800u);       // 2 inputs x (3 x 128 + 16)
    CHECK_EQ(b.gmBytesWritten, 400u);
    CHECK_EQ(b.dmaTransfers, 12u);       // 4 tiles x (2 in + 1 out)
    CHECK_EQ(b.dmaBytesMin, 16u);
    CHECK_EQ(b.dmaBytesMax, 128u);
    CHECK_EQ(b.vectorInstructions, 4u);  // one Add per tile
    CHECK_EQ(b.ubHighWater, 768u);       // 3 queues x 2 buffers x 128 B
    for (uint32_t i = 0; i < 100; ++i) CHECK_EQ(one.z[i], float(i) * 0.5f + (float(i % 97) - 40.0f));
    // two blocks: 13 units of 8 floats -> 7 + 6 units -> 56 + 44 elements
    auto two = RunAdd(100, 32, 2, 1);
    CHECK_EQ(two.stats.blocks.size(), 2u);
    const auto& b0 = two.stats.blocks[0];
    const auto& b1 = two.stats.blocks[1];
    CHECK_EQ(b0.gmBytesRead, 448u);  // tiles 32 + 24
    CHECK_EQ(b0.gmBytesWritten, 224u);
    CHECK_EQ(b0.dmaTransfers, 6u);
    CHECK_EQ(b0.dmaBytesMin, 96u);
    CHECK_EQ(b0.dmaBytesMax, 128u);
    CHECK_EQ(b0.vectorInstructions, 2u);
    CHECK_EQ(b1.block, 1u);
    CHECK_EQ(b1.gmBytesRead, 352u);  // tiles 32 + 12
    CHECK_EQ(b1.gmBytesWritten, 176u);
    CHECK_EQ(b1.dmaTransfers, 6u);
    CHECK_EQ(b1.dmaBytesMin, 48u);
    CHECK_EQ(b1.dmaBytesMax, 128u);
    CHECK_EQ(b1.ubHighWater, 768u);
    CHECK_EQ(actgrad_sim::LastLaunchStats().blocks.size(), 2u);
}

TEST(LaunchStats_count_vector_instructions_and_scalar_gm) {
    Gm<float> gm(16);
    auto s = RunBlock("counts", [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 4096);
        auto t = b.Get<float>();
        auto m = b.GetWithOffset<uint8_t>(256, 2048);
        AscendC::Duplicate(t, 1.0f, 64);
        AscendC::Adds(t, t, 1.0f, 64);
        AscendC::Compares(m, t, 2.0f, CMPMODE::EQ, 64);
        AscendC::Select(t, m, t, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);
        AscendC::Cast(t.ReinterpretCast<half>()[256], t, RoundMode::CAST_RINT, 64);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(gm.data(), 16);
        Sync<AscendC::HardEvent::V_S>();
        g.SetValue(0, t.GetValue(0));
        g.SetValue(1, g.GetValue(0));
    });
    const auto& b = s.blocks[0];
    CHECK_EQ(b.vectorInstructions, 5u);
    CHECK_EQ(b.gmBytesRead, 4u);
    CHECK_EQ(b.gmBytesWritten, 8u);
    CHECK_EQ(b.dmaTransfers, 0u);
    CHECK_EQ(b.ubHighWater, 4096u);
    CHECK_EQ(gm[1], 2.0f);
}

TEST(Results_identical_for_threads_1_2_7_and_default) {
    const uint32_t n = 100003;
    auto ref = RunAdd(n, 1024, 48, 1);
    for (uint32_t i = 0; i < n; ++i) CHECK_EQ(ref.z[i], float(i) * 0.5f + (float(i % 97) - 40.0f));
    for (uint32_t threads : {2u, 7u, 0u}) {
        auto r = RunAdd(n, 1024, 48, threads);
        CHECK(std::memcmp(r.z.data(), ref.z.data(), n * sizeof(float)) == 0);
        CHECK_EQ(r.stats.blocks.size(), 48u);
        CHECK_EQ(r.stats.threads, threads == 0 ? std::min(48u, actgrad_sim::DefaultThreads()) : threads);
        for (uint32_t b = 0; b < 48; ++b) {
            const auto& x = r.stats.blocks[b];
            const auto& y = ref.stats.blocks[b];
            CHECK_EQ(x.block, b);
            CHECK_EQ(x.gmBytesRead, y.gmBytesRead);
            CHECK_EQ(x.gmBytesWritten, y.gmBytesWritten);
            CHECK_EQ(x.dmaTransfers, y.dmaTransfers);
            CHECK_EQ(x.dmaBytesMin, y.dmaBytesMin);
            CHECK_EQ(x.dmaBytesMax, y.dmaBytesMax);
            CHECK_EQ(x.vectorInstructions, y.vectorInstructions);
            CHECK_EQ(x.ubHighWater, y.ubHighWater);
        }
    }
    setenv("ACTGRAD_SIM_THREADS", "3", 1);
    auto e = RunAdd(n, 1024, 48, 0);
    CHECK_EQ(e.stats.threads, 3u);
    CHECK(std::memcmp(e.z.data(), ref.z.data(), n * sizeof(float)) == 0);
}

TEST(Launch_gm_region_nested_in_an_allocation) {
    Gm<float> big(256);
    float got = -1;
    big[200] = 5.0f;
    actgrad_sim::LaunchOptions o{1, {{uintptr_t(big.data() + 16), uintptr_t(big.data() + 32)}}};
    actgrad_sim::Launch("nested_regions", [&] {
        GlobalTensor<float> g;
        g.SetGlobalBuffer(big.data(), 256);
        got = g.GetValue(200);  // inside the GmAlloc'd 1 KiB, after the registered [16, 32)
    }, 1, o);
    CHECK_EQ(got, 5.0f);
}

TEST(Exception_in_block_k_reaches_caller) {
    for (uint32_t threads : {1u, 2u, 7u}) {
        // a SimError from block 5 of 8
        EXPECT_SIM_ERROR(ErrorKind::MissingSync, "block 5/8", actgrad_sim::Launch("fails_in_5", [] {
            if (AscendC::GetBlockIdx() == 5) AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        }, 8, actgrad_sim::LaunchOptions{threads, {}}));
        CHECK_CONTAINS(th::LastError(), "kernel 'fails_in_5'");
        CHECK_CONTAINS(th::LastError(), "WaitFlag");
        // any other exception too
        bool caught = false;
        try {
            actgrad_sim::Launch("throws", [] {
                if (AscendC::GetBlockIdx() == 3) throw std::runtime_error("boom from block 3");
            }, 8, actgrad_sim::LaunchOptions{threads, {}});
        } catch (const std::runtime_error& e) {
            caught = true;
            CHECK_CONTAINS(e.what(), "boom from block 3");
        }
        CHECK(caught);
    }
    // the lowest failing block wins (sequential execution makes it deterministic)
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "block 2/8", actgrad_sim::Launch("two_fail", [] {
        if (AscendC::GetBlockIdx() == 2 || AscendC::GetBlockIdx() == 6) AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(1);
    }, 8, Sequential()));
}

TEST(Block_identity_queries) {
    std::vector<int64_t> idx(40, -1), num(40, -1);
    actgrad_sim::Launch("ids", [&] {
        const int64_t i = AscendC::GetBlockIdx();
        idx[i] = i;
        num[i] = AscendC::GetBlockNum();
        CHECK_EQ(AscendC::GetSubBlockIdx(), 0);
        CHECK_EQ(AscendC::GetSubBlockNum(), 1);
        CHECK_EQ(AscendC::GetDataBlockSizeInBytes(), 32u);
    }, 40, actgrad_sim::LaunchOptions{4, {}});
    for (int i = 0; i < 40; ++i) {
        CHECK_EQ(idx[i], i);
        CHECK_EQ(num[i], 40);
    }
}

TEST(Sync_flags_and_barrier_make_tbuf_copies_visible) {
    // TBuf has no queue sync: SetFlag/WaitFlag (or PipeBarrier<PIPE_ALL>) order DataCopy and the vector unit
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[i] = float(i);
    Gm<float> in(v), out(64);
    RunBlock("flags", [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> b, c;
        pipe.InitBuffer(b, 256);
        pipe.InitBuffer(c, 256);
        auto t = b.Get<float>();
        auto u = c.Get<float>();
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 64);
        go.SetGlobalBuffer(out.data(), 64);
        AscendC::DataCopy(t, gi, 64);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Muls(u, t, 2.0f, 64);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(3);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(3);
        AscendC::DataCopy(go, u, 64);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(t, gi, 64);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Adds(u, t, 1.0f, 64);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(u, u, 1.0f, 64);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(go[32], u[32], 32);
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(2);  // refill u only after the copy-out read it
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(2);
        AscendC::DataCopy(u, gi, 64);  // MTE2 -> MTE3 through a flag
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(1);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(1);
        AscendC::DataCopy(go[56], u[56], 8);
    });
    for (int i = 0; i < 32; ++i) CHECK_EQ(out[i], 2.0f * i);
    for (int i = 32; i < 56; ++i) CHECK_EQ(out[i], float(i) + 2.0f);
    for (int i = 56; i < 64; ++i) CHECK_EQ(out[i], float(i));
}

TEST(Sync_tracker_is_transitive_MTE2_V_MTE3) {
    // DataCopy in, WaitFlag<MTE2_V>, vector op in place, WaitFlag<V_MTE3>, DataCopy out: MTE3 waits for V, which
    // waited for MTE2, so the copy-out is ordered after the copy-in (the vendor's manual-sync idiom)
    Gm<float> in(64), out(64);
    RunBlock("transitive", [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto t = b.Get<float>();
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 64);
        go.SetGlobalBuffer(out.data(), 64);
        AscendC::DataCopy(t, gi, 64);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Muls(t, t, 2.0f, 64);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::DataCopy(go, t, 64);
    });
}

TEST(Copy_out_of_VECIN_buffer_ordered_after_the_copy_in) {
    // a VECIN DeQue orders MTE2 -> V only; MTE3 is ordered after the copy-in by an MTE2 -> MTE3 flag, or
    // through the vector pipe: a vector access that waited for MTE2, then a V -> MTE3 flag
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[i] = float(i);
    Gm<float> in(v), out(3 * 64);
    for (int variant = 0; variant < 3; ++variant) {
        RunBlock("vecin_copy_out", [&] {
            AscendC::TPipe pipe;
            AscendC::TQue<TPosition::VECIN, 1> qi;
            AscendC::TQue<TPosition::VECOUT, 1> qo;
            pipe.InitBuffer(qi, 1, 256);
            pipe.InitBuffer(qo, 1, 256);
            GlobalTensor<float> gi, go;
            gi.SetGlobalBuffer(in.data(), 64);
            go.SetGlobalBuffer(out.data() + 64 * variant, 64);
            auto x = qi.AllocTensor<float>();
            AscendC::DataCopy(x, gi, 64);
            qi.EnQue(x);
            x = qi.DeQue<float>();
            auto y = qo.AllocTensor<float>();
            if (variant > 0) AscendC::Muls(y, x, 2.0f, 64);  // the vector unit reads x after the hidden MTE2 -> V wait
            if (variant == 2) {
                AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
                AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
            } else {
                AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0);
                AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);
            }
            AscendC::DataCopy(go, x, 64);
            qo.FreeTensor(y);
            qi.FreeTensor(x);
        });
    }
    for (int i = 0; i < 3 * 64; ++i) CHECK_EQ(out[i], float(i % 64));
    // a VECOUT buffer filled by DataCopy: its DeQue's V -> MTE3 wait covers the vector op that waited for MTE2
    RunBlock("vecout_copy_through", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qo, 1, 256);
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 64);
        go.SetGlobalBuffer(out.data(), 64);
        auto y = qo.AllocTensor<float>();
        AscendC::DataCopy(y, gi, 64);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Adds(y, y, 1.0f, 64);
        qo.EnQue(y);
        y = qo.DeQue<float>();
        AscendC::DataCopy(go, y, 64);
        qo.FreeTensor(y);
    });
    for (int i = 0; i < 64; ++i) CHECK_EQ(out[i], float(i) + 1.0f);
}

TEST(FreeTensor_AllocTensor_orders_the_reverse_of_the_queue_pipe_pair) {
    // VECIN: the refill waits for the vector unit (V -> MTE2); VECOUT: the next vector write waits for the copy-out
    // (MTE3 -> V), and so does anything ordered after that vector write
    std::vector<float> v(128);
    for (int i = 0; i < 128; ++i) v[i] = float(i);
    Gm<float> in(v), out(3 * 64);
    RunBlock("reverse_pair", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> qi;
        AscendC::TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qi, 1, 256);
        pipe.InitBuffer(qo, 1, 256);
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 128);
        go.SetGlobalBuffer(out.data(), 3 * 64);
        for (int tile = 0; tile < 2; ++tile) {
            auto x = qi.AllocTensor<float>();
            AscendC::DataCopy(x, gi[64 * tile], 64);
            qi.EnQue(x);
            x = qi.DeQue<float>();
            AscendC::Muls(x, x, 2.0f, 64);
            auto y = qo.AllocTensor<float>();
            AscendC::Adds(y, x, 1.0f, 64);
            qo.EnQue(y);
            qi.FreeTensor(x);
            y = qo.DeQue<float>();
            AscendC::DataCopy(go[64 * tile], y, 64);
            qo.FreeTensor(y);
        }
    });
    for (int i = 0; i < 128; ++i) CHECK_EQ(out[i], 2.0f * i + 1.0f);
    // a VECOUT buffer copied through, rewritten by the vector unit, then refilled after a V -> MTE2 flag
    RunBlock("reverse_pair_chain", [&] {
        AscendC::TPipe pipe;
        AscendC::TQue<TPosition::VECOUT, 1> qo;
        pipe.InitBuffer(qo, 1, 256);
        GlobalTensor<float> gi, go;
        gi.SetGlobalBuffer(in.data(), 128);
        go.SetGlobalBuffer(out.data(), 3 * 64);
        auto y = qo.AllocTensor<float>();
        AscendC::DataCopy(y, gi, 64);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(0);
        AscendC::DataCopy(go[128], y, 64);
        qo.FreeTensor(y);
        y = qo.AllocTensor<float>();
        AscendC::Duplicate(y, 5.0f, 64);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);
        AscendC::DataCopy(y, gi[64], 64);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);
        AscendC::Adds(y, y, 0.5f, 64);
        qo.EnQue(y);
        y = qo.DeQue<float>();
        AscendC::DataCopy(go[128], y, 64);
        qo.FreeTensor(y);
    });
    for (int i = 0; i < 64; ++i) CHECK_EQ(out[128 + i], float(64 + i) + 0.5f);
}

TEST(Tiling_macros_and_kernel_task_type) {
    struct Tiling {
        uint32_t a;
        float b;
    };
    Gm<Tiling> tg(1);
    tg[0] = Tiling{7, 2.5f};
    uint32_t a = 0;
    float bb = 0;
    ICPU_SET_TILING_KEY(3);
    actgrad_sim::Launch("tiling", [&](GM_ADDR tiling) {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
        GET_TILING_DATA_WITH_STRUCT(Tiling, t, tiling);
        if (TILING_KEY_IS(3)) {
            a = t.a;
            bb = t.b;
        }
    }, 1, Sequential(), tg.addr());
    CHECK_EQ(a, 7u);
    CHECK_EQ(bb, 2.5f);
    ICPU_SET_TILING_KEY(0);
}

TEST(ICPU_RUN_KF_with_GmAlloc_and_AIV_mode) {
    const uint32_t n = 1000;
    auto* x = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* y = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* z = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* t = static_cast<AddTiling*>(AscendC::GmAlloc(sizeof(AddTiling)));
    for (uint32_t i = 0; i < n; ++i) x[i] = float(i), y[i] = 1.0f;
    *t = AddTiling{n, 256};
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, 3, (GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z, (GM_ADDR) nullptr, (GM_ADDR)t);
    for (uint32_t i = 0; i < n; ++i) CHECK_EQ(z[i], float(i) + 1.0f);
    CHECK_EQ(actgrad_sim::LastLaunchStats().kernel, std::string("add_custom"));
    for (void* p : {(void*)x, (void*)y, (void*)z, (void*)t}) AscendC::GmFree(p);
    EXPECT_SIM_ERROR(ErrorKind::Launch, "GmFree", AscendC::GmFree(x));  // freed twice
    // 310P is coupled: no kernel mode needed there
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    actgrad_sim::SetSoc("Ascend310P");
    auto* w = static_cast<float*>(AscendC::GmAlloc(64));
    ICPU_RUN_KF([](GM_ADDR) {}, 1, (GM_ADDR)w);
    AscendC::GmFree(w);
}

TEST_MAIN()
