// The one elementwise-grad kernel: out = Functor(saved, grad) over a block's range, double-buffered
// CopyIn / Compute / CopyOut. The functor computes in f32: f16/bf16 tiles are widened (exact, CAST_NONE) and narrowed
// once (CAST_RINT) where its math needs it (functors/tile_operands.h); saturation is off so inf/NaN follow the
// operator contract instead of the A2/A3 default.
#pragma once
#include "kernel_operator.h"
#include "elementwise_grad_tiling.h"
#include "functors/scratch.h"
#include "functors/tile_operands.h"

namespace actgrad {

constexpr int32_t kBufferNum = 2;  // double buffering

template <typename T, typename Functor>
class ElementwiseGradKernel {
    static_assert(Functor::kTmpTiles <= kMaxTmpTiles && Functor::kMaskTiles <= kMaxMaskTiles,
                  "a functor needs more scratch tiles than Scratch holds (functors/scratch.h)");

public:
    __aicore__ inline ElementwiseGradKernel() {}

    __aicore__ inline void Init(GM_ADDR saved, GM_ADDR grad, GM_ADDR out, const ElementwiseGradTiling& t) {
        uint64_t start = 0, length = 0;
        BlockRange(t, AscendC::GetBlockIdx(), start, length);
        BlockTiles(t, length, tiles_, tail_);
        tileLength_ = t.tileLength;
        params_ = t.params;
        savedGm_.SetGlobalBuffer((__gm__ T*)saved + start, length);
        gradGm_.SetGlobalBuffer((__gm__ T*)grad + start, length);
        outGm_.SetGlobalBuffer((__gm__ T*)out + start, length);
        pipe_.InitBuffer(savedQue_, kBufferNum, tileLength_ * sizeof(T));
        pipe_.InitBuffer(gradQue_, kBufferNum, tileLength_ * sizeof(T));
        pipe_.InitBuffer(outQue_, kBufferNum, tileLength_ * sizeof(T));
        if (kIsWidened<T>) pipe_.InitBuffer(widenBuf_, 3 * tileLength_ * sizeof(float));
        if (Functor::kTmpTiles > 0) pipe_.InitBuffer(tmpBuf_, Functor::kTmpTiles * tileLength_ * sizeof(float));
        if (Functor::kMaskTiles > 0) pipe_.InitBuffer(maskBuf_, Functor::kMaskTiles * tileLength_ / 8);
        for (uint32_t i = 0; i < Functor::kTmpTiles; ++i)
            scratch_.tmp[i] = tmpBuf_.template GetWithOffset<float>(tileLength_, i * tileLength_ * sizeof(float));
        for (uint32_t i = 0; i < Functor::kMaskTiles; ++i)
            scratch_.mask[i] = maskBuf_.template GetWithOffset<uint8_t>(tileLength_ / 8, i * tileLength_ / 8);
    }

    __aicore__ inline void Process() {
        for (uint64_t i = 0; i < tiles_; ++i) {
            const uint32_t n = i + 1 < tiles_ ? tileLength_ : tail_;
            CopyIn(i * tileLength_, n);
            Compute(n);
            CopyOut(i * tileLength_, n);
        }
    }

private:
    __aicore__ inline void CopyIn(uint64_t off, uint32_t n) {
        AscendC::LocalTensor<T> saved = savedQue_.template AllocTensor<T>();
        AscendC::LocalTensor<T> grad = gradQue_.template AllocTensor<T>();
        if (n * sizeof(T) % 32 == 0) {
            AscendC::DataCopy(saved, savedGm_[off], n);
            AscendC::DataCopy(grad, gradGm_[off], n);
        } else {  // only the last tile of the last block ends off a 32-byte boundary
            const AscendC::DataCopyExtParams copy{1, uint32_t(n * sizeof(T)), 0, 0, 0};
            const AscendC::DataCopyPadExtParams<T> noPad{};
            AscendC::DataCopyPad(saved, savedGm_[off], copy, noPad);
            AscendC::DataCopyPad(grad, gradGm_[off], copy, noPad);
        }
        savedQue_.EnQue(saved);
        gradQue_.EnQue(grad);
    }

    __aicore__ inline void Compute(uint32_t n) {
        TileOperands<T> t;
        t.saved = savedQue_.template DeQue<T>();
        t.grad = gradQue_.template DeQue<T>();
        t.out = outQue_.template AllocTensor<T>();
        if constexpr (kIsWidened<T>) {
            AscendC::LocalTensor<float> wide = widenBuf_.template Get<float>();
            t.savedF = wide;
            t.gradF = wide[tileLength_];
            t.outF = wide[2 * tileLength_];
        } else {
            t.savedF = t.saved;
            t.gradF = t.grad;
            t.outF = t.out;
        }
        Functor::Compute(t, scratch_, params_, n);
        outQue_.EnQue(t.out);
        savedQue_.FreeTensor(t.saved);
        gradQue_.FreeTensor(t.grad);
    }

    __aicore__ inline void CopyOut(uint64_t off, uint32_t n) {
        AscendC::LocalTensor<T> out = outQue_.template DeQue<T>();
        if (n * sizeof(T) % 32 == 0) {
            AscendC::DataCopy(outGm_[off], out, n);
        } else {
            const AscendC::DataCopyExtParams copy{1, uint32_t(n * sizeof(T)), 0, 0, 0};
            AscendC::DataCopyPad(outGm_[off], out, copy);
        }
        outQue_.FreeTensor(out);
    }

    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> savedQue_, gradQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> widenBuf_, tmpBuf_, maskBuf_;
    AscendC::GlobalTensor<T> savedGm_, gradGm_, outGm_;
    Scratch scratch_;
    const float* params_ = nullptr;
    uint64_t tiles_ = 0;     // tile loop of this block (BlockTiles)
    uint32_t tail_ = 0;      // elements of its last tile
    uint32_t tileLength_ = 0;
};

template <typename T, typename Functor>
__aicore__ inline void RunTyped(GM_ADDR saved, GM_ADDR grad, GM_ADDR out, const ElementwiseGradTiling& t) {
    if (t.totalLength == 0) return;
    ElementwiseGradKernel<T, Functor> op;
    op.Init(saved, grad, out, t);
    op.Process();
}

template <typename Functor>
__aicore__ inline void RunElementwiseGrad(GM_ADDR saved, GM_ADDR grad, GM_ADDR out, GM_ADDR tiling) {
    REGISTER_TILING_DEFAULT(actgrad::ElementwiseGradTiling);
    GET_TILING_DATA(t, tiling);
    AscendC::SetSaturationFlag<AscendC::SaturationMode::FLOAT>(false);
    AscendC::SetSaturationFlag<AscendC::SaturationMode::CAST>(false);
    if (t.dtype == kDtypeFloat) {
        RunTyped<float, Functor>(saved, grad, out, t);
    } else if (t.dtype == kDtypeHalf) {
        RunTyped<half, Functor>(saved, grad, out, t);
    } else if (t.dtype == kDtypeBf16) {
        RunTyped<bfloat16_t, Functor>(saved, grad, out, t);
    }
}

}  // namespace actgrad
