// Cast (the per-SoC pair/round-mode table and exact rounding in every mode), the half and bfloat16_t formats
// (exhaustive widening/round trips, every tie) and the saturation switch, against independent references.
#include "api_common.h"

// ====================================================================================== Cast

namespace {

const RoundMode kModes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                            RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
const char* ModeName(RoundMode m) { return actgrad_sim::RoundModeName(m); }

// Casts `in` to D with mode m, in chunks that fit the scratch UB; optional saturation switch.
template <typename D, typename S>
std::vector<D> CastAll(const std::vector<S>& in, RoundMode m, bool saturateCast = true, const char* soc = nullptr) {
    if (soc) actgrad_sim::SetSoc(soc);
    std::vector<D> out(in.size());
    const size_t chunk = 8192;
    RunUb([&](Ub& ub) {
        AscendC::SetSaturationFlag<SaturationMode::CAST>(saturateCast);
        for (size_t off = 0; off < in.size(); off += chunk) {
            ub.Reset();
            const uint32_t n = uint32_t(std::min(chunk, in.size() - off));
            auto s = ub.Alloc<S>(n);
            std::memcpy(static_cast<void*>(s.GetPhyAddr()), in.data() + off, n * sizeof(S));
            auto d = ub.Alloc<D>(n + 16);
            AscendC::Cast(d, s, m, n);
            auto r = Ub::Read(d, n + 16);
            CheckTail(r, n, "Cast");
            std::copy(r.begin(), r.begin() + n, out.begin() + off);
        }
    });
    return out;
}

// Float values around every boundary between adjacent 16-bit values lo < hi of format f: lo, hi, the midpoint and
// one float ulp either side of it, both signs; plus overflow, subnormal and special inputs.
std::vector<float> TiePoints(const Format16& f, uint32_t stride) {
    std::vector<float> v;
    const uint16_t maxFinite = uint16_t(((((1u << (15 - f.mant)) - 1) << f.mant)) - 1);
    for (uint32_t b = 0; b < maxFinite; b += stride) {
        const double lo = Decode16(uint16_t(b), f), hi = Decode16(uint16_t(b + 1), f);
        const float mid = float((lo + hi) / 2);  // exact: the formats are narrower than float
        for (float x : {float(lo), mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)}) {
            v.push_back(x);
            v.push_back(-x);
        }
    }
    const double maxV = Decode16(maxFinite, f);
    const double ulpTop = maxV - Decode16(uint16_t(maxFinite - 1), f);
    for (double x : {maxV, maxV + ulpTop / 4, maxV + ulpTop / 2, maxV + ulpTop, 1e38, 3.4e38}) {
        const float xf = float(x);
        for (float y : {xf, std::nextafter(xf, -INFINITY), std::nextafter(xf, INFINITY)}) {
            v.push_back(y);
            v.push_back(-y);
        }
    }
    for (float x : {1e-40f, 1.4e-45f, std::numeric_limits<float>::min(), INFINITY, NAN, 0.0f, 1.0f, 1e-8f, 2.9e-8f,
                    2.98023224e-8f, 3e-8f, 5.96046448e-8f, 8.94069672e-8f})
        v.push_back(x), v.push_back(-x);
    return v;
}

template <typename D, typename S, typename Ref>
void CheckCast(const char* what, const std::vector<S>& in, RoundMode m, bool sat, Ref ref, const char* soc = nullptr) {
    const auto out = CastAll<D>(in, m, sat, soc);
    for (size_t i = 0; i < in.size(); ++i) {
        const D e = ref(in[i]);
        if (!Same(out[i], e))
            FAIL(what, " ", ModeName(m), sat ? " (saturating)" : "", ": ", th::Show(in[i]), " -> ", th::Show(out[i]),
                 ", expected ", th::Show(e));
    }
}

