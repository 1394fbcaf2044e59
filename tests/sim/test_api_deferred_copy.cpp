// Deferred GM -> UB copies (sim/include/actgrad_sim/deferred_copy.h): the twin may skip storing a contiguous DataCopy
// into UB, but no API, no host pointer and no later write of the GM bytes can tell. Each test checks that the copy
// was in fact deferred (the block's table of deferred copies), then that everything read afterwards is GM as it was
// at the copy.
#include "api_common.h"

namespace {

constexpr uint32_t kN = 4096;  // floats per copy (16 KiB)
constexpr uint32_t kScratch = 160 * 1024;

uint32_t CopyCount() { return actgrad_sim::tlBlock->copyCount; }
uint32_t WideningCount() { return actgrad_sim::tlBlock->deferredCount; }

template <typename T>
GlobalTensor<T> Global(const Gm<T>& gm) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm.data()), gm.size());
    return g;
}

// What UB holds, through a host pointer (which stores whatever is deferred there first).
template <typename T>
std::vector<T> Held(const LocalTensor<T>& t, uint32_t n) {
    std::vector<T> out(n);
    std::memcpy(static_cast<void*>(out.data()), t.GetPhyAddr(), n * sizeof(T));
    return out;
}

void CheckValues(const std::vector<float>& got, const std::vector<float>& want, uint32_t from, uint32_t to,
                 const char* what) {
    for (uint32_t i = from; i < to; ++i) CHECK_MSG(Same(got[i], want[i]), what, ": element ", i);
}

// One block with a TPipe and one VECCALC buffer; fn(view) hands out views of T at 256-byte steps, as Ub does.
class Scratch {
public:
    explicit Scratch(AscendC::TBuf<TPosition::VECCALC>& buf) : buf_(buf) {}
    template <typename T>
    LocalTensor<T> Get(uint32_t n) {
        const uint32_t step = (uint32_t(n * sizeof(T)) + 255) / 256 * 256;
        if (off_ + step > kScratch) FAIL("scratch exhausted");
        LocalTensor<T> t = buf_.GetWithOffset<T>(n, off_);
        off_ += step;
        return t;
    }

private:
    AscendC::TBuf<TPosition::VECCALC>& buf_;
    uint32_t off_ = 0;
};

void RunScratch(const char* name, const std::function<void(AscendC::TPipe&, Scratch&)>& fn) {
    RunBlock(name, [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, kScratch);
        Scratch s(buf);
        fn(pipe, s);
    });
}

// Every pipe waits for the others (the scratch is one buffer to the sync tracker).
void Fence() { AscendC::PipeBarrier<PIPE_ALL>(); }

// x = a copy of `in` from GM (deferred), the vector unit allowed to read it.
LocalTensor<float> CopyIn(Scratch& s, const Gm<float>& gm, uint32_t n) {
    LocalTensor<float> x = s.Get<float>(n);
    Fence();
    AscendC::DataCopy(x, Global(gm), n);
    Fence();
    return x;
}

}  // namespace

