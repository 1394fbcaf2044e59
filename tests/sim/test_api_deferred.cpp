// Deferred bf16/f16 -> f32 widening (sim/include/actgrad_sim/deferred_widen.h): the twin may skip storing a widening
// Cast, but no API and no host pointer can tell. Each test checks that the Cast was in fact deferred (the block's table
// of deferred widenings), then that what it reads afterwards is the exact widening of the 16-bit values as they were
// at the Cast, against a reference decoded independently of sim/include.
#include "api_common.h"

namespace {

constexpr uint32_t kChunk = 4096;  // 16-bit patterns per UB round

uint32_t DeferredCount() { return actgrad_sim::tlBlock->deferredCount; }

float Wide(bfloat16_t b) { return float(DecodeBf16(b.val)); }
float Wide(half h) { return float(DecodeHalf(h.val)); }
const char* Name(bfloat16_t) { return "bf16 "; }
const char* Name(half) { return "f16 "; }

bool MaskBit(const std::vector<uint8_t>& m, uint32_t i) { return (m[i / 8] >> (i % 8)) & 1u; }

// Every pattern of T (bf16 or f16), kChunk at a time (twice): fn(ub, the chunk's values, a deferred f32 widening of
// them).
template <typename T>
void ForEachPatternChunk(const std::function<void(Ub&, const std::vector<T>&, LocalTensor<float>&)>& fn) {
    RunUb([&](Ub& ub) {
        // twice, the second time shifted by 9 elements: the specials (0x7f80, 0x7f81, ...) sit at the start of a
        // 128-pattern run, so they meet the vector loops' first and their second half of 8 lanes
        for (uint32_t pass = 0; pass < 2 * 65536; pass += kChunk) {
            const uint32_t first = pass % 65536, shift = pass < 65536 ? 0 : 9;
            ub.Reset();
            std::vector<T> in(kChunk);
            for (uint32_t i = 0; i < kChunk; ++i) in[i] = T::FromBits(uint16_t(first + (i + kChunk - shift) % kChunk));
            auto src = ub.Load(in);
            auto wide = ub.Alloc<float>(kChunk);
            AscendC::Cast(wide, src, RoundMode::CAST_NONE, kChunk);
            CHECK_EQ(DeferredCount(), 1u);
            fn(ub, in, wide);
        }
    });
}

// Bounds on either side of zero, signed zeros, subnormals, the ends of the range, values between two bf16, and f16's
// largest value and smallest subnormal with their neighbours.
const float kBounds[] = {-2.5f, 0.0f,   -0.0f,   2.5f,          3.0000002f,     -3.0000002f,
                         1e-40f, -1e-40f, 3.4028235e38f, -3.4028235e38f, INFINITY, -INFINITY,
                         65504.0f, -65504.0f, 65505.0f, 5.9604645e-08f, 5.9604648e-08f, -5.9604642e-08f};

template <typename T>
void CheckCompares() {
    ForEachPatternChunk<T>([&](Ub& ub, const std::vector<T>& in, LocalTensor<float>& wide) {
        // against a bound, or against itself (decided by NaN alone)
        const auto check = [&](CMPMODE mode, float bound, bool self) {
            auto mask = ub.Alloc<uint8_t>(kChunk / 8);
            if (self) AscendC::Compare(mask, wide, wide, mode, kChunk);
            else AscendC::Compares(mask, wide, bound, mode, kChunk);
            const auto bits = Ub::Read(mask, kChunk / 8);
            for (uint32_t i = 0; i < kChunk; ++i) {
                const float x = Wide(in[i]), y = self ? x : bound;
                const bool want = mode == CMPMODE::LT ? x < y : mode == CMPMODE::GT ? x > y
                                : mode == CMPMODE::EQ ? x == y : mode == CMPMODE::LE ? x <= y
                                : mode == CMPMODE::GE ? x >= y : !(x == y);
                CHECK_MSG(MaskBit(bits, i) == want, actgrad_sim::CmpModeName(mode), " of ", Name(in[i]),
                          th::Hex(in[i].val), self ? " against itself" : " against ", bound);
            }
        };
        for (CMPMODE mode : {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE}) {
            for (const float bound : kBounds) check(mode, bound, false);
            check(mode, 0.0f, true);
        }
        CHECK_EQ(DeferredCount(), 1u);  // the compares widened as they read
        const auto stored = Ub::Read(wide, kChunk);  // a host pointer: stored now
        CHECK_EQ(DeferredCount(), 0u);
        for (uint32_t i = 0; i < kChunk; ++i) CHECK_MSG(Same(stored[i], Wide(in[i])), Name(in[i]), th::Hex(in[i].val));
    });
}

template <typename T>
void CheckArithmetic() {
    const float scale = 0.1666667f, offset = 0.75f;
    ForEachPatternChunk<T>([&](Ub& ub, const std::vector<T>& in, LocalTensor<float>& wide) {
        auto other = ub.Load(Cycle(FloatValues(100, 9), kChunk));
        auto muls = ub.Alloc<float>(kChunk), adds = ub.Alloc<float>(kChunk), mul = ub.Alloc<float>(kChunk);
        auto sq = ub.Alloc<float>(kChunk);
        AscendC::Muls(muls, wide, scale, int32_t(kChunk));
        AscendC::Adds(adds, wide, offset, int32_t(kChunk));
        AscendC::Mul(mul, other, wide, int32_t(kChunk));
        AscendC::Mul(sq, wide, wide, int32_t(kChunk));
        CHECK_EQ(DeferredCount(), 1u);  // readers that widen as they load leave it deferred
        const auto o = Ub::Read(other, kChunk), r0 = Ub::Read(muls, kChunk), r1 = Ub::Read(adds, kChunk);
        const auto r2 = Ub::Read(mul, kChunk), r3 = Ub::Read(sq, kChunk);
        for (uint32_t i = 0; i < kChunk; ++i) {
            const float x = Wide(in[i]);
            CHECK_MSG(Same(r0[i], x * scale), "Muls of ", Name(in[i]), th::Hex(in[i].val));
            CHECK_MSG(Same(r1[i], x + offset), "Adds of ", Name(in[i]), th::Hex(in[i].val));
            CHECK_MSG(Same(r2[i], o[i] * x), "Mul of ", Name(in[i]), th::Hex(in[i].val));
            CHECK_MSG(Same(r3[i], x * x), "Mul (squared) of ", Name(in[i]), th::Hex(in[i].val));
        }
    });
}

// An f16 source read by an instruction that does not widen as it loads (Exp): the widening is stored first
void CheckExpOfDeferredHalf() {
    ForEachPatternChunk<half>([&](Ub& ub, const std::vector<half>& in, LocalTensor<float>& wide) {
        auto e = ub.Alloc<float>(kChunk);
        AscendC::Exp(e, wide, int32_t(kChunk));
        CHECK_EQ(DeferredCount(), 0u);
        const auto stored = Ub::Read(wide, kChunk);
        for (uint32_t i = 0; i < kChunk; ++i) CHECK_MSG(Same(stored[i], Wide(in[i])), "f16 ", th::Hex(in[i].val));
    });
}

}  // namespace