// The Ascend910B2 table of ascendc-api.md §5.5 / §15.8: allowed (src, dst) pairs and their round modes.
// int32 -> half is left out: the vendor accepts it only together with SetDeqScale, which the twin does not model.
enum Dt { F32, F16, BF16, I32, I16, I8, U8, I64 };
const char* DtName(int d) {
    static const char* names[] = {"float", "half", "bf16", "int32", "int16", "int8", "uint8", "int64"};
    return names[d];
}
constexpr uint32_t kN = 1u << 0, kR = 1u << 1, kFl = 1u << 2, kC = 1u << 3, kRo = 1u << 4, kT = 1u << 5, kO = 1u << 6;
constexpr uint32_t kDir = kR | kFl | kC | kRo | kT;
uint32_t Expected910B(int s, int d) {
    auto is = [&](int a, int b) { return s == a && d == b; };
    if (is(F16, F32) || is(BF16, F32)) return kN;
    if (is(F32, F16)) return kDir | kO | kN;
    if (is(F32, BF16) || is(F32, F32) || is(F32, I32) || is(F32, I16) || is(F32, I64)) return kDir;
    if (is(F16, I32) || is(F16, I16) || is(BF16, I32)) return kDir;
    if (is(F16, I8) || is(F16, U8)) return kDir | kN;
    if (is(I32, F32)) return kDir | kN;
    if (is(I32, I16) || is(I32, I64) || is(I64, I32)) return kN;
    if (is(I64, F32)) return kDir;
    if (is(I16, F16)) return kDir | kN;
    if (is(I16, F32) || is(I8, F16) || is(U8, F16)) return kN;
    return 0;
}
uint32_t Expected310P(int s, int d) {
    auto is = [&](int a, int b) { return s == a && d == b; };
    if (is(F16, F32)) return kN;
    if (is(F32, F16)) return kO | kN;
    if (is(F16, I32)) return kDir;
    if (is(F16, I8) || is(F16, U8)) return kFl | kC | kRo | kT | kN;
    if (is(F16, I16)) return kR;
    if (is(I32, F32)) return kN;
    if (is(F32, I64)) return kDir;
    return 0;
}

template <typename D, typename S>
void ProbeCastTable(int s, int d, uint32_t (*expected)(int, int), const char* soc, bool noBf16) {
    for (int mi = 0; mi < 7; ++mi) {
        const RoundMode m = kModes[mi];
        const bool want = (s == BF16 || d == BF16) && noBf16 ? false : (expected(s, d) >> mi) & 1u;
        bool ok = true;
        std::string err;
        try {
            actgrad_sim::SetSoc(soc);
            RunUb([&](Ub& ub) {
                auto src = ub.Alloc<S>(64, 0);
                auto dst = ub.Alloc<D>(64, 0);
                AscendC::Cast(dst, src, m, 64);
            });
        } catch (const actgrad_sim::SimError& e) {
            ok = false;
            err = e.what();
            if (e.kind() != ErrorKind::Unsupported) FAIL("Cast ", DtName(s), "->", DtName(d), " ", ModeName(m), " on ", soc, ": wrong kind: ", err);
        }
        if (ok != want)
            FAIL("Cast ", DtName(s), " -> ", DtName(d), " ", ModeName(m), " on ", soc, ": ", ok ? "accepted" : "rejected",
                 ", expected ", want ? "accepted" : "rejected", " ", err);
        if (!ok) {
            CHECK_CONTAINS(err, "Cast");
            CHECK_CONTAINS(err, soc);
        }
    }
}

// Every pair either table allows, plus a sample of pairs no SoC has (instantiating all 64 pairs doubles the
// build time of this file for no extra coverage of the table logic).
void ProbeAll(uint32_t (*expected)(int, int), const char* soc, bool noBf16) {
    ProbeCastTable<float, half>(F16, F32, expected, soc, noBf16);
    ProbeCastTable<float, bfloat16_t>(BF16, F32, expected, soc, noBf16);
    ProbeCastTable<half, float>(F32, F16, expected, soc, noBf16);
    ProbeCastTable<bfloat16_t, float>(F32, BF16, expected, soc, noBf16);
    ProbeCastTable<float, float>(F32, F32, expected, soc, noBf16);
    ProbeCastTable<int32_t, float>(F32, I32, expected, soc, noBf16);
    ProbeCastTable<int16_t, float>(F32, I16, expected, soc, noBf16);
    ProbeCastTable<int64_t, float>(F32, I64, expected, soc, noBf16);
    ProbeCastTable<int32_t, half>(F16, I32, expected, soc, noBf16);
    ProbeCastTable<int16_t, half>(F16, I16, expected, soc, noBf16);
    ProbeCastTable<int8_t, half>(F16, I8, expected, soc, noBf16);
    ProbeCastTable<uint8_t, half>(F16, U8, expected, soc, noBf16);
    ProbeCastTable<int32_t, bfloat16_t>(BF16, I32, expected, soc, noBf16);
    ProbeCastTable<float, int32_t>(I32, F32, expected, soc, noBf16);
    ProbeCastTable<int16_t, int32_t>(I32, I16, expected, soc, noBf16);
    ProbeCastTable<int64_t, int32_t>(I32, I64, expected, soc, noBf16);
    ProbeCastTable<int32_t, int64_t>(I64, I32, expected, soc, noBf16);
    ProbeCastTable<float, int64_t>(I64, F32, expected, soc, noBf16);
    ProbeCastTable<half, int16_t>(I16, F16, expected, soc, noBf16);
    ProbeCastTable<float, int16_t>(I16, F32, expected, soc, noBf16);
    ProbeCastTable<half, int8_t>(I8, F16, expected, soc, noBf16);
    ProbeCastTable<half, uint8_t>(U8, F16, expected, soc, noBf16);
    // no SoC of the subset converts these directly
    ProbeCastTable<half, half>(F16, F16, expected, soc, noBf16);
    ProbeCastTable<bfloat16_t, bfloat16_t>(BF16, BF16, expected, soc, noBf16);
    ProbeCastTable<half, bfloat16_t>(BF16, F16, expected, soc, noBf16);
    ProbeCastTable<bfloat16_t, half>(F16, BF16, expected, soc, noBf16);
    ProbeCastTable<float, int8_t>(I8, F32, expected, soc, noBf16);
    ProbeCastTable<int32_t, uint8_t>(U8, I32, expected, soc, noBf16);
    ProbeCastTable<int8_t, float>(F32, I8, expected, soc, noBf16);
    ProbeCastTable<int32_t, int16_t>(I16, I32, expected, soc, noBf16);
    ProbeCastTable<int64_t, int64_t>(I64, I64, expected, soc, noBf16);
    ProbeCastTable<half, int32_t>(I32, F16, expected, soc, noBf16);  // vendor: only with SetDeqScale
}

}  // namespace

