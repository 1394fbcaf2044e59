// The sum reductions (WholeReduceSum, BlockReduceSum, ReduceSum level 0 and level 2) against a scalar reference of
// the A2/A3 order (docs/twin.md, "Reductions"): every addition is done exactly in double and rounded once to the
// element type (double rounding through double is innocuous for a sum of two floats or halves), in the order the
// vendor documents; fingerprints with hand-computed values tell the orders apart.
#include "api_common.h"

namespace {

constexpr float kTwo24 = 16777216.0f;  // 2^24: 2^24 + 1 rounds back to 2^24 in float

// a + b in T, rounded once (half: saturating when sat).
template <typename T>
double RefAdd(double a, double b, bool sat) {
    return D(Store<T>(a + b, sat));
}

// The documented tree: neighbours first, (v0+v1), (v2+v3), ..., then the neighbouring results; size a power of two.
template <typename T>
double RefTree(std::vector<double> v, bool sat = true) {
    while (v.size() > 1) {
        std::vector<double> next(v.size() / 2);
        for (size_t i = 0; i < next.size(); ++i) next[i] = RefAdd<T>(v[2 * i], v[2 * i + 1], sat);
        v.swap(next);
    }
    return v[0];
}

template <typename T> constexpr uint32_t kLanes = 256 / sizeof(T);
template <typename T> constexpr uint32_t kPerBlock = 32 / sizeof(T);

bool LaneOn(const uint64_t mask[2], uint32_t k) { return ((k < 64 ? mask[0] >> k : mask[1] >> (k - 64)) & 1u) != 0; }

// The lanes of repeat r of a level-0 operand, disabled lanes 0.
template <typename T>
std::vector<double> RefLanes(const std::vector<T>& src, const uint64_t mask[2], uint32_t r, uint32_t blkStride,
                             uint32_t repStride) {
    std::vector<double> lanes(kLanes<T>, 0.0);
    for (uint32_t k = 0; k < kLanes<T>; ++k)
        if (LaneOn(mask, k))
            lanes[k] = D(src[(r * repStride + (k / kPerBlock<T>) * blkStride) * kPerBlock<T> + k % kPerBlock<T>]);
    return lanes;
}

void CountToBits(uint32_t count, uint64_t mask[2]) {
    mask[0] = count >= 64 ? ~0ull : (1ull << count) - 1;
    mask[1] = count > 64 ? (count == 128 ? ~0ull : (1ull << (count - 64)) - 1) : 0;
}

// Random values over many binades and both signs, so the order of the additions shows in the low bits.
template <typename T>
std::vector<T> Spread(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> expo(std::is_same<T, half>::value ? -6 : -20, std::is_same<T, half>::value ? 6 : 20);
    std::vector<T> v(n);
    for (auto& x : v) x = T(float((rng() & 1 ? -1 : 1) * std::ldexp(mant(rng), expo(rng))));
    return v;
}

template <typename T>
void ExpectSame(const T& got, double want, const std::string& what) {
    const T w = Store<T>(want, false);
    if (!Same(got, w)) FAIL(what, ": got ", th::Show(got), ", expected ", th::Show(w));
}

// WholeReduceSum over `repeat` repeats of src with a bit mask; dst gets one sum every dstRepStride elements.
template <typename T>
void CheckWhole(const std::vector<T>& src, const uint64_t mask[2], bool bitMode, uint32_t countMask, uint32_t repeat,
                uint32_t dstRepStride, uint32_t blkStride, uint32_t repStride, const char* what) {
    const uint32_t dstN = (repeat - 1) * dstRepStride + 1 + 16;  // and an untouched tail
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(src);
        auto d = ub.Alloc<T>(dstN);
        if (bitMode) AscendC::WholeReduceSum(d, s, mask, int32_t(repeat), int32_t(dstRepStride), int32_t(blkStride), int32_t(repStride));
        else AscendC::WholeReduceSum(d, s, int32_t(countMask), int32_t(repeat), int32_t(dstRepStride), int32_t(blkStride), int32_t(repStride));
        out = Ub::Read(d, dstN);
    });
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(out.data());
    for (uint32_t i = 0; i < dstN; ++i) {
        // dstRepStride 0: every sum lands on element 0, the last one stays
        const uint32_t r = dstRepStride == 0 ? repeat - 1 : i / dstRepStride;
        if ((dstRepStride == 0 && i == 0) || (dstRepStride != 0 && i % dstRepStride == 0 && r < repeat)) {
            const double want = RefTree<T>(RefLanes(src, mask, r, blkStride, repStride));
            ExpectSame(out[i], want, std::string(what) + " repeat " + std::to_string(r));
        } else {
            for (size_t b = i * sizeof(T); b < (i + 1) * sizeof(T); ++b)
                if (bytes[b] != 0xA5) FAIL(what, ": dst element ", i, " between or after the sums was written");
        }
    }
}

}  // namespace