TEST(Deferred_widening_compares_like_the_stored_floats) {
    CheckCompares<bfloat16_t>();
    CheckCompares<half>();
}

TEST(Deferred_widening_feeds_float_arithmetic) {
    CheckArithmetic<bfloat16_t>();
    CheckArithmetic<half>();
    CheckExpOfDeferredHalf();
}

TEST(Deferred_widening_is_stored_before_any_other_access) {
    const uint32_t n = 1024;
    const std::vector<bfloat16_t> in = Cycle(Bf16Values(300), n);
    auto expectWidened = [&](const std::vector<float>& got, uint32_t from, uint32_t to, const char* what) {
        for (uint32_t i = from; i < to; ++i) CHECK_MSG(Same(got[i], Wide(in[i])), what, ": element ", i);
    };
    RunUb([&](Ub& ub) {
        // a scalar read
        auto src = ub.Load(in);
        auto wide = ub.Alloc<float>(n);
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        CHECK_EQ(DeferredCount(), 1u);
        Sync<AscendC::HardEvent::V_S>();
        CHECK(Same(wide.GetValue(7), Wide(in[7])));
        CHECK(Same(wide.GetValue(1000), Wide(in[1000])));
        // an instruction that does not widen as it reads (Select), after the bf16 source was overwritten
        ub.Reset();
        src = ub.Load(in);
        wide = ub.Alloc<float>(n);
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        AscendC::Duplicate(src, bfloat16_t(2.0f), int32_t(n));
        auto all = ub.Alloc<uint8_t>(n / 8, 0xFF);
        auto picked = ub.Alloc<float>(n);
        AscendC::Select(picked, all, wide, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
        expectWidened(Ub::Read(picked, n), 0, n, "Select after the source was overwritten");
        // a partial overwrite of the float result keeps the rest
        ub.Reset();
        src = ub.Load(in);
        wide = ub.Alloc<float>(n);
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        AscendC::Duplicate(wide, 5.0f, 256);
        auto got = Ub::Read(wide, n);
        for (uint32_t i = 0; i < 256; ++i) CHECK_EQ(got[i], 5.0f);
        expectWidened(got, 256, n, "after a partial overwrite");
        // a second, shorter Cast over the first (a block's last tile): the first's tail is still there
        ub.Reset();
        src = ub.Load(in);
        auto src2 = ub.Load(std::vector<bfloat16_t>(n, bfloat16_t(-3.0f)));
        wide = ub.Alloc<float>(n);
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        AscendC::Cast(wide, src2, RoundMode::CAST_NONE, 300);
        auto keep = ub.Alloc<uint8_t>(n / 8);
        AscendC::Compares(keep, wide, -3.0f, CMPMODE::EQ, 320);  // reads 20 lanes past the second Cast
        const auto bits = Ub::Read(keep, 320 / 8);
        for (uint32_t i = 0; i < 320; ++i) CHECK_EQ(MaskBit(bits, i), i < 300 || Wide(in[i]) == -3.0f);
        got = Ub::Read(wide, n);
        for (uint32_t i = 0; i < 300; ++i) CHECK_EQ(got[i], -3.0f);
        expectWidened(got, 300, n, "tail of the first Cast");
        // in place on the deferred result, and a reader of a view inside it
        ub.Reset();
        src = ub.Load(in);
        wide = ub.Alloc<float>(n);
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        auto part = ub.Alloc<float>(512);
        AscendC::Muls(part, wide[256], 2.0f, 512);
        AscendC::Muls(wide, wide, 2.0f, int32_t(n));
        CHECK_EQ(DeferredCount(), 0u);  // read as it was widened, then overwritten: nothing left to store
        const auto partGot = Ub::Read(part, 512);
        got = Ub::Read(wide, n);
        for (uint32_t i = 0; i < n; ++i) CHECK_MSG(Same(got[i], Wide(in[i]) * 2.0f), "in place, element ", i);
        for (uint32_t i = 0; i < 512; ++i) CHECK_MSG(Same(partGot[i], Wide(in[256 + i]) * 2.0f), "view, element ", i);
        // in place on a view inside the deferred result (binary and unary): the elements on either side stay deferred
        ub.Reset();
        src = ub.Load(in);
        wide = ub.Alloc<float>(n);
        auto other = ub.Load(Cycle(FloatValues(100, 5), 512));
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        AscendC::Mul(wide[256], other, wide[256], 512);
        AscendC::Abs(wide[256], wide[256], 512);
        CHECK_EQ(DeferredCount(), 2u);
        const auto o = Ub::Read(other, 512);
        got = Ub::Read(wide, n);
        for (uint32_t i = 256; i < 768; ++i)
            CHECK_MSG(Same(got[i], std::fabs(o[i - 256] * Wide(in[i]))), "in place on a view, element ", i);
        expectWidened(got, 0, 256, "before the view");
        expectWidened(got, 768, n, "after the view");
        // level 0 in place with half of each repeat masked off: the other half keeps the widened values
        ub.Reset();
        src = ub.Load(in);
        wide = ub.Alloc<float>(n);
        auto ones = ub.Load(std::vector<float>(n, 1.0f));
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        AscendC::Add(wide, wide, ones, uint64_t(32), uint8_t(n / 64), AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        got = Ub::Read(wide, n);
        for (uint32_t i = 0; i < n; ++i)
            CHECK_MSG(Same(got[i], i % 64 < 32 ? Wide(in[i]) + 1.0f : Wide(in[i])), "level 0 in place, element ", i);
        // more deferred widenings than the table holds
        ub.Reset();
        src = ub.Load(in);
        std::vector<LocalTensor<float>> wides;
        for (uint32_t k = 0; k < actgrad_sim::kMaxDeferred + 3; ++k) {
            wides.push_back(ub.Alloc<float>(n / 4));
            AscendC::Cast(wides.back(), src[k * 64], RoundMode::CAST_NONE, n / 4);
        }
        CHECK_EQ(DeferredCount(), actgrad_sim::kMaxDeferred);
        for (uint32_t k = 0; k < wides.size(); ++k) {
            got = Ub::Read(wides[k], n / 4);
            for (uint32_t i = 0; i < n / 4; ++i) CHECK_MSG(Same(got[i], Wide(in[k * 64 + i])), "widening ", k, " element ", i);
        }
    });
}

namespace {

// A one-block kernel whose TPipe holds `in` in one TBuf and its deferred widening in another: fn(pipe, src, wide).
void WithDeferredWidening(const char* kernel, const std::vector<bfloat16_t>& in,
                          const std::function<void(AscendC::TPipe&, LocalTensor<bfloat16_t>&, LocalTensor<float>&)>& fn) {
    const uint32_t n = uint32_t(in.size());
    RunBlock(kernel, [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> srcBuf, wideBuf;
        pipe.InitBuffer(srcBuf, n * sizeof(bfloat16_t));
        pipe.InitBuffer(wideBuf, n * sizeof(float));
        auto src = srcBuf.Get<bfloat16_t>();
        auto wide = wideBuf.Get<float>();
        std::memcpy(static_cast<void*>(src.GetPhyAddr()), in.data(), n * sizeof(bfloat16_t));
        AscendC::Cast(wide, src, RoundMode::CAST_NONE, n);
        CHECK_EQ(DeferredCount(), 1u);
        fn(pipe, src, wide);
    });
}

// Widens `in` (deferred), optionally refills the bf16 source by DataCopy, then copies the floats out to GM.
std::vector<float> WidenAndCopyOut(const std::vector<bfloat16_t>& in, bool refillSource) {
    const uint32_t n = uint32_t(in.size());
    Gm<float> out(n);
    Gm<bfloat16_t> refill(std::vector<bfloat16_t>(n, bfloat16_t(1.0f)));
    WithDeferredWidening("deferred_dma", in, [&](AscendC::TPipe&, LocalTensor<bfloat16_t>& src, LocalTensor<float>& wide) {
        if (refillSource) {  // a copy into the bf16 source must not change the widening
            AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);
            AscendC::GlobalTensor<bfloat16_t> refillGm;
            refillGm.SetGlobalBuffer(reinterpret_cast<__gm__ bfloat16_t*>(refill.data()), n);
            AscendC::DataCopy(src, refillGm, n);
            CHECK_EQ(DeferredCount(), 0u);
        }
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(0);
        AscendC::GlobalTensor<float> outGm;
        outGm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out.data()), n);
        AscendC::DataCopy(outGm, wide, n);
        CHECK_EQ(DeferredCount(), 0u);
    });
    return out.vec();
}

}  // namespace

