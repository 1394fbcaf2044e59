// Brcb (kernel_operator_vec_brcb_intf.h, kernel_struct_brcb.h; level 0, 16- and 32-bit types): each repeat takes the
// next 8 elements of src0 and fills one 32-byte block of dst with each. Repeat i writes src0[8i + j] over block j at
// dst + (i * dstRepStride + j * dstBlkStride) blocks. The vendor implementation resets the mask: every lane of a
// block is written. Checks: the intf's debug asserts (src0 holds at least 8 * repeatTime elements, src0 and dst do not
// start at the same address) and the API reference's constraints, whose breach it calls undefined: dstBlkStride 0 is
// not supported (the CPU-debug build only warns and runs it as 1), and src0 and dst may not share memory, so any
// overlap of the elements read and the blocks written is rejected.
#pragma once
#include "operand_checks.h"
#include "vec_arith.h"

namespace AscendC {

struct BrcbRepeatParams {
    BrcbRepeatParams() {}
    BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
        : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}

    uint32_t blockNumber = 8;
    uint16_t dstRepStride = 8;  // blocks between repeats
    uint16_t dstBlkStride = 1;  // blocks between the 8 blocks of a repeat
    uint8_t src0BlkStride = 1;  // the fields below are not used by Brcb
    uint8_t src1BlkStride = 1;
    uint8_t src0RepStride = 8;
    uint8_t src1RepStride = 8;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

template <typename T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t repeatTime,
          const BrcbRepeatParams& repeatParams) {
    static_assert(actgrad_sim::OneOf<T, int16_t, uint16_t, int32_t, uint32_t, half, bfloat16_t, float>,
                  "Brcb: unsupported dtype (16- and 32-bit types on A2/A3)");
    const char* api = "Brcb";
    actgrad_sim::Block(api);
    constexpr uint32_t E = actgrad_sim::kBlockBytes / sizeof(T);
    if (src0.GetSize() < 8ull * repeatTime)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "src0 holds ", src0.GetSize(),
                          " elements, fewer than 8 * repeatTime = ", 8u * repeatTime);
    if (src0.GetPhyAddr() == dst.GetPhyAddr())
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api,
                          "src0 and dst start at the same address (Brcb does not support it)");
    if (repeatTime == 0) {  // a NOP, nothing read or written
        actgrad_sim::CheckUbOperand(src0, 0, api, "src0");
        actgrad_sim::CheckUbOperand(dst, 0, api, "dst");
        return;
    }
    if (repeatParams.dstBlkStride == 0)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api,
                          "dstBlkStride 0 is not supported (undefined on the hardware; expected 1 or more)");
    const uint64_t blk = repeatParams.dstBlkStride;
    const uint64_t rep = repeatParams.dstRepStride;
    const uint64_t dstBlocks = (uint64_t(repeatTime) - 1) * rep + 7 * blk + 1;
    const uint8_t* read = src0.BytePtr();
    const uint8_t* written = dst.BytePtr();
    const uint64_t readBytes = 8ull * repeatTime * sizeof(T), writtenBytes = dstBlocks * actgrad_sim::kBlockBytes;
    if (read < written + writtenBytes && written < read + readBytes)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "the ", readBytes, " bytes src0 reads overlap the ",
                          writtenBytes, " bytes dst spans (Brcb's src0 and dst may not share memory)");
    actgrad_sim::CheckVectorOperand(src0, readBytes, api, "src0", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(dst, writtenBytes, api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CountVectorInstruction();
    const T* s = src0.Data();
    T* d = dst.Data();
    for (uint64_t i = 0; i < repeatTime; ++i) {
        T v[8];  // a repeat reads its 8 elements before it writes
        for (uint32_t j = 0; j < 8; ++j) v[j] = s[8 * i + j];
        for (uint32_t j = 0; j < 8; ++j) {
            T* out = d + (i * rep + j * blk) * E;
            for (uint32_t k = 0; k < E; ++k) out[k] = v[j];
        }
    }
}

}  // namespace AscendC