TEST(Cast_support_table_Ascend910B2) { ProbeAll(Expected910B, "Ascend910B2", false); }

TEST(Cast_support_table_Ascend310P) { ProbeAll(Expected310P, "Ascend310P", true); }

TEST(Cast_float_to_half_every_mode_ties_overflow_subnormals) {
    const auto in = TiePoints(kHalf, 7);
    for (RoundMode m : kModes)
        for (bool sat : {true, false})
            CheckCast<half>("float->half", in, m, sat, [&](float x) {
                const uint16_t b = RefHalf(x, FromMode(m));
                return half::FromBits(sat ? Sat16(b, kHalf) : b);
            });
}

TEST(Cast_float_to_bf16_every_mode_ties_overflow_subnormals) {
    const auto in = TiePoints(kBf16, 5);
    for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                        RoundMode::CAST_TRUNC})
        for (bool sat : {true, false})
            CheckCast<bfloat16_t>("float->bf16", in, m, sat, [&](float x) {
                const uint16_t b = RefBf16(x, FromMode(m));
                return bfloat16_t::FromBits(sat ? Sat16(b, kBf16) : b);
            });
}

TEST(Cast_half_and_bf16_to_float_exhaustive) {
    std::vector<half> h(65536);
    std::vector<bfloat16_t> b(65536);
    for (uint32_t i = 0; i < 65536; ++i) h[i] = half::FromBits(uint16_t(i)), b[i] = bfloat16_t::FromBits(uint16_t(i));
    CheckCast<float>("half->float", h, RoundMode::CAST_NONE, true, [](half x) { return float(DecodeHalf(x.val)); });
    CheckCast<float>("bf16->float", b, RoundMode::CAST_NONE, true, [](bfloat16_t x) { return float(DecodeBf16(x.val)); });
}

TEST(Cast_half_and_bf16_round_trip_exhaustive) {
    std::vector<half> h(65536);
    std::vector<bfloat16_t> b(65536);
    for (uint32_t i = 0; i < 65536; ++i) h[i] = half::FromBits(uint16_t(i)), b[i] = bfloat16_t::FromBits(uint16_t(i));
    const auto hf = CastAll<float>(h, RoundMode::CAST_NONE);
    const auto bf = CastAll<float>(b, RoundMode::CAST_NONE);
    for (bool sat : {false, true}) {
        const auto h2 = CastAll<half>(hf, RoundMode::CAST_RINT, sat);
        const auto b2 = CastAll<bfloat16_t>(bf, RoundMode::CAST_RINT, sat);
        for (uint32_t i = 0; i < 65536; ++i) {
            const uint16_t eh = sat ? Sat16(uint16_t(i), kHalf) : uint16_t(i);
            const uint16_t eb = sat ? Sat16(uint16_t(i), kBf16) : uint16_t(i);
            if (!(IsNan16(uint16_t(i), kHalf) && !sat ? IsNan16(h2[i].val, kHalf) : h2[i].val == eh))
                FAIL("half round trip (sat=", sat, ") of ", th::Hex(i), " gave ", th::Hex(h2[i].val));
            if (!(IsNan16(uint16_t(i), kBf16) && !sat ? IsNan16(b2[i].val, kBf16) : b2[i].val == eb))
                FAIL("bf16 round trip (sat=", sat, ") of ", th::Hex(i), " gave ", th::Hex(b2[i].val));
        }
    }
}