TEST(Deferred_copy_feeds_float_arithmetic_from_gm) {
    const std::vector<float> in = Cycle(FloatValues(600, 11), kN);
    const std::vector<float> other = Cycle(FloatValues(100, 12), kN);
    Gm<float> gm(in);
    RunScratch("deferred_copy_reads", [&](AscendC::TPipe&, Scratch& s) {
        LocalTensor<float> x = CopyIn(s, gm, kN);
        CHECK_EQ(CopyCount(), 1u);
        auto o = s.Get<float>(kN), muls = s.Get<float>(kN), sum = s.Get<float>(kN), sub0 = s.Get<float>(kN);
        std::memcpy(static_cast<void*>(o.GetPhyAddr()), other.data(), kN * sizeof(float));
        AscendC::Muls(muls, x, 0.375f, int32_t(kN));
        AscendC::Add(sum, x, o, int32_t(kN));
        // level 0: the second source is the copy, read one repeat of 64 lanes at a time
        AscendC::Sub(sub0, o, x, uint64_t(64), uint8_t(kN / 64), AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        CHECK_EQ(CopyCount(), 1u);  // readers that read through leave it deferred
        const auto r0 = Held(muls, kN), r1 = Held(sum, kN), r2 = Held(sub0, kN);
        for (uint32_t i = 0; i < kN; ++i) {
            CHECK_MSG(Same(r0[i], in[i] * 0.375f), "Muls, element ", i);
            CHECK_MSG(Same(r1[i], in[i] + other[i]), "Add, element ", i);
            CHECK_MSG(Same(r2[i], other[i] - in[i]), "level-0 Sub, element ", i);
        }
        CheckValues(Held(x, kN), in, 0, kN, "the copy, stored");
        CHECK_EQ(CopyCount(), 0u);
    });
}

// A write of the copied GM bytes by the block itself (in place: results over their inputs) comes after the copy on
// the NPU too: UB keeps what GM held at the copy.
TEST(Deferred_copy_is_stored_before_its_gm_is_written) {
    const std::vector<float> in = Cycle(FloatValues(300, 13), kN), replacement(kN, -7.5f);
    for (const bool bySetValue : {false, true}) {
        Gm<float> gm(in);
        RunScratch("deferred_copy_gm_write", [&](AscendC::TPipe&, Scratch& s) {
            LocalTensor<float> x = CopyIn(s, gm, kN);
            CHECK_EQ(CopyCount(), 1u);
            Fence();
            if (bySetValue) {
                Global(gm).SetValue(kN - 1, -7.5f);  // one element at the end of the copied range
            } else {
                auto y = s.Get<float>(kN);
                std::memcpy(static_cast<void*>(y.GetPhyAddr()), replacement.data(), kN * sizeof(float));
                AscendC::DataCopyPad(Global(gm)[100], y, AscendC::DataCopyExtParams{1, 400 * sizeof(float), 0, 0, 0});
            }
            Fence();
            CHECK_EQ(CopyCount(), 0u);
            auto twice = s.Get<float>(kN);
            AscendC::Muls(twice, x, 2.0f, int32_t(kN));
            const auto got = Held(twice, kN);
            for (uint32_t i = 0; i < kN; ++i) CHECK_MSG(Same(got[i], in[i] * 2.0f), bySetValue, " element ", i);
        });
        CHECK(gm[kN - 1] == -7.5f || !bySetValue);
    }
}

// bf16 copied in and widened: the widening reads the copy's GM bytes, and a later write of them stores it first.
TEST(Deferred_widening_of_a_deferred_copy_keeps_the_copied_values) {
    const std::vector<bfloat16_t> in = Cycle(Bf16Values(500, 14), kN);
    Gm<bfloat16_t> gm(in);
    Gm<bfloat16_t> replacement(std::vector<bfloat16_t>(kN, bfloat16_t(3.0f)));
    RunScratch("deferred_copy_widen", [&](AscendC::TPipe&, Scratch& s) {
        auto x = s.Get<bfloat16_t>(kN);
        AscendC::DataCopy(x, Global(gm), kN);
        Sync<AscendC::HardEvent::MTE2_V>();
        auto wide = s.Get<float>(kN);
        AscendC::Cast(wide, x, RoundMode::CAST_NONE, kN);
        CHECK_EQ(CopyCount(), 1u);
        CHECK_EQ(WideningCount(), 1u);
        AscendC::Duplicate(x, bfloat16_t(1.0f), int32_t(kN));  // the UB source overwritten: the widening reads GM
        CHECK_EQ(WideningCount(), 1u);
        auto half = s.Get<float>(kN);
        AscendC::Muls(half, wide, 0.5f, int32_t(kN));
        // the GM source rewritten by a copy out of another buffer: the widening is stored first
        auto r = s.Get<bfloat16_t>(kN);
        std::memcpy(static_cast<void*>(r.GetPhyAddr()), replacement.data(), kN * sizeof(bfloat16_t));
        Fence();
        AscendC::DataCopy(Global(gm), r, kN);
        CHECK_EQ(WideningCount(), 0u);
        const auto halves = Held(half, kN), widened = Held(wide, kN);
        for (uint32_t i = 0; i < kN; ++i) {
            const float v = float(DecodeBf16(in[i].val));
            CHECK_MSG(Same(widened[i], v), "widened, element ", i);
            CHECK_MSG(Same(halves[i], v * 0.5f), "Muls of the widening, element ", i);
        }
    });
}

TEST(Deferred_copy_is_stored_before_any_other_access) {
    const std::vector<float> in = Cycle(FloatValues(400, 15), kN), in2 = Cycle(FloatValues(50, 16), kN);
    Gm<float> gm(in), gm2(in2);
    RunScratch("deferred_copy_access", [&](AscendC::TPipe&, Scratch& s) {
        // a scalar read
        LocalTensor<float> x = s.Get<float>(kN);
        AscendC::DataCopy(x, Global(gm), kN);
        Sync<AscendC::HardEvent::MTE2_S>();
        CHECK(Same(x.GetValue(1234), in[1234]));
        CHECK_EQ(CopyCount(), 0u);
        // a partial overwrite by the vector unit keeps the rest
        x = CopyIn(s, gm, kN);
        AscendC::Duplicate(x[256], 5.0f, 256);
        auto got = Held(x, kN);
        CheckValues(got, in, 0, 256, "before the overwrite");
        for (uint32_t i = 256; i < 512; ++i) CHECK_EQ(got[i], 5.0f);
        CheckValues(got, in, 512, kN, "after the overwrite");
        // a second, shorter copy over the first (a block's last tile): the first's tail is still there
        x = CopyIn(s, gm, kN);
        AscendC::DataCopy(x, Global(gm2), kN / 4);
        Fence();
        CHECK_EQ(CopyCount(), 1u);  // the second; the first's tail stored
        got = Held(x, kN);
        CheckValues(got, in2, 0, kN / 4, "the second copy");
        CheckValues(got, in, kN / 4, kN, "the first copy's tail");
        // in place on the copy, and on a view inside it (the elements on either side stay the copy's)
        x = CopyIn(s, gm, kN);
        AscendC::Muls(x[1024], x[1024], 2.0f, 512);
        got = Held(x, kN);
        CheckValues(got, in, 0, 1024, "before the view");
        for (uint32_t i = 1024; i < 1536; ++i) CHECK_MSG(Same(got[i], in[i] * 2.0f), "in place on a view, element ", i);
        CheckValues(got, in, 1536, kN, "after the view");
        x = CopyIn(s, gm, kN);
        AscendC::Muls(x, x, 2.0f, int32_t(kN));
        CHECK_EQ(CopyCount(), 0u);  // read, then overwritten: nothing left to store
        got = Held(x, kN);
        for (uint32_t i = 0; i < kN; ++i) CHECK_MSG(Same(got[i], in[i] * 2.0f), "in place, element ", i);
        // level 0 in place with half of each repeat masked off: the other half keeps the copy's values
        x = CopyIn(s, gm, kN);
        auto ones = s.Get<float>(kN);
        AscendC::Duplicate(ones, 1.0f, int32_t(kN));
        AscendC::Add(x, x, ones, uint64_t(32), uint8_t(kN / 64), AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, 8));
        got = Held(x, kN);
        for (uint32_t i = 0; i < kN; ++i)
            CHECK_MSG(Same(got[i], i % 64 < 32 ? in[i] + 1.0f : in[i]), "level 0 in place, element ", i);
        // a reader that does not read through (ReduceSum)
        x = CopyIn(s, gm, kN);
        auto sum = s.Get<float>(8), work = s.Get<float>(kN);
        AscendC::ReduceSum<float>(sum, x, work, int32_t(kN));
        CHECK_EQ(CopyCount(), 0u);
        CheckValues(Held(x, kN), in, 0, kN, "stored for ReduceSum");
    });
}