// ====================================================================================== WholeReduceSum

// 2^24 followed by 63 ones: the tree loses only the first 1 (2^24 + 1 ties to 2^24) and then adds 2, 4, ..., 32
// exactly: 2^24 + 62. Adding left to right would give 2^24, the exact sum rounds to 2^24 + 64.
TEST(WholeReduceSum_float_tree_order_fingerprint) {
    std::vector<float> v(64, 1.0f);
    v[0] = kTwo24;
    float got = 0;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        auto d = ub.Alloc<float>(8);
        AscendC::WholeReduceSum(d, s, 64, 1, 1, 1, 8);
        Sync<AscendC::HardEvent::V_S>();
        got = d.GetValue(0);
    });
    CHECK_BITS_EQ(got, kTwo24 + 62.0f);
}

// The workhorse: short rows padded to 32 bytes (DataCopyPad's layout), one repeat per row, mask = row length. The pad
// holds NaN, which a disabled lane must not bring in.
TEST(WholeReduceSum_float_half_rows_count_mask) {
    for (uint32_t len : {1u, 7u, 8u, 20u, 33u, 64u}) {
        const uint32_t rows = 9, stride = (len + 7) / 8;  // float blocks per row
        auto v = Spread<float>(rows * stride * 8, len);
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t k = len; k < stride * 8; ++k) v[r * stride * 8 + k] = NAN;
        uint64_t mask[2];
        CountToBits(len, mask);
        CheckWhole(v, mask, false, len, rows, 1, 1, stride, ("float rows of " + std::to_string(len)).c_str());
    }
    for (uint32_t len : {1u, 15u, 16u, 50u, 100u, 128u}) {
        const uint32_t rows = 5, stride = (len + 15) / 16;
        auto v = Spread<half>(rows * stride * 16, len);
        for (uint32_t r = 0; r < rows; ++r)
            for (uint32_t k = len; k < stride * 16; ++k) v[r * stride * 16 + k] = half::FromBits(0x7e00);
        uint64_t mask[2];
        CountToBits(len, mask);
        CheckWhole(v, mask, false, len, rows, 1, 1, stride, ("half rows of " + std::to_string(len)).c_str());
    }
}

