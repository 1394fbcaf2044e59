// Brcb (level 0, kernel_operator_vec_brcb_intf.h) against a scalar reference of its documented semantics: repeat i
// takes src0[8i .. 8i+7] and fills block j of dst, at (i * dstRepStride + j * dstBlkStride) blocks, with src0[8i + j];
// every other byte of dst stays as it was.
#include "api_common.h"

namespace {

// Runs Brcb on src with the given strides over a dst of dstN elements pre-filled with 0xA5 bytes, and checks every
// element of dst against the reference.
template <typename T>
void CheckBrcb(const std::vector<T>& src, uint8_t repeat, uint16_t blkStride, uint16_t repStride, uint32_t dstN,
               const char* what) {
    constexpr uint32_t E = 32 / sizeof(T);
    std::vector<T> out;
    RunUb([&](Ub& ub) {
        auto s = ub.Load(src);
        auto d = ub.Alloc<T>(dstN);
        AscendC::Brcb(d, s, repeat, AscendC::BrcbRepeatParams(blkStride, repStride));
        out = Ub::Read(d, dstN);
    });
    std::vector<int64_t> from(dstN, -1);  // the src index each dst element should hold, -1: untouched
    const uint32_t blk = blkStride == 0 ? 1 : blkStride;
    for (uint32_t i = 0; i < repeat; ++i)
        for (uint32_t j = 0; j < 8; ++j)
            for (uint32_t k = 0; k < E; ++k) from[(i * repStride + j * blk) * E + k] = 8 * i + j;
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(out.data());
    for (uint32_t e = 0; e < dstN; ++e) {
        if (from[e] >= 0) {
            if (th::Bits(out[e]) != th::Bits(src[size_t(from[e])]))
                FAIL(what, ": dst[", e, "] = ", th::Show(out[e]), ", expected src0[", from[e], "] = ",
                     th::Show(src[size_t(from[e])]));
        } else {
            for (size_t b = e * sizeof(T); b < (e + 1) * sizeof(T); ++b)
                if (bytes[b] != 0xA5) FAIL(what, ": dst element ", e, " outside the written blocks changed");
        }
    }
}

template <typename T>
std::vector<T> Ramp(uint32_t n) {
    std::vector<T> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = T(float(i) * 0.5f - 7.0f);
    return v;
}

}  // namespace

// The default strides: 8 blocks per repeat, one after the other (64 floats / 128 halves per repeat).
TEST(Brcb_float_half_default_strides) {
    CheckBrcb(Ramp<float>(24), 3, 1, 8, 3 * 64 + 16, "float, 3 repeats");
    CheckBrcb(Ramp<half>(16), 2, 1, 8, 2 * 128 + 32, "half, 2 repeats");
}

// The row-sum layout of the row kernels: one block per row of `blocks` blocks, 8 rows per repeat, the call for
// block k of every row; gaps between the written blocks stay untouched. Also a repeat stride below the blocks a
// repeat spans (the next repeat overwrites).
TEST(Brcb_block_and_repeat_strides) {
    for (uint16_t blocks : {2, 3, 8}) {
        const uint8_t repeats = 5;
        CheckBrcb(Ramp<float>(8 * repeats), repeats, blocks, uint16_t(8 * blocks), 8 * repeats * blocks * 8,
                  ("float rows of " + std::to_string(blocks) + " blocks").c_str());
    }
    CheckBrcb(Ramp<bfloat16_t>(32), 4, 3, 24, 4 * 24 * 16, "bfloat16, strides 3/24");
    CheckBrcb(Ramp<float>(16), 2, 1, 4, 16 * 8, "float, repeats 4 blocks apart");
}

TEST(Brcb_repeat_255_and_nop) {
    CheckBrcb(Ramp<float>(255 * 8), 255, 1, 8, 255 * 64, "float, 255 repeats");
    CheckBrcb(Ramp<float>(8), 0, 1, 8, 64, "repeatTime 0 writes nothing");
}

TEST(Brcb_counts_one_vector_instruction) {
    const auto v = Ramp<float>(64);
    const auto stats = RunUb([&](Ub& ub) {
        auto s = ub.Load(v);
        AscendC::Brcb(ub.Alloc<float>(8 * 64), s, 8, AscendC::BrcbRepeatParams(1, 8));
    });
    CHECK_EQ(stats.blocks[0].vectorInstructions, 1u);
}

TEST_MAIN()