// Select and Compare read a copied operand as it is, from GM; in place, Select stores it first.
TEST(Deferred_copy_read_by_select_and_compare) {
    const std::vector<float> in = Cycle(FloatValues(500, 19), kN), other = Cycle(FloatValues(80, 20), kN);
    Gm<float> gm(in);
    RunScratch("deferred_copy_select", [&](AscendC::TPipe&, Scratch& s) {
        auto o = s.Get<float>(kN), picked = s.Get<float>(kN), mixed = s.Get<float>(kN);
        auto lt = s.Get<uint8_t>(kN / 8), eq = s.Get<uint8_t>(kN / 8);
        std::memcpy(static_cast<void*>(o.GetPhyAddr()), other.data(), kN * sizeof(float));
        LocalTensor<float> x = CopyIn(s, gm, kN);
        AscendC::Compare(lt, x, o, CMPMODE::LT, kN);
        const int32_t pattern = int32_t(actgrad_sim::FloatBits(in[7]));  // int32 compares with EQ only
        AscendC::Compares(eq, x.ReinterpretCast<int32_t>(), pattern, CMPMODE::EQ, kN);
        AscendC::Select(picked, lt, x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kN);
        AscendC::Select(mixed, eq, x, o, SELMODE::VSEL_TENSOR_TENSOR_MODE, kN);
        CHECK_EQ(CopyCount(), 1u);
        const auto ltBits = Held(lt, kN / 8), eqBits = Held(eq, kN / 8);
        const auto p = Held(picked, kN), m = Held(mixed, kN);
        for (uint32_t i = 0; i < kN; ++i) {
            const bool less = in[i] < other[i];
            const bool same = int32_t(actgrad_sim::FloatBits(in[i])) == pattern;
            CHECK_MSG(((ltBits[i / 8] >> (i % 8)) & 1u) == uint32_t(less), "Compare LT, element ", i);
            CHECK_MSG(((eqBits[i / 8] >> (i % 8)) & 1u) == uint32_t(same), "Compares EQ (int32), element ", i);
            CHECK_MSG(Same(p[i], less ? in[i] : 0.0f), "Select with a scalar, element ", i);
            CHECK_MSG(Same(m[i], same ? in[i] : other[i]), "Select of two tensors, element ", i);
        }
        AscendC::Select(x, lt, x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, kN);  // in place
        CHECK_EQ(CopyCount(), 0u);
        const auto got = Held(x, kN);
        for (uint32_t i = 0; i < kN; ++i)
            CHECK_MSG(Same(got[i], ((ltBits[i / 8] >> (i % 8)) & 1u) ? in[i] : 0.0f), "Select in place, element ", i);
    });
}