// Whole float repeats take an 8-lane form of the tree that has no NaN rule and hands NaN results to the exact tree:
// signed zeros, infinities, inf - inf and NaN payloads come out as the tree gives them (the first NaN, quieted),
// in WholeReduceSum and in ReduceSum's count form alike.
TEST(WholeReduceSum_ReduceSum_float_specials_in_whole_repeats) {
    const float inf = std::numeric_limits<float>::infinity();
    auto bits = [](uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; };
    constexpr uint32_t kAnyNan = 0xffffffffu;  // the hardware's default NaN: any NaN will do
    struct Case { std::vector<std::pair<uint32_t, float>> lanes; float fill; uint32_t want; const char* what; };
    const Case cases[] = {
        {{}, -0.0f, 0x80000000u, "64 x -0"},
        {{{17, 0.0f}}, -0.0f, 0x00000000u, "-0 and one +0"},
        {{{3, inf}, {60, 1e30f}}, 1.0f, 0x7f800000u, "+inf"},
        {{{3, inf}, {60, -inf}}, 1.0f, kAnyNan, "inf - inf: a NaN"},
        {{{5, bits(0x7fa00001u)}, {40, bits(0xffc00002u)}}, 2.0f, 0x7fe00001u, "two NaNs: the first, quieted"},
        {{{40, bits(0xffc00002u)}, {63, 1.0f}}, 2.0f, 0xffc00002u, "one NaN"},
    };
    for (const Case& c : cases) {
        std::vector<float> v(64, c.fill);
        for (const auto& [k, x] : c.lanes) v[k] = x;
        float whole = 0, count = 0;
        RunUb([&](Ub& ub) {
            auto s = ub.Load(v);
            auto d = ub.Alloc<float>(8);
            AscendC::WholeReduceSum(d, s, 64, 1, 1, 1, 8);
            Sync<AscendC::HardEvent::V_S>();
            whole = d.GetValue(0);
            AscendC::ReduceSum(d, s, ub.Alloc<float>(8), 64);
            Sync<AscendC::HardEvent::V_S>();
            count = d.GetValue(0);
        });
        for (float got : {whole, count}) {
            uint32_t g;
            std::memcpy(&g, &got, 4);
            if (c.want == kAnyNan ? got == got : g != c.want) FAIL(c.what, ": got bits ", g, ", expected ", c.want);
        }
    }
}

TEST(WholeReduceSum_bit_mask_block_and_repeat_strides) {
    const uint64_t sparse[2] = {0xF0F0F0F00F0F0F0Full, 0x8000000000000001ull};
    const uint64_t prefix[2] = {~0ull, 0x7ull};  // a count-like bit mask: lanes 0..66
    auto f = Spread<float>(4096, 3);
    CheckWhole(f, sparse, true, 0, 5, 3, 2, 17, "float sparse mask, blkStride 2, dstRepStride 3");
    CheckWhole(f, prefix, true, 0, 4, 1, 1, 8, "float, high word ignored");
    auto h = Spread<half>(8192, 4);
    CheckWhole(h, sparse, true, 0, 5, 2, 2, 17, "half sparse mask");
    CheckWhole(h, prefix, true, 0, 3, 1, 3, 24, "half lanes 0..66, blkStride 3");
    CheckWhole(h, prefix, true, 0, 3, 0, 1, 8, "half dstRepStride 0: the last sum stays");
}

// The vendor's example for the half tree (asc_repeat_reduce_sum): 60000 + 60000 saturates to 65504, -30000 + 100 =
// -29900, 65504 - 29900 = 35604. The doc writes the sums unrounded: in half -29900 is -29904 (step 16) and 35600
// ties to 35584 (step 32). Without saturation the first sum is inf and so is the result.
TEST(WholeReduceSum_half_saturates_each_addition_vendor_example) {
    const std::vector<half> v = {half(60000.0f), half(60000.0f), half(-30000.0f), half(100.0f)};
    float saturated = 0, plain = 0;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        auto d = ub.Alloc<half>(16);
        AscendC::WholeReduceSum(d, s, 4, 1, 1, 1, 8);
        Sync<AscendC::HardEvent::V_S>();
        saturated = float(d.GetValue(0));
        AscendC::SetSaturationFlag<SaturationMode::FLOAT>(false);
        AscendC::WholeReduceSum(d, s, 4, 1, 1, 1, 8);
        Sync<AscendC::HardEvent::V_S>();
        plain = float(d.GetValue(0));
    });
    CHECK_EQ(saturated, 35584.0f);
    CHECK(std::isinf(plain) && plain > 0);
}