namespace {
std::vector<float> IntRoundingInputs() {
    std::vector<float> v = {0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, 0.49999997f, 0.50000006f, 1.4999999f,
                            2.5000002f, -0.49999997f, -2.5000002f, 0.0f, -0.0f, 1e-40f, -1e-40f, 7.0f, -7.0f, 126.5f,
                            127.5f, 128.0f, 254.5f, 255.5f, 256.0f, -128.5f, -129.0f, 32766.5f, 32767.5f, 40000.0f,
                            -32768.5f, -40000.0f, 2147483520.0f, 2147483648.0f, 3e9f, -2147483648.0f, -3e9f, 1e20f,
                            -1e20f, 9.2233715e18f, 9.223372e18f, -9.223372e18f, INFINITY, -INFINITY, NAN};
    auto r = FloatValues(200, 11);
    v.insert(v.end(), r.begin(), r.end());
    return v;
}
template <typename I>
void FloatToInt(const char* what) {
    const auto in = IntRoundingInputs();
    for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                        RoundMode::CAST_TRUNC})
        CheckCast<I>(what, in, m, true, [&](float x) { return RefToInt<I>(x, FromMode(m)); });
}
}  // namespace

TEST(Cast_float_to_int32_int16_int64_every_mode) {
    FloatToInt<int32_t>("float->int32");
    FloatToInt<int16_t>("float->int16");
    FloatToInt<int64_t>("float->int64");
}

TEST(Cast_half_and_bf16_to_int_exhaustive) {
    std::vector<half> h(65536);
    std::vector<bfloat16_t> b(65536);
    for (uint32_t i = 0; i < 65536; ++i) h[i] = half::FromBits(uint16_t(i)), b[i] = bfloat16_t::FromBits(uint16_t(i));
    for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                        RoundMode::CAST_TRUNC}) {
        CheckCast<int32_t>("half->int32", h, m, true, [&](half x) { return RefToInt<int32_t>(DecodeHalf(x.val), FromMode(m)); });
        CheckCast<int16_t>("half->int16", h, m, true, [&](half x) { return RefToInt<int16_t>(DecodeHalf(x.val), FromMode(m)); });
        CheckCast<int32_t>("bf16->int32", b, m, true,
                           [&](bfloat16_t x) { return RefToInt<int32_t>(DecodeBf16(x.val), FromMode(m)); });
    }
    for (RoundMode m : {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                        RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC}) {
        CheckCast<int8_t>("half->int8", h, m, true, [&](half x) { return RefToInt<int8_t>(DecodeHalf(x.val), FromMode(m)); });
        CheckCast<uint8_t>("half->uint8", h, m, true, [&](half x) { return RefToInt<uint8_t>(DecodeHalf(x.val), FromMode(m)); });
    }
}

TEST(Cast_int32_to_float_every_mode) {
    std::vector<int32_t> in = {0, 1, -1, 16777216, 16777217, 16777218, 16777219, -16777217, -16777219, 33554433,
                               33554434, 33554435, 33554438, 2147483647, -2147483647 - 1, 2147483583, 2147483584,
                               2147483585, 123456789, -123456789};
    auto r = IntValues<int32_t>(200, 12);
    in.insert(in.end(), r.begin(), r.end());
    for (RoundMode m : {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                        RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC})
        CheckCast<float>("int32->float", in, m, true, [&](int32_t x) { return RefIntToFloat(x, FromMode(m)); });
}

TEST(Cast_int64_to_float_every_mode) {
    // 2^60 + 2^36 + 1 lies just above the midpoint of two floats; 2^60 + 2^37 - 1 lies just below a float
    std::vector<int64_t> in = {0, 1, -1, (1ll << 60) + (1ll << 36) + 1, (1ll << 60) + (1ll << 36),
                               (1ll << 60) + (1ll << 36) - 1, (1ll << 60) + (1ll << 37) - 1, -((1ll << 60) + (1ll << 36) + 1),
                               -((1ll << 60) + (1ll << 37) - 1), INT64_MAX, INT64_MIN, (1ll << 40) + 1, 16777217};
    for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                        RoundMode::CAST_TRUNC})
        CheckCast<float>("int64->float", in, m, true, [&](int64_t x) { return RefIntToFloat(x, FromMode(m)); });
}

TEST(Cast_float_to_float_integral_modes) {
    const auto in = IntRoundingInputs();
    for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                        RoundMode::CAST_TRUNC})
        CheckCast<float>("float->float", in, m, true, [&](float x) -> float {
            if (x != x || std::isinf(x)) return x;
            const double k = RoundUnits(std::fabs(double(x)), FromMode(m), std::signbit(x));
            return float(std::copysign(k, double(x)));
        });
}

