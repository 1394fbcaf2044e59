// Misuse of Brcb (the debug asserts of kernel_operator_vec_brcb_intf_impl.h and the vector operand checks): each is
// rejected with its ErrorKind and a message naming the kernel, the block, the API and the argument.
#include "twin_util.h"

using namespace tu;

TEST(Brcb_src_shorter_than_8_per_repeat) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "src0 holds 16 elements, fewer than 8 * repeatTime = 24",
                     RunWithFloats("brcb_src_size", [](const LocalTensor<float>& t) {
                         LocalTensor<float> src = t[1024];
                         src.SetSize(16);
                         AscendC::Brcb(t, src, 3, AscendC::BrcbRepeatParams(1, 8));
                     }));
    ExpectApi("brcb_src_size", "Brcb");
}

TEST(Brcb_src_and_dst_at_the_same_address) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "src0 and dst start at the same address",
                     RunWithFloats("brcb_same", [](const LocalTensor<float>& t) {
                         AscendC::Brcb(t, t, 1, AscendC::BrcbRepeatParams(1, 8));
                     }));
    ExpectApi("brcb_same", "Brcb");
}

TEST(Brcb_dst_blocks_past_the_tensor) {
    // 2 repeats 64 blocks apart reach block 64 + 7 + 1 = 72 (576 floats) of a 512-float dst
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "dst",
                     RunWithFloats("brcb_dst_bounds", [](const LocalTensor<float>& t) {
                         LocalTensor<float> dst = t;
                         dst.SetSize(512);
                         AscendC::Brcb(dst, t[2048], 2, AscendC::BrcbRepeatParams(1, 64));
                     }));
    ExpectApi("brcb_dst_bounds", "Brcb");
}

TEST(Brcb_dst_not_32_byte_aligned) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "dst starts at UB offset 16, which is not 32-byte aligned",
                     RunWithFloats("brcb_align", [](const LocalTensor<float>& t) {
                         AscendC::Brcb(t[4], t[1024], 1, AscendC::BrcbRepeatParams(1, 8));
                     }));
    ExpectApi("brcb_align", "Brcb");
}

TEST(Brcb_dst_block_stride_0) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "dstBlkStride 0 is not supported",
                     RunWithFloats("brcb_blk0", [](const LocalTensor<float>& t) {
                         AscendC::Brcb(t, t[1024], 1, AscendC::BrcbRepeatParams(0, 8));
                     }));
    ExpectApi("brcb_blk0", "Brcb");
}

TEST(Brcb_src_overlapping_dst) {
    // src0 starts 64 floats into the 2 * 8 blocks (128 floats) dst spans
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "the 64 bytes src0 reads overlap the 512 bytes dst spans",
                     RunWithFloats("brcb_overlap", [](const LocalTensor<float>& t) {
                         AscendC::Brcb(t, t[64], 2, AscendC::BrcbRepeatParams(1, 8));
                     }));
    ExpectApi("brcb_overlap", "Brcb");
}

TEST_MAIN()