// dst == src: each repeat is read before its sum is written, as the hardware streams them; a dst only 4-byte aligned
// is fine for a sum (the vendor's dst alignment for SUM is sizeof(T)); mask 0 and repeatTime 0 write nothing.
TEST(WholeReduceSum_in_place_unaligned_dst_and_nops) {
    auto v = Spread<float>(4 * 64, 11);
    std::vector<float> inPlace, shifted, nop;
    const auto stats = RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        AscendC::WholeReduceSum(s, s, 64, 4, 1, 1, 8);
        inPlace = Ub::Read(s, 8);
        auto t = ub.Load(v);
        auto d = ub.Alloc<float>(16);
        AscendC::WholeReduceSum(d[1], t, 64, 4, 2, 1, 8);
        shifted = Ub::Read(d, 16);
        auto e = ub.Alloc<float>(8);
        AscendC::WholeReduceSum(e, t, 0, 4, 1, 1, 8);
        AscendC::WholeReduceSum(e, t, 64, 0, 1, 1, 8);
        nop = Ub::Read(e, 8);
    });
    const uint64_t full[2] = {~0ull, 0};
    for (uint32_t r = 0; r < 4; ++r) {
        const double want = RefTree<float>(RefLanes(v, full, r, 1, 8));
        ExpectSame(inPlace[r], want, "in place repeat " + std::to_string(r));
        ExpectSame(shifted[1 + 2 * r], want, "dst at element 1 repeat " + std::to_string(r));
    }
    for (uint32_t r = 4; r < 8; ++r) CHECK_BITS_EQ(inPlace[r], v[r]);
    CheckTail(nop, 0, "mask 0 / repeatTime 0");
    CHECK_EQ(stats.blocks[0].vectorInstructions, 2u);  // the NOPs issue nothing
}

// ====================================================================================== BlockReduceSum

// One sum per 32-byte block (the same tree over 8 floats / 16 halves); a block with no enabled lane keeps its dst.
TEST(BlockReduceSum_float_half_per_block_tree) {
    auto f = Spread<float>(3 * 64, 21);
    uint64_t m20[2];
    CountToBits(20, m20);
    const uint64_t skip1[2] = {0xFFFFFFFFFFFF00FFull, 0};  // block 1 of 8 floats has no lane
    std::vector<float> a, b;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(f);
        auto d = ub.Alloc<float>(24);
        AscendC::BlockReduceSum(d, s, 3, 20, 1, 1, 8);
        a = Ub::Read(d, 24);
        auto e = ub.Alloc<float>(24);
        AscendC::BlockReduceSum(e, s, 3, skip1, 1, 1, 8);
        b = Ub::Read(e, 24);
    });
    const std::vector<uint8_t> untouched(4, 0xA5);
    for (uint32_t r = 0; r < 3; ++r) {
        const auto la = RefLanes(f, m20, r, 1, 8), lb = RefLanes(f, skip1, r, 1, 8);
        for (uint32_t blk = 0; blk < 8; ++blk) {
            const std::vector<double> pa(la.begin() + blk * 8, la.begin() + blk * 8 + 8);
            const std::vector<double> pb(lb.begin() + blk * 8, lb.begin() + blk * 8 + 8);
            const std::string where = " repeat " + std::to_string(r) + " block " + std::to_string(blk);
            if (blk < 3) ExpectSame(a[r * 8 + blk], RefTree<float>(pa), "mask 20" + where);
            else if (std::memcmp(&a[r * 8 + blk], untouched.data(), 4) != 0) FAIL("mask 20: block without lanes written", where);
            if (blk != 1) ExpectSame(b[r * 8 + blk], RefTree<float>(pb), "bit mask" + where);
            else if (std::memcmp(&b[r * 8 + blk], untouched.data(), 4) != 0) FAIL("bit mask: block without lanes written", where);
        }
    }
    auto h = Spread<half>(2 * 128, 22);
    std::vector<half> c;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(h);
        auto d = ub.Alloc<half>(32);
        AscendC::BlockReduceSum(d, s, 2, 128, 2, 1, 8);  // dstRepStride 2: 16 halves (32 bytes) apart
        c = Ub::Read(d, 32);
    });
    const uint64_t all[2] = {~0ull, ~0ull};
    for (uint32_t r = 0; r < 2; ++r) {
        const auto l = RefLanes(h, all, r, 1, 8);
        for (uint32_t blk = 0; blk < 8; ++blk)
            ExpectSame(c[r * 16 + blk], RefTree<half>(std::vector<double>(l.begin() + blk * 16, l.begin() + blk * 16 + 16)),
                       "half repeat " + std::to_string(r) + " block " + std::to_string(blk));
    }
    CheckTail(std::vector<half>(c.begin() + 8, c.begin() + 16), 0, "half: the gap dstRepStride leaves");
}