TEST(Cast_integer_conversions) {
    const auto i16 = IntValues<int16_t>(300, 21);
    for (RoundMode m : {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                        RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC})
        CheckCast<half>("int16->half", i16, m, true, [&](int16_t x) { return half::FromBits(RefHalf(x, FromMode(m))); });
    CheckCast<float>("int16->float", i16, RoundMode::CAST_NONE, true, [](int16_t x) { return float(x); });
    const auto i8 = IntValues<int8_t>(256, 22);
    const auto u8 = IntValues<uint8_t>(256, 23);
    CheckCast<half>("int8->half", i8, RoundMode::CAST_NONE, true, [](int8_t x) { return half::FromBits(RefHalf(x)); });
    CheckCast<half>("uint8->half", u8, RoundMode::CAST_NONE, true, [](uint8_t x) { return half::FromBits(RefHalf(x)); });
    const auto i32 = IntValues<int32_t>(300, 24);
    CheckCast<int16_t>("int32->int16", i32, RoundMode::CAST_NONE, true, [](int32_t x) { return RefToInt<int16_t>(x, Rnd::Rne); });
    CheckCast<int64_t>("int32->int64", i32, RoundMode::CAST_NONE, true, [](int32_t x) { return int64_t(x); });
    const auto i64 = IntValues<int64_t>(300, 25);
    CheckCast<int32_t>("int64->int32", i64, RoundMode::CAST_NONE, true, [](int64_t x) {
        return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : int32_t(x));
    });
}

TEST(Cast_widening_bf16_parked_in_upper_half_of_float_buffer) {
    // the production idiom: bf16 data copied into the upper half of a float-sized buffer, widened "in place"
    const uint32_t maxCnt = 512, n = 500;
    std::vector<bfloat16_t> in = Bf16Values(n);
    std::vector<float> out;
    RunUb([&](Ub& ub) {
        auto buf = ub.Alloc<float>(maxCnt);
        auto parked = buf.ReinterpretCast<bfloat16_t>()[maxCnt];
        std::memcpy(static_cast<void*>(parked.GetPhyAddr()), in.data(), n * sizeof(bfloat16_t));
        AscendC::Cast(buf, parked, RoundMode::CAST_NONE, n);
        out = Ub::Read(buf, n);
    });
    for (uint32_t i = 0; i < n; ++i) CHECK_MSG(Same(out[i], float(DecodeBf16(in[i].val))), "element ", i);
}

TEST(Cast_narrowing_in_place_is_accepted) {
    // ascendc-api.md §15.8: only partial overlaps at different addresses beyond 256 B are rejected; a narrowing
    // Cast at the same address (float -> half into the same buffer) is accepted
    const uint32_t n = 1024;
    std::vector<float> in = FloatValues(n - 22);
    in.resize(n, 1.0f);
    std::vector<half> out;
    RunUb([&](Ub& ub) {
        auto buf = ub.Load(in);
        AscendC::Cast(buf.ReinterpretCast<half>(), buf, RoundMode::CAST_RINT, n);
        out = Ub::Read(buf.ReinterpretCast<half>(), n);
    });
    for (uint32_t i = 0; i < n; ++i) CHECK_MSG(out[i].val == Sat16(RefHalf(in[i]), kHalf), "element ", i);
}

TEST(Cast_small_narrowing_overlap_and_partial_overlap_rules) {
    // narrowing in place within one repeat (64 floats = 256 B) is accepted and correct
    std::vector<float> in = Cycle(FloatValues(42), 64);
    std::vector<half> out;
    RunUb([&](Ub& ub) {
        auto buf = ub.Load(in);
        AscendC::Cast(buf.ReinterpretCast<half>(), buf, RoundMode::CAST_RINT, 64);
        out = Ub::Read(buf.ReinterpretCast<half>(), 64);
    });
    for (uint32_t i = 0; i < 64; ++i) CHECK_MSG(out[i].val == Sat16(RefHalf(in[i]), kHalf), "element ", i);
    // widening in place is rejected
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "in place", RunUb([&](Ub& ub) {
        auto buf = ub.Alloc<float>(64);
        AscendC::Cast(buf, buf.ReinterpretCast<half>(), RoundMode::CAST_NONE, 64);
    }));
    // a partial overlap at different addresses beyond one repeat is rejected
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "overlap beyond one repeat", RunUb([&](Ub& ub) {
        auto buf = ub.Alloc<float>(1024);
        AscendC::Cast(buf[64], buf.ReinterpretCast<half>(), RoundMode::CAST_NONE, 512);
    }));
}

// ====================================================================================== 16-bit float types

TEST(Half_type_widening_exhaustive) {
    for (uint32_t i = 0; i < 65536; ++i) {
        const float f = float(half::FromBits(uint16_t(i)));
        const double e = DecodeHalf(uint16_t(i));
        if (e != e) {
            CHECK_MSG(f != f, "pattern ", th::Hex(i));
            CHECK_MSG(((B(f) >> 13) & 0x3ff) == (i & 0x3ff), "NaN payload of ", th::Hex(i));
        } else {
            CHECK_MSG(th::Bits(f) == th::Bits(float(e)), "pattern ", th::Hex(i), ": ", f, " vs ", e);
        }
    }
}