TEST(Deferred_copies_beyond_the_table_and_across_a_tpipe_reset) {
    const uint32_t n = 1024, copies = actgrad_sim::kMaxDeferred + 3;
    const std::vector<float> in = Cycle(FloatValues(700, 17), n * copies);
    Gm<float> gm(in);
    RunScratch("deferred_copy_table", [&](AscendC::TPipe& pipe, Scratch& s) {
        std::vector<LocalTensor<float>> xs;
        for (uint32_t k = 0; k < copies; ++k) {
            xs.push_back(s.Get<float>(n));
            AscendC::DataCopy(xs.back(), Global(gm)[k * n], n);
        }
        Sync<AscendC::HardEvent::MTE2_V>();
        CHECK_EQ(CopyCount(), actgrad_sim::kMaxDeferred);
        auto sums = s.Get<float>(n);
        for (uint32_t k = 0; k < copies; ++k) {
            AscendC::Adds(sums, xs[k], 0.25f, int32_t(n));
            const auto got = Held(sums, n);
            for (uint32_t i = 0; i < n; ++i) CHECK_MSG(Same(got[i], in[k * n + i] + 0.25f), "copy ", k, " element ", i);
        }
        // TPipe::Reset hands the same UB to new buffers: the copies are stored, what they held is there
        pipe.Reset();
        CHECK_EQ(CopyCount(), 0u);
        AscendC::TBuf<TPosition::VECCALC> again;
        pipe.InitBuffer(again, kScratch);
        const auto got = Held(again.Get<float>(), n);
        CheckValues(got, in, 0, n, "after TPipe::Reset");
    });
}

// DataCopyPad of a ragged run: its data deferred, the bytes up to the next 32 bytes get the canary at once.
TEST(Deferred_copy_by_data_copy_pad_of_a_ragged_run) {
    const uint32_t n = 1003;
    const std::vector<float> in = Cycle(FloatValues(200, 18), n);
    Gm<float> gm(in);
    RunScratch("deferred_copy_pad", [&](AscendC::TPipe&, Scratch& s) {
        auto x = s.Get<float>(1008);
        AscendC::DataCopyPad(x, Global(gm), AscendC::DataCopyExtParams{1, n * sizeof(float), 0, 0, 0},
                             AscendC::DataCopyPadExtParams<float>{});
        CHECK_EQ(CopyCount(), 1u);
        std::vector<uint8_t> bytes(1008 * sizeof(float));
        std::memcpy(bytes.data(), x.GetPhyAddr(), bytes.size());
        CHECK(std::memcmp(bytes.data(), in.data(), n * sizeof(float)) == 0);
        for (uint32_t i = n * sizeof(float); i < bytes.size(); ++i)
            CHECK_MSG(bytes[i] == uint8_t(actgrad_sim::kCanaryWord >> (8 * (i % 4))), "canary byte ", i);
    });
}

TEST_MAIN()