// ====================================================================================== ReduceSum

namespace {

// Level 2 on A2/A3 ("方式一"): the tree sum of each repeat of the first count elements, added in repeat order.
template <typename T>
double RefReduceSumCount(const std::vector<T>& v, uint32_t count) {
    double acc = 0;
    for (uint32_t base = 0; base < count; base += kLanes<T>) {
        std::vector<double> lanes(kLanes<T>, 0.0);
        for (uint32_t k = 0; base + k < count && k < kLanes<T>; ++k) lanes[k] = D(v[base + k]);
        const double s = RefTree<T>(lanes);
        acc = base == 0 ? s : RefAdd<T>(acc, s, true);
    }
    return acc;
}

// Level 0 on A2/A3 ("方式二"): repeat sums, then the tree of each kLanes of them, then the tree of those.
template <typename T>
std::vector<double> RefRepeatSums(const std::vector<T>& v, const uint64_t mask[2], uint32_t repeat, uint32_t repStride) {
    std::vector<double> sums(repeat);
    for (uint32_t r = 0; r < repeat; ++r) sums[r] = RefTree<T>(RefLanes(v, mask, r, 1, repStride));
    return sums;
}
template <typename T>
std::vector<double> RefGroupSums(const std::vector<double>& sums) {
    std::vector<double> groups;
    for (size_t g = 0; g < sums.size(); g += kLanes<T>) {
        std::vector<double> lanes(kLanes<T>, 0.0);
        for (size_t k = 0; g + k < sums.size() && k < kLanes<T>; ++k) lanes[k] = sums[g + k];
        groups.push_back(RefTree<T>(lanes));
    }
    return groups;
}

template <typename T>
void CheckReduceSumCount(uint32_t count, uint32_t seed) {
    const auto v = Spread<T>(count, seed);
    T got{};
    RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        auto d = ub.Alloc<T>(16);
        auto w = ub.Alloc<T>(16);
        AscendC::ReduceSum(d, s, w, int32_t(count));
        Sync<AscendC::HardEvent::V_S>();
        got = d.GetValue(0);
    });
    ExpectSame(got, RefReduceSumCount(v, count), std::string("ReduceSum count ") + std::to_string(count));
}

template <typename T>
void CheckReduceSumLevel0(const uint64_t mask[2], bool bitMode, uint32_t countMask, uint32_t repeat, uint32_t repStride,
                          uint32_t seed) {
    const auto v = Spread<T>(size_t(repeat - 1) * repStride * kPerBlock<T> + kLanes<T>, seed);
    std::vector<T> dst, work;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        auto d = ub.Alloc<T>(16);
        auto w = ub.Alloc<T>(repeat);
        if (bitMode) AscendC::ReduceSum(d, s, w, mask, int32_t(repeat), int32_t(repStride));
        else AscendC::ReduceSum(d, s, w, int32_t(countMask), int32_t(repeat), int32_t(repStride));
        dst = Ub::Read(d, 16);
        work = Ub::Read(w, repeat);
    });
    const std::string what = "ReduceSum level 0, repeat " + std::to_string(repeat);
    const auto sums = RefRepeatSums(v, mask, repeat, repStride);
    const auto groups = repeat > 1 ? RefGroupSums<T>(sums) : sums;
    std::vector<double> lanes(kLanes<T>, 0.0);
    std::copy(groups.begin(), groups.end(), lanes.begin());
    ExpectSame(dst[0], groups.size() == 1 ? groups[0] : RefTree<T>(lanes), what);
    CheckTail(dst, 1, what.c_str());
    // sharedTmpBuffer as the hardware leaves it: the group sums over the first repeat sums
    for (uint32_t i = 0; i < repeat; ++i)
        ExpectSame(work[i], i < groups.size() ? groups[i] : sums[i], what + " sharedTmpBuffer[" + std::to_string(i) + "]");
}

}  // namespace