TEST(Bf16_type_widening_exhaustive) {
    for (uint32_t i = 0; i < 65536; ++i) {
        const float f = float(bfloat16_t::FromBits(uint16_t(i)));
        const double e = DecodeBf16(uint16_t(i));
        if (e != e) CHECK_MSG(f != f, "pattern ", th::Hex(i));
        else CHECK_MSG(th::Bits(f) == th::Bits(float(e)), "pattern ", th::Hex(i));
    }
}

TEST(Half_and_bf16_type_round_trip_exhaustive) {
    for (uint32_t i = 0; i < 65536; ++i) {
        const half h = half(float(half::FromBits(uint16_t(i))));
        const bfloat16_t b = bfloat16_t(float(bfloat16_t::FromBits(uint16_t(i))));
        if (IsNan16(uint16_t(i), kHalf)) CHECK_MSG(IsNan16(h.val, kHalf), "half NaN ", th::Hex(i), " -> ", th::Hex(h.val));
        else CHECK_MSG(h.val == i, "half ", th::Hex(i), " -> ", th::Hex(h.val));
        if (IsNan16(uint16_t(i), kBf16)) CHECK_MSG(IsNan16(b.val, kBf16), "bf16 NaN ", th::Hex(i), " -> ", th::Hex(b.val));
        else CHECK_MSG(b.val == i, "bf16 ", th::Hex(i), " -> ", th::Hex(b.val));
    }
}

TEST(Half_and_bf16_type_narrowing_every_tie) {
    // every midpoint between adjacent finite values, one float ulp either side, both signs, plus overflow/subnormals
    for (float x : TiePoints(kHalf, 1)) {
        const half h = half(x);
        const uint16_t e = RefHalf(x);
        if (x != x) CHECK_MSG(IsNan16(h.val, kHalf), "half(NaN)");
        else CHECK_MSG(h.val == e, "half(", th::Show(x), ") = ", th::Hex(h.val), ", expected ", th::Hex(e));
    }
    for (float x : TiePoints(kBf16, 1)) {
        const bfloat16_t b = bfloat16_t(x);
        const uint16_t e = RefBf16(x);
        if (x != x) CHECK_MSG(IsNan16(b.val, kBf16), "bf16(NaN)");
        else CHECK_MSG(b.val == e, "bf16(", th::Show(x), ") = ", th::Hex(b.val), ", expected ", th::Hex(e));
    }
    // named corner cases
    CHECK_EQ(half(65504.0f).val, 0x7bff);
    CHECK_EQ(half(65519.996f).val, 0x7bff);
    CHECK_EQ(half(65520.0f).val, 0x7c00);  // the tie above max rounds to even = inf
    CHECK_EQ(half(-1e9f).val, 0xfc00);
    CHECK_EQ(half(1.0009765625f).val, 0x3c01);
    CHECK_EQ(half(1.00048828125f).val, 0x3c00);  // tie 1 + 2^-11 -> even 1.0
    CHECK_EQ(half(1.00146484375f).val, 0x3c02);  // tie 1 + 3*2^-11 -> even 1 + 2^-9
    CHECK_EQ(half(std::ldexp(1.0f, -25)).val, 0x0000);                               // tie 0 / 2^-24 -> 0
    CHECK_EQ(half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).val, 0x0001);
    CHECK_EQ(half(3 * std::ldexp(1.0f, -25)).val, 0x0002);                           // tie 1 / 2 quanta -> 2
    CHECK_EQ(half(1e-40f).val, 0x0000);
    CHECK_EQ(half(-1e-40f).val, 0x8000);
    CHECK(IsNan16(half(NAN).val, kHalf));
    CHECK_EQ(bfloat16_t(F(0x7f7fffffu)).val, 0x7f80);  // float max rounds up to inf
    CHECK_EQ(bfloat16_t(F(0x7f7f7fffu)).val, 0x7f7f);
    CHECK_EQ(bfloat16_t(F(0x3f808000u)).val, 0x3f80);  // tie -> even
    CHECK_EQ(bfloat16_t(F(0x3f818000u)).val, 0x3f82);  // tie -> even (up)
    CHECK_EQ(bfloat16_t(F(0x3f808001u)).val, 0x3f81);
    CHECK_EQ(bfloat16_t(F(0x00008000u)).val, 0x0000);  // subnormal tie -> even
    CHECK_EQ(bfloat16_t(F(0x00018000u)).val, 0x0002);
    CHECK(IsNan16(bfloat16_t(F(0x7f800001u)).val, kBf16));  // a signalling NaN whose payload is in the low bits stays NaN
    CHECK(IsNan16(bfloat16_t(F(0xffc00000u)).val, kBf16));
}

