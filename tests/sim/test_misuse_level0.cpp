// Misuse of the level-0 float arithmetic (vec_arith_level0.h): each is rejected with its ErrorKind and a message
// naming the kernel, the block, the API and the argument.
#include "twin_util.h"

using namespace tu;
using AscendC::BinaryRepeatParams;

TEST(Level0_mask_above_64_lanes) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "mask 65 is outside [0, 64] for float",
                     RunWithFloats("l0_mask", [](const LocalTensor<float>& t) {
                         AscendC::Add(t, t[1024], t[2048], uint64_t(65), 1, BinaryRepeatParams());
                     }));
    ExpectApi("l0_mask", "Add");
}

TEST(Level0_mask_registers_not_modelled) {
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "isSetMask = false",
                     RunWithFloats("l0_setmask", [](const LocalTensor<float>& t) {
                         AscendC::Sub<float, false>(t, t[1024], t[2048], uint64_t(64), 1, BinaryRepeatParams());
                     }));
    ExpectApi("l0_setmask", "Sub");
}

TEST(Level0_dst_block_stride_0) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "dstBlkStride 0 is not supported",
                     RunWithFloats("l0_blk0", [](const LocalTensor<float>& t) {
                         AscendC::Mul(t, t[1024], t[2048], uint64_t(64), 1, BinaryRepeatParams(0, 1, 1, 8, 8, 8));
                     }));
    ExpectApi("l0_blk0", "Mul");
}

TEST(Level0_src_extent_past_the_tensor) {
    // 3 repeats 8 blocks apart span 192 floats of a 128-float src1
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "src1 needs 768 bytes",
                     RunWithFloats("l0_bounds", [](const LocalTensor<float>& t) {
                         LocalTensor<float> src1 = t[2048];
                         src1.SetSize(128);
                         AscendC::Div(t, t[1024], src1, uint64_t(64), 3, BinaryRepeatParams());
                     }));
    ExpectApi("l0_bounds", "Div");
}

TEST(Level0_operand_not_32_byte_aligned) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "src0 starts at UB offset 4112, which is not 32-byte aligned",
                     RunWithFloats("l0_align", [](const LocalTensor<float>& t) {
                         AscendC::Add(t, t[1028], t[2048], uint64_t(64), 1, BinaryRepeatParams());
                     }));
    ExpectApi("l0_align", "Add");
}

TEST(Level0_partial_overlaps) {
    // src0 one block after dst: the repeats would read what earlier ones wrote
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "dst and src0 overlap, other than in place",
                     RunWithFloats("l0_overlap0", [](const LocalTensor<float>& t) {
                         AscendC::Add(t, t[8], t[2048], uint64_t(64), 2, BinaryRepeatParams());
                     }));
    ExpectApi("l0_overlap0", "Add");
    // src1 overlapping dst is defined only as an accumulation (a repeat stride of 0), and never for Div
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "neither src1RepStride nor dstRepStride is 0",
                     RunWithFloats("l0_overlap1", [](const LocalTensor<float>& t) {
                         AscendC::Sub(t, t[1024], t[8], uint64_t(64), 2, BinaryRepeatParams());
                     }));
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "dst and src1 overlap, other than in place",
                     RunWithFloats("l0_overlap_div", [](const LocalTensor<float>& t) {
                         AscendC::Div(t, t[1024], t, uint64_t(8), 2, BinaryRepeatParams(1, 1, 1, 0, 8, 0));
                     }));
    // in place over src0, but every repeat writes the same block: repeat 2 would read what repeat 1 wrote
    EXPECT_SIM_ERROR(ErrorKind::Overlap, "dst and src0 overlap, other than in place",
                     RunWithFloats("l0_overlap_rep0", [](const LocalTensor<float>& t) {
                         AscendC::Add(t, t, t[1024], uint64_t(8), 2, BinaryRepeatParams(1, 1, 1, 0, 0, 8));
                     }));
}

// The vector unit may not read a tile MTE2 is still filling (the checks every vector API shares).
TEST(Level0_reads_a_buffer_before_its_copy_is_waited_for) {
    Gm<float> host(256);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "MTE2 -> V",
                     RunBlock("l0_sync", [&] {
                         AscendC::TPipe pipe;
                         AscendC::TQue<TPosition::VECIN, 1> in;
                         AscendC::TBuf<TPosition::VECCALC> out;
                         pipe.InitBuffer(in, 1, 1024);
                         pipe.InitBuffer(out, 1024);
                         AscendC::GlobalTensor<float> gm;
                         gm.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(host.data()), 256);
                         auto x = in.AllocTensor<float>();
                         AscendC::DataCopy(x, gm, 256);
                         auto y = out.Get<float>();
                         AscendC::Mul(y, x, x, uint64_t(64), 4, BinaryRepeatParams());
                     }));
}

TEST_MAIN()
