// A double-buffered elementwise add in the style of the Ascend C samples: each block takes a contiguous range,
// streams it through UB in tiles (CopyIn / Compute / CopyOut), and moves the unaligned tail with DataCopyPad.
#pragma once
#include "kernel_operator.h"

struct AddTiling {
    uint32_t totalLength;  // elements
    uint32_t tileLength;   // elements per tile, a multiple of 8 (32 bytes of float)
};

class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddTiling& t) {
        // 32-byte units split over the blocks; the last block also takes the remainder
        const uint32_t units = (t.totalLength + 7) / 8;
        const uint32_t perBlock = (units + AscendC::GetBlockNum() - 1) / AscendC::GetBlockNum();
        // plain conditionals, not std::min: the NPU-mode headers declare no std:: algorithms (and they are not
        // __aicore__ functions)
        const uint32_t begin = uint32_t(perBlock * AscendC::GetBlockIdx() * 8);
        const uint32_t start = begin < t.totalLength ? begin : t.totalLength;
        const uint32_t rest = t.totalLength - start;
        length_ = perBlock * 8 < rest ? perBlock * 8 : rest;
        tileLength_ = t.tileLength;
        xGm_.SetGlobalBuffer((__gm__ float*)x + start, length_);
        yGm_.SetGlobalBuffer((__gm__ float*)y + start, length_);
        zGm_.SetGlobalBuffer((__gm__ float*)z + start, length_);
        pipe_.InitBuffer(inX_, 2, tileLength_ * sizeof(float));
        pipe_.InitBuffer(inY_, 2, tileLength_ * sizeof(float));
        pipe_.InitBuffer(outZ_, 2, tileLength_ * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t off = 0; off < length_; off += tileLength_) {
            const uint32_t n = tileLength_ < length_ - off ? tileLength_ : length_ - off;
            CopyIn(off, n);
            Compute(n);
            CopyOut(off, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t off, uint32_t n) {
        AscendC::LocalTensor<float> x = inX_.AllocTensor<float>();
        AscendC::LocalTensor<float> y = inY_.AllocTensor<float>();
        if (n % 8 == 0) {
            AscendC::DataCopy(x, xGm_[off], n);
            AscendC::DataCopy(y, yGm_[off], n);
        } else {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
            AscendC::DataCopyPad(x, xGm_[off], p, pad);
            AscendC::DataCopyPad(y, yGm_[off], p, pad);
        }
        inX_.EnQue(x);
        inY_.EnQue(y);
    }
    __aicore__ inline void Compute(uint32_t n) {
        AscendC::LocalTensor<float> x = inX_.DeQue<float>();
        AscendC::LocalTensor<float> y = inY_.DeQue<float>();
        AscendC::LocalTensor<float> z = outZ_.AllocTensor<float>();
        AscendC::Add(z, x, y, int32_t(n));
        outZ_.EnQue(z);
        inX_.FreeTensor(x);
        inY_.FreeTensor(y);
    }
    __aicore__ inline void CopyOut(uint32_t off, uint32_t n) {
        AscendC::LocalTensor<float> z = outZ_.DeQue<float>();
        if (n % 8 == 0) {
            AscendC::DataCopy(zGm_[off], z, n);
        } else {
            AscendC::DataCopyExtParams p{1, uint32_t(n * sizeof(float)), 0, 0, 0};
            AscendC::DataCopyPad(zGm_[off], z, p);
        }
        outZ_.FreeTensor(z);
    }

    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inX_, inY_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outZ_;
    AscendC::GlobalTensor<float> xGm_, yGm_, zGm_;
    uint32_t length_ = 0, tileLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR /*workspace*/, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GET_TILING_DATA_WITH_STRUCT(AddTiling, t, tiling);
    if (t.totalLength == 0) return;
    KernelAdd op;
    op.Init(x, y, z, t);
    op.Process();
}