// TPipe::Reset hands the same UB to new buffers: a widening deferred in the old ones is neither lost nor stored
// later over what the new buffers' instructions wrote there (the operand checks of new buffers still see it).
TEST(Deferred_widening_outlives_a_tpipe_reset) {
    const uint32_t n = 1024;
    std::vector<bfloat16_t> in(n);
    for (uint32_t i = 0; i < n; ++i) in[i] = bfloat16_t::FromBits(uint16_t(0x3f00 + i));
    WithDeferredWidening("deferred_reset", in, [&](AscendC::TPipe& pipe, LocalTensor<bfloat16_t>&, LocalTensor<float>&) {
        pipe.Reset();
        AscendC::TBuf<TPosition::VECCALC> sameAsSrc, sameAsWide;
        pipe.InitBuffer(sameAsSrc, n * sizeof(bfloat16_t));
        pipe.InitBuffer(sameAsWide, n * sizeof(float));
        auto wide = sameAsWide.Get<float>();
        AscendC::Duplicate(wide, 7.0f, int32_t(n / 2));  // half of the widened floats, replaced
        AscendC::Duplicate(sameAsSrc.Get<half>(), half(1.0f), int32_t(n));  // the bf16 source, overwritten
        const auto got = Ub::Read(wide, n);
        for (uint32_t i = 0; i < n / 2; ++i) CHECK_MSG(got[i] == 7.0f, "element ", i);
        for (uint32_t i = n / 2; i < n; ++i) CHECK_MSG(Same(got[i], Wide(in[i])), "element ", i);
    });
}

TEST(Deferred_widening_is_stored_before_copies_in_and_out) {
    for (bool refill : {true, false}) {
        const std::vector<bfloat16_t> in = Cycle(Bf16Values(200, refill ? 3 : 5), 512);
        const std::vector<float> out = WidenAndCopyOut(in, refill);
        for (uint32_t i = 0; i < in.size(); ++i) CHECK_MSG(Same(out[i], Wide(in[i])), "refill ", refill, " element ", i);
    }
}

TEST_MAIN()
