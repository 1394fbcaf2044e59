// The level-0 form of float Add/Sub/Mul/Div (vec_arith_level0.h) against a scalar reference of its documented
// addressing: repeat r, mask lane k = 8b + e reads and writes (r * repStride + b * blkStride) * 8 + e of each operand;
// lanes the mask leaves out, and elements no repeat reaches, keep their bytes.
#include "api_common.h"

namespace {

using AscendC::BinaryRepeatParams;

enum class Op { kAdd, kSub, kMul, kDiv };

float Apply(Op op, float a, float b) {
    switch (op) {
        case Op::kAdd: return a + b;
        case Op::kSub: return a - b;
        case Op::kMul: return a * b;
        default: return a / b;
    }
}

template <typename Mask>
void Call(Op op, const LocalTensor<float>& d, const LocalTensor<float>& a, const LocalTensor<float>& b, Mask mask,
          uint8_t repeat, const BinaryRepeatParams& p) {
    switch (op) {
        case Op::kAdd: AscendC::Add(d, a, b, mask, repeat, p); break;
        case Op::kSub: AscendC::Sub(d, a, b, mask, repeat, p); break;
        case Op::kMul: AscendC::Mul(d, a, b, mask, repeat, p); break;
        default: AscendC::Div(d, a, b, mask, repeat, p); break;
    }
}

std::vector<float> Values(uint32_t n, uint32_t seed) {
    std::vector<float> v(n);
    uint32_t x = seed * 2654435761u + 1;
    for (auto& f : v) {
        x = x * 1664525u + 1013904223u;
        f = float(int32_t(x >> 8) % 20000 - 10000) / 64.0f + 0.25f;  // never 0: Div stays finite
    }
    return v;
}

// lo: the enabled lanes of each repeat (bit k: lane k); `mask` is what the call gets (a count or the bits).
template <typename Mask>
void CheckLevel0(Op op, Mask mask, uint64_t lo, uint8_t repeat, const BinaryRepeatParams& p, const char* what) {
    const uint32_t n = 4096;
    const auto av = Values(n, 1), bv = Values(n, 2);
    std::vector<float> out;
    RunUb([&](Ub& ub) {
        auto a = ub.Load(av);
        auto b = ub.Load(bv);
        auto d = ub.Alloc<float>(n);
        Call(op, d, a, b, mask, repeat, p);
        out = Ub::Read(d, n);
    });
    std::vector<int64_t> from0(n, -1), from1(n, -1);
    for (uint32_t r = 0; r < repeat; ++r)
        for (uint32_t k = 0; k < 64; ++k) {
            if (((lo >> k) & 1u) == 0) continue;
            const uint32_t blk = k / 8, e = k % 8;
            const uint32_t at = (r * p.dstRepStride + blk * p.dstBlkStride) * 8 + e;
            from0[at] = (r * p.src0RepStride + blk * p.src0BlkStride) * 8 + e;
            from1[at] = (r * p.src1RepStride + blk * p.src1BlkStride) * 8 + e;
        }
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(out.data());
    for (uint32_t i = 0; i < n; ++i) {
        if (from0[i] >= 0) {
            const float want = Apply(op, av[size_t(from0[i])], bv[size_t(from1[i])]);
            if (th::Bits(out[i]) != th::Bits(want))
                FAIL(what, ": dst[", i, "] = ", th::Show(out[i]), ", expected ", th::Show(want));
        } else {
            for (size_t k = i * 4; k < i * 4 + 4; ++k)
                if (bytes[k] != 0xA5) FAIL(what, ": dst element ", i, ", which no enabled lane writes, changed");
        }
    }
}

const Op kOps[] = {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv};

float FloatOfBits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

}  // namespace

TEST(Level0_default_strides_count_masks) {
    for (Op op : kOps)
        for (uint64_t m : {64u, 37u, 8u, 1u})
            CheckLevel0(op, m, m == 64 ? ~0ull : (1ull << m) - 1, 3, BinaryRepeatParams(), "count mask, default strides");
}

// The row kernel's use: rows of `blocks` blocks, one repeat per row (dst/src0 repStride = blocks), each row's
// 8-lane block of src1 applied to all its lanes (src1BlkStride 0, src1RepStride 1).
TEST(Level0_src1_block_broadcast) {
    for (Op op : kOps)
        for (uint8_t blocks : {8, 3, 13}) {
            const uint64_t lanes = blocks < 8 ? blocks * 8u : 64u;
            CheckLevel0(op, lanes, lanes == 64 ? ~0ull : (1ull << lanes) - 1, 30,
                        BinaryRepeatParams(1, 1, 0, blocks, blocks, 1), "src1 block broadcast");
        }
}

TEST(Level0_bit_masks_and_strides) {
    uint64_t bits[2] = {0x00FF00F0F0F00F01ull, 0xFFFFull};  // the high word is ignored for float
    for (Op op : kOps) {
        CheckLevel0(op, bits, bits[0], 4, BinaryRepeatParams(2, 1, 3, 16, 9, 0), "bit mask, mixed strides");
        CheckLevel0(op, bits, bits[0], 2, BinaryRepeatParams(1, 0, 1, 8, 0, 8), "src0 block and repeat stride 0");
    }
}