TEST(ReduceSum_count_float_half_repeat_sums_in_order) {
    for (uint32_t n : {1u, 5u, 64u, 65u, 200u, 1000u, 4099u}) CheckReduceSumCount<float>(n, n);
    for (uint32_t n : {1u, 100u, 128u, 129u, 777u, 3000u}) CheckReduceSumCount<half>(n, n);
}

TEST(ReduceSum_level0_float_half_tree_of_repeat_sums) {
    uint64_t m64[2], m37[2], m128[2];
    CountToBits(64, m64);
    CountToBits(37, m37);
    CountToBits(128, m128);
    const uint64_t sparse[2] = {0x00FF00FF00FF00FFull, 0};
    for (uint32_t r : {1u, 2u, 63u, 64u, 65u, 300u}) CheckReduceSumLevel0<float>(m64, false, 64, r, 8, r);
    CheckReduceSumLevel0<float>(m37, false, 37, 130, 5, 7);
    CheckReduceSumLevel0<float>(sparse, true, 0, 70, 8, 8);
    for (uint32_t r : {1u, 129u, 260u}) CheckReduceSumLevel0<half>(m128, false, 128, r, 8, r);
}

// Repeats sums 2^24, 1, 1, 1: in repeat order (level 2) each 1 ties back to 2^24; as a tree (level 0) the two last
// ones add to 2 first: 2^24 + 2.
TEST(ReduceSum_count_and_level0_orders_differ_as_documented) {
    std::vector<float> v(256, 0.0f);
    v[0] = kTwo24;
    v[64] = v[128] = v[192] = 1.0f;
    float level2 = 0, level0 = 0;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        auto d = ub.Alloc<float>(8);
        auto w = ub.Alloc<float>(8);
        AscendC::ReduceSum(d, s, w, 256);
        Sync<AscendC::HardEvent::V_S>();
        level2 = d.GetValue(0);
        AscendC::ReduceSum(d, s, w, 64, 4, 8);
        Sync<AscendC::HardEvent::V_S>();
        level0 = d.GetValue(0);
    });
    CHECK_BITS_EQ(level2, kTwo24);
    CHECK_BITS_EQ(level0, kTwo24 + 2.0f);
}

// One vcadd for level 2 (counter mode); level 0: ceil(R/255) first-pass vcadds, one over the repeat sums, one more
// when there is more than one group of them.
TEST(Reduce_vector_instruction_counts) {
    const std::vector<float> v(300 * 64, 1.0f);
    auto count = [&](const std::function<void(Ub&, const LocalTensor<float>&)>& body) {
        return RunUb([&](Ub& ub) { body(ub, ub.Load(v)); }).blocks[0].vectorInstructions;
    };
    CHECK_EQ(count([](Ub& ub, const LocalTensor<float>& s) {
                 AscendC::ReduceSum(ub.Alloc<float>(8), s, ub.Alloc<float>(8), 300 * 64);
             }), 1u);
    CHECK_EQ(count([](Ub& ub, const LocalTensor<float>& s) {
                 AscendC::ReduceSum(ub.Alloc<float>(8), s, ub.Alloc<float>(8), 64, 1, 8);
             }), 1u);
    CHECK_EQ(count([](Ub& ub, const LocalTensor<float>& s) {
                 AscendC::ReduceSum(ub.Alloc<float>(8), s, ub.Alloc<float>(64), 64, 64, 8);
             }), 2u);
    CHECK_EQ(count([](Ub& ub, const LocalTensor<float>& s) {
                 AscendC::ReduceSum(ub.Alloc<float>(8), s, ub.Alloc<float>(300), 64, 300, 8);
             }), 4u);
    CHECK_EQ(count([](Ub& ub, const LocalTensor<float>& s) {
                 AscendC::WholeReduceSum(ub.Alloc<float>(255), s, 64, 255, 1, 1, 8);
                 AscendC::BlockReduceSum(ub.Alloc<float>(8 * 255), s, 255, 64, 1, 1, 8);
             }), 2u);
}

TEST_MAIN()