TEST(Half_and_bf16_type_narrowing_random) {
    std::mt19937 rng(99);
    for (int i = 0; i < 400000; ++i) {
        const float x = F(rng());
        const half h = half(x);
        const bfloat16_t b = bfloat16_t(x);
        if (x != x) {
            CHECK(IsNan16(h.val, kHalf));
            CHECK(IsNan16(b.val, kBf16));
            continue;
        }
        CHECK_MSG(h.val == RefHalf(x), "half(", th::Show(x), ") = ", th::Hex(h.val));
        CHECK_MSG(b.val == RefBf16(x), "bf16(", th::Show(x), ") = ", th::Hex(b.val));
    }
}

// ====================================================================================== saturation

TEST(Saturation_float_compute_half_default_on_then_off) {
    std::vector<half> a = {half(60000.0f), half(-60000.0f), half::FromBits(0x7c00), half(300.0f), half(1.0f), half(0.0f)};
    std::vector<half> b = {half(60000.0f), half(-60000.0f), half::FromBits(0xfc00), half(300.0f), half(0.0f), half(0.0f)};
    std::vector<half> addOn, addOff, mulOn, divOn, divOff, expOn;
    bool flagOn = false, flagOff = true, castFlag = false;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(a);
        auto y = ub.Load(b);
        auto d = ub.Alloc<half>(6);
        flagOn = AscendC::GetSaturationFlag<SaturationMode::FLOAT>();
        AscendC::Add(d, x, y, 6);
        addOn = Ub::Read(d, 6);
        AscendC::Mul(d, x, y, 6);
        mulOn = Ub::Read(d, 6);
        AscendC::Div(d, x, y, 6);
        divOn = Ub::Read(d, 6);
        AscendC::Exp(d, x, 6);
        expOn = Ub::Read(d, 6);
        AscendC::SetSaturationFlag<SaturationMode::FLOAT>(false);
        flagOff = AscendC::GetSaturationFlag<SaturationMode::FLOAT>();
        castFlag = AscendC::GetSaturationFlag<SaturationMode::CAST>();
        AscendC::Add(d, x, y, 6);
        addOff = Ub::Read(d, 6);
        AscendC::Div(d, x, y, 6);
        divOff = Ub::Read(d, 6);
    });
    CHECK(flagOn);
    CHECK(!flagOff);
    CHECK(castFlag);  // the FLOAT switch leaves CAST alone
    CHECK_EQ(addOn[0].val, 0x7bff);   // 120000 -> inf -> 65504
    CHECK_EQ(addOn[1].val, 0xfbff);   // -inf -> -65504
    CHECK_EQ(addOn[2].val, 0x0000);   // inf + -inf = NaN -> 0
    CHECK_EQ(mulOn[3].val, 0x7bff);   // 90000 -> 65504
    CHECK_EQ(divOn[4].val, 0x7bff);   // 1/0 -> 65504
    CHECK_EQ(divOn[5].val, 0x0000);   // 0/0 -> 0
    CHECK_EQ(expOn[0].val, 0x7bff);   // exp(60000) -> 65504
    CHECK_EQ(addOff[0].val, 0x7c00);  // inf passes through
    CHECK_EQ(addOff[1].val, 0xfc00);
    CHECK(IsNan16(addOff[2].val, kHalf));
    CHECK_EQ(divOff[4].val, 0x7c00);
    CHECK(IsNan16(divOff[5].val, kHalf));
}