// The float NaN rule and signed zeros are the count form's: the same bits from both forms.
TEST(Level0_same_bits_as_the_count_form) {
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                              FloatOfBits(0x7F800001u), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.0f, -3.5f};
    std::vector<float> av, bv;
    for (float x : specials)
        for (float y : specials) {
            av.push_back(x);
            bv.push_back(y);
        }
    av.resize(128, 2.0f);
    bv.resize(128, 2.0f);
    for (Op op : kOps) {
        std::vector<float> level0, count;
        RunUb([&](Ub& ub) {
            auto a = ub.Load(av);
            auto b = ub.Load(bv);
            auto d0 = ub.Alloc<float>(128);
            auto d2 = ub.Alloc<float>(128);
            Call(op, d0, a, b, uint64_t(64), 2, BinaryRepeatParams());
            switch (op) {
                case Op::kAdd: AscendC::Add(d2, a, b, 128); break;
                case Op::kSub: AscendC::Sub(d2, a, b, 128); break;
                case Op::kMul: AscendC::Mul(d2, a, b, 128); break;
                default: AscendC::Div(d2, a, b, 128); break;
            }
            level0 = Ub::Read(d0, 128);
            count = Ub::Read(d2, 128);
        });
        for (size_t i = 0; i < 128; ++i)
            if (th::Bits(level0[i]) != th::Bits(count[i]))
                FAIL("op ", int(op), " lane ", i, ": level 0 ", th::Show(level0[i]), ", count form ", th::Show(count[i]));
    }
}

// dst in place over src0 (same address and strides), and the accumulation the hardware defines: dst overlapping
// src1 with repeat stride 0, repeat by repeat.
TEST(Level0_in_place_and_accumulation) {
    const auto xv = Values(256, 3), accv = Values(8, 4);
    std::vector<float> inPlace, acc;
    RunUb([&](Ub& ub) {
        auto x = ub.Load(xv);
        auto y = ub.Load(xv);
        AscendC::Mul(x, x, y, uint64_t(64), 4, BinaryRepeatParams());
        inPlace = Ub::Read(x, 256);
        auto z = ub.Load(xv);
        auto a = ub.Load(accv);
        AscendC::Add(a, z, a, uint64_t(8), 4, BinaryRepeatParams(1, 1, 1, 0, 1, 0));
        acc = Ub::Read(a, 8);
    });
    for (size_t i = 0; i < 256; ++i) CHECK_EQ(th::Bits(inPlace[i]), th::Bits(xv[i] * xv[i]));
    for (size_t e = 0; e < 8; ++e) {
        float want = accv[e];
        for (size_t r = 0; r < 4; ++r) want = xv[r * 8 + e] + want;
        CHECK_EQ(th::Bits(acc[e]), th::Bits(want));
    }
}

// A source that is a deferred bf16 or f16 widening (Cast CAST_NONE) is read through its 16-bit source, also in place:
// the same bits as from the stored widening.
TEST(Level0_reads_deferred_widenings) {
    const auto v = Values(640, 6), w = Values(80, 7);
    for (bool half16 : {false, true}) {
        std::vector<float> out, inPlace;
        std::vector<float> wide(640);
        RunUb([&](Ub& ub) {
            auto sums = ub.Load(w);
            auto d = ub.Alloc<float>(640);
            auto x = ub.Alloc<float>(640);
            auto y = ub.Alloc<float>(640);
            const auto widen = [&](auto zero) {  // x and y: deferred widenings of v as a 16-bit type
                std::vector<decltype(zero)> h(640);
                for (size_t i = 0; i < 640; ++i) h[i] = decltype(zero)(v[i]);
                auto src = ub.Load(h);
                AscendC::Cast(x, src, AscendC::RoundMode::CAST_NONE, 640);
                AscendC::Cast(y, src, AscendC::RoundMode::CAST_NONE, 640);
                for (size_t i = 0; i < 640; ++i) wide[i] = float(h[i]);
            };
            if (half16) widen(half(0.0f));
            else widen(bfloat16_t(0.0f));
            const BinaryRepeatParams rows(1, 1, 0, 8, 8, 1);
            AscendC::Sub(d, x, sums, uint64_t(64), 10, rows);
            AscendC::Mul(y, y, sums, uint64_t(64), 10, rows);
            out = Ub::Read(d, 640);
            inPlace = Ub::Read(y, 640);
        });
        for (size_t i = 0; i < 640; ++i) {
            const float s = w[(i / 64) * 8 + i % 8];
            CHECK_EQ(th::Bits(out[i]), th::Bits(wide[i] - s));
            CHECK_EQ(th::Bits(inPlace[i]), th::Bits(wide[i] * s));
        }
    }
}

TEST(Level0_nops_and_one_instruction) {
    CheckLevel0(Op::kAdd, uint64_t(0), 0, 3, BinaryRepeatParams(), "mask 0 writes nothing");
    CheckLevel0(Op::kAdd, uint64_t(64), 0, 0, BinaryRepeatParams(), "repeatTime 0 writes nothing");
    const auto v = Values(512, 5);
    const auto stats = RunUb([&](Ub& ub) {
        auto a = ub.Load(v);
        AscendC::Sub(ub.Alloc<float>(512), a, a, uint64_t(64), 8, BinaryRepeatParams());
    });
    CHECK_EQ(stats.blocks[0].vectorInstructions, 1u);
}

TEST_MAIN()
