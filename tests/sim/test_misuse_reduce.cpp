// Misuse of the sum reductions (the vendor CPU-debug checks of kernel_vec_reduce_check.cpp and the reduce intf): each
// is rejected with its ErrorKind and a message naming the kernel, the block, the API and the argument.
#include "twin_util.h"

using namespace tu;
using AscendC::TBuf;
using AscendC::TPipe;

TEST(WholeReduceSum_src_not_32_byte_aligned) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "src starts at UB offset 16, which is not 32-byte aligned",
                     RunWithFloats("whole_src_align", [](const LocalTensor<float>& t) {
                         AscendC::WholeReduceSum(t[1024], t[4], 64, 1, 1, 1, 8);
                     }));
    ExpectApi("whole_src_align", "WholeReduceSum");
}

// a sum's dst needs sizeof(T) alignment only; BlockReduceSum's needs 8 elements (32 bytes for float)
TEST(BlockReduceSum_dst_not_32_byte_aligned) {
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "dst starts at UB offset 4112, which is not 32-byte aligned",
                     RunWithFloats("block_dst_align", [](const LocalTensor<float>& t) {
                         AscendC::BlockReduceSum(t[1028], t, 1, 64, 1, 1, 8);
                     }));
    ExpectApi("block_dst_align", "BlockReduceSum");
}

TEST(WholeReduceSum_mask_and_repeat_and_stride_ranges) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "mask 65 is outside [0, 64] for float",
                     RunWithFloats("whole_mask", [](const LocalTensor<float>& t) {
                         AscendC::WholeReduceSum(t[2048], t, 65, 1, 1, 1, 8);
                     }));
    ExpectApi("whole_mask", "WholeReduceSum");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "mask 129 is outside [0, 128] for half", RunBlock("whole_mask_half", [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 4096);
        auto t = b.Get<half>();
        AscendC::WholeReduceSum(t[1024], t, 129, 1, 1, 1, 8);
    }));
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "repeatTime 256 is outside [0, 255]",
                     RunWithFloats("whole_repeat", [](const LocalTensor<float>& t) {
                         AscendC::WholeReduceSum(t, t, 8, 256, 1, 1, 1);
                     }));
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "srcRepStride -1 is outside [0, 65535]",
                     RunWithFloats("whole_stride", [](const LocalTensor<float>& t) {
                         AscendC::WholeReduceSum(t[2048], t, 8, 2, 1, 1, -1);
                     }));
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "mask[] is a null pointer",
                     RunWithFloats("whole_null_mask", [](const LocalTensor<float>& t) {
                         const uint64_t* none = nullptr;
                         AscendC::WholeReduceSum(t[2048], t, none, 1, 1, 1, 8);
                     }));
}

// The level-0 extent: the last repeat's last enabled lane must lie in src; the last sum in dst.
TEST(WholeReduceSum_src_and_dst_extent) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "src needs 16388 bytes but the tensor has only 16384",
                     RunWithFloats("whole_src_extent", [](const LocalTensor<float>& t) {
                         AscendC::WholeReduceSum(t, t, 1, 129, 1, 1, 4);  // repeat 128 reads element 4096
                     }));
    ExpectApi("whole_src_extent", "WholeReduceSum");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "dst needs 20 bytes but the tensor has only 16",
                     RunWithFloats("whole_dst_extent", [](const LocalTensor<float>& t) {
                         auto d = t[4088];  // 8 floats left; dstRepStride 2 puts the third sum at element 4
                         d.SetSize(4);
                         AscendC::WholeReduceSum(d, t, 64, 3, 2, 1, 8);
                     }));
}

TEST(ReduceSum_count_range_and_operands) {
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "count 0 is outside [1, 49152]",
                     RunWithFloats("sum_count0", [](const LocalTensor<float>& t) { AscendC::ReduceSum(t[2048], t, t[3072], 0); }));
    ExpectApi("sum_count0", "ReduceSum");
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "src needs 16388 bytes but the tensor has only 16384",
                     RunWithFloats("sum_count_src", [](const LocalTensor<float>& t) { AscendC::ReduceSum(t, t, t, 4097); }));
    EXPECT_SIM_ERROR(ErrorKind::Alignment, "sharedTmpBuffer starts at UB offset 8",
                     RunWithFloats("sum_work_align", [](const LocalTensor<float>& t) { AscendC::ReduceSum(t[2048], t, t[2], 64); }));
}

// Level 0: sharedTmpBuffer holds one sum per repeat (repeatTime elements).
TEST(ReduceSum_level0_work_too_small_and_ranges) {
    EXPECT_SIM_ERROR(ErrorKind::OutOfBounds, "sharedTmpBuffer needs 40 bytes but the tensor has only 32",
                     RunWithFloats("sum_work_small", [](const LocalTensor<float>& t) {
                         auto w = t[2048];
                         w.SetSize(8);
                         AscendC::ReduceSum(t[3072], t, w, 64, 10, 8);
                     }));
    ExpectApi("sum_work_small", "ReduceSum");
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "repeatTime -3 is outside",
                     RunWithFloats("sum_repeat_neg", [](const LocalTensor<float>& t) { AscendC::ReduceSum(t[3072], t, t[2048], 64, -3, 8); }));
    EXPECT_SIM_ERROR(ErrorKind::InvalidArgument, "mask -1 is outside [0, 64]",
                     RunWithFloats("sum_mask_neg", [](const LocalTensor<float>& t) { AscendC::ReduceSum(t[3072], t, t[2048], -1, 2, 8); }));
}

// The reductions go through the operand checks of every vector API: use after FreeTensor, missing MTE2 -> V sync.
TEST(Reductions_use_after_free_and_missing_sync) {
    EXPECT_SIM_ERROR(ErrorKind::UseAfterFree, "released by FreeTensor", RunBlock("sum_freed", [] {
        TPipe pipe;
        AscendC::TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        auto t = q.AllocTensor<float>();
        q.FreeTensor(t);
        AscendC::WholeReduceSum(t, t, 64, 1, 1, 1, 8);
    }));
    ExpectApi("sum_freed", "WholeReduceSum");
    Gm<float> g(256);
    EXPECT_SIM_ERROR(ErrorKind::MissingSync, "MTE2 -> V synchronisation is missing", RunBlock("sum_nosync", [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> b;
        pipe.InitBuffer(b, 1024);
        auto t = b.Get<float>();
        GlobalTensor<float> x;
        x.SetGlobalBuffer(g.data(), 256);
        AscendC::DataCopy(t, x, 64);
        AscendC::ReduceSum(t[128], t, t[192], 64);
    }));
    ExpectApi("sum_nosync", "ReduceSum");
}

TEST_MAIN()