TEST(Saturation_cast_to_half_and_bf16_default_on_then_off) {
    std::vector<float> in = {1e6f, -1e6f, INFINITY, -INFINITY, NAN, 65519.0f, 65520.0f, 3.4e38f, 1.0f};
    std::vector<half> hOn, hOff, hFloor;
    std::vector<bfloat16_t> bOn, bOff;
    std::vector<half> addStillSaturates;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(in);
        auto h = ub.Alloc<half>(9);
        auto b = ub.Alloc<bfloat16_t>(9);
        AscendC::Cast(h, x, RoundMode::CAST_RINT, 9);
        hOn = Ub::Read(h, 9);
        AscendC::Cast(b, x, RoundMode::CAST_RINT, 9);
        bOn = Ub::Read(b, 9);
        AscendC::SetSaturationFlag<SaturationMode::CAST>(false);
        AscendC::Cast(h, x, RoundMode::CAST_RINT, 9);
        hOff = Ub::Read(h, 9);
        AscendC::Cast(h, x, RoundMode::CAST_FLOOR, 9);
        hFloor = Ub::Read(h, 9);
        AscendC::Cast(b, x, RoundMode::CAST_RINT, 9);
        bOff = Ub::Read(b, 9);
        auto big = ub.Load(std::vector<half>{half(60000.0f)});
        AscendC::Add(h, big, big, 1);  // SaturationMode::FLOAT is still on
        addStillSaturates = Ub::Read(h, 1);
    });
    const uint16_t hOnWant[] = {0x7bff, 0xfbff, 0x7bff, 0xfbff, 0x0000, 0x7bff, 0x7bff, 0x7bff, 0x3c00};
    const uint16_t bOnWant[] = {0x4974, 0xc974, 0x7f7f, 0xff7f, 0x0000, 0x4780, 0x4780, 0x7f7f, 0x3f80};
    for (int i = 0; i < 9; ++i) {
        CHECK_MSG(hOn[i].val == hOnWant[i], "half sat ", i, ": ", th::Hex(hOn[i].val));
        CHECK_MSG(bOn[i].val == bOnWant[i], "bf16 sat ", i, ": ", th::Hex(bOn[i].val));
    }
    const uint16_t hOffWant[] = {0x7c00, 0xfc00, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0x7c00, 0x7c00, 0x3c00};
    for (int i = 0; i < 9; ++i) {
        if (i == 4) {
            CHECK(IsNan16(hOff[i].val, kHalf));
            CHECK(IsNan16(bOff[i].val, kBf16));
        } else {
            CHECK_MSG(hOff[i].val == hOffWant[i], "half no-sat ", i, ": ", th::Hex(hOff[i].val));
        }
    }
    CHECK_EQ(bOff[2].val, 0x7f80);
    CHECK_EQ(bOff[3].val, 0xff80);
    CHECK_EQ(bOff[7].val, 0x7f80);  // 3.4e38 is above the bf16 overflow threshold (3.3961e38)
    CHECK_EQ(hFloor[0].val, 0x7bff);  // FLOOR of an overflow is max finite per IEEE
    CHECK_EQ(hFloor[1].val, 0xfc00);  // FLOOR of -1e6 is -inf
    CHECK_EQ(addStillSaturates[0].val, 0x7bff);
}

TEST(Saturation_float_results_never_saturate) {
    std::vector<float> out;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(std::vector<float>{3e38f, INFINITY, NAN});
        auto d = ub.Alloc<float>(3);
        AscendC::Add(d, x, x, 3);
        out = Ub::Read(d, 3);
        auto h = ub.Load(std::vector<half>{half::FromBits(0x7c00), half::FromBits(0x7e00), half(1.0f)});
        AscendC::Cast(d, h, RoundMode::CAST_NONE, 3);  // widening keeps inf/NaN
        auto w = Ub::Read(d, 3);
        out.insert(out.end(), w.begin(), w.end());
    });
    CHECK(std::isinf(out[0]) && out[0] > 0);
    CHECK(std::isinf(out[1]));
    CHECK(out[2] != out[2]);
    CHECK(std::isinf(out[3]));
    CHECK(out[4] != out[4]);
}

TEST(Saturation_default_off_on_Ascend950_and_reset_per_launch) {
    actgrad_sim::SetSoc("Ascend950");
    std::vector<half> h;
    std::vector<bfloat16_t> b;
    bool f = true, c = true;
    RunUb([&](Ub& ub) {
        f = AscendC::GetSaturationFlag<SaturationMode::FLOAT>();
        c = AscendC::GetSaturationFlag<SaturationMode::CAST>();
        auto x = ub.Load(std::vector<half>{half(60000.0f)});
        auto d = ub.Alloc<half>(1);
        AscendC::Add(d, x, x, 1);
        h = Ub::Read(d, 1);
        auto xb = ub.Load(std::vector<bfloat16_t>{bfloat16_t(3e38f)});
        auto db = ub.Alloc<bfloat16_t>(1);
        AscendC::Add(db, xb, xb, 1);  // bf16 math exists on 950
        b = Ub::Read(db, 1);
        auto xf = ub.Load(std::vector<float>{1e6f});
        AscendC::Cast(d, xf, RoundMode::CAST_RINT, 1);
        auto cst = Ub::Read(d, 1);
        h.push_back(cst[0]);
    });
    CHECK(!f);
    CHECK(!c);
    CHECK_EQ(h[0].val, 0x7c00);
    CHECK_EQ(b[0].val, 0x7f80);
    CHECK_EQ(h[1].val, 0x7c00);
    // the flag is per launch: a kernel that switched it off does not leak into the next launch on 910B2
    actgrad_sim::SetSoc("Ascend910B2");
    RunUb([&](Ub&) { AscendC::SetSaturationFlag<SaturationMode::FLOAT>(false); });
    bool again = false;
    RunUb([&](Ub&) { again = AscendC::GetSaturationFlag<SaturationMode::FLOAT>(); });
    CHECK(again);
}

TEST_MAIN()
