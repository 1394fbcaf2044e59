// Three regions of the saved tensor x, each with its own multiple of grad: below lo (x < lo) grad*lowCoef; above hi
// (x > hi) grad; between (lo <= x <= hi) 0, or grad*(x/midDivisor + midOffset). The host chooses the f32 bounds so that
// these strict compares decide like the contract's (an inclusive bound is the next float over), and lo > hi when
// there is no middle. ReluBackward, ThresholdGradV2D, LeakyReluGrad, HardSwishBackward, SoftShrinkGrad, HardShrinkGrad
// and AbsBackward share it.
// params: [0] lo, [1] hi, [2] lowCoef, [3] midDivisor (0: the middle is 0), [4] midOffset; [5] loF16, [6] hiF16 — the
// same decisions for f16 values as f16 bounds (f16 tiles compare in f16, unwidened, where no f32 math reads x).
//
// Results that are grad, -grad or 0 are selected on the storage type (a half view of bf16: Select moves bits; -grad
// flips the sign bit by an integer add); products are computed in f32 and narrowed once. Select semantics: a region
// whose derivative is 0 selects 0, so an infinite grad gives 0 there; a product that is inf*0 (HardSwish's
// x/3 + 0.5 is 0 at x = -1.5) is replaced by 0. Then two fix-ups restore the NaN policy: a NaN grad, then a NaN saved
// value, replaces its lane (each an in-place select that changes only the NaN lanes); the linear middle keeps NaN lanes
// in the mask of its zero select instead.
#pragma once
#include "scratch.h"
#include "tile_operands.h"

namespace actgrad {

// the integer lanes of a float type's bit patterns, and its sign bit as such a lane
template <typename T> struct SignedBits {
    using type = int16_t;
    static constexpr int16_t kSign = -32768;
};
template <> struct SignedBits<float> {
    using type = int32_t;
    static constexpr int32_t kSign = -2147483647 - 1;
};

struct StepGrad {
    static constexpr uint32_t kTmpTiles = kStepGradNeeds.tmpTiles;
    static constexpr uint32_t kMaskTiles = kStepGradNeeds.maskTiles;

    template <typename T>
    __aicore__ inline static void Compute(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n) {
        using S = typename SelectLane<T>::type;
        const float lo = params[0], hi = params[1], lowCoef = params[2], midDivisor = params[3];
        const bool hasMiddle = lo <= hi;
        const bool linearMiddle = hasMiddle && midDivisor != 0.0f;
        const AscendC::LocalTensor<uint8_t>& above = s.mask[0];
        const AscendC::LocalTensor<uint8_t>& below = s.mask[1];
        const AscendC::LocalTensor<uint8_t>& isNumber = s.mask[2];
        const AscendC::LocalTensor<S> out = SelectView(t.out);
        const AscendC::LocalTensor<S> grad = SelectView(t.grad);
        // f16 decides on its own values unless the middle's f32 math needs x widened anyway
        const bool inStorage = kComparesInStorage<T> && !linearMiddle;
        const uint32_t lanes = inStorage ? CompareLanes<T>(n) : CompareLanes<float>(n);
        // -grad below 0 and grad above: grad with x's sign, moved by integer ops (no compare)
        const bool signOfX = lowCoef == -1.0f && lo == 0.0f && hi == 0.0f;
        if (!inStorage) WidenSaved(t, n);
        if (!signOfX) CompareSaved(t, above, params[1], params[6], AscendC::CMPMODE::GT, inStorage, lanes);

        if (linearMiddle) return LinearMiddle(t, s, params, n, lanes);

        // the result so far: grad itself (every lane grad or NaN-fixed) or out
        bool resultIsGrad = false;
        bool gradWidened = false;
        if (lowCoef == 0.0f) {  // only above hi is not 0
            AscendC::Select(out, above, grad, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        } else if (lowCoef == 1.0f) {  // grad below and above
            if (hasMiddle) {
                CompareSaved(t, below, lo, params[5], AscendC::CMPMODE::LT, inStorage, lanes);
                AscendC::Or(above.ReinterpretCast<uint16_t>(), above.ReinterpretCast<uint16_t>(),
                            below.ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
                AscendC::Select(out, above, grad, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
            } else {
                resultIsGrad = true;
            }
        } else {  // -grad or grad*lowCoef below, grad above, 0 between
            if (signOfX) {
                CopySignOfSaved(t, s, n);
            } else {
                if (lowCoef == -1.0f) {
                    NegateGrad(t, n);
                } else {  // narrowed once
                    WidenGrad(t, n);
                    gradWidened = true;
                    AscendC::Muls(t.outF, t.gradF, lowCoef, int32_t(lanes));
                    NarrowOut(t, n);
                }
                AscendC::Select(out, above, grad, out, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
            }
            if (hasMiddle) {  // a middle of one point (AbsBackward's 0) is where x == lo
                if (lo == hi && params[5] == params[6]) {  // the point is an f16 value too
                    CompareSaved(t, below, lo, params[5], AscendC::CMPMODE::NE, inStorage, lanes);
                } else {
                    CompareSaved(t, below, lo, params[5], AscendC::CMPMODE::LT, inStorage, lanes);
                    AscendC::Or(below.ReinterpretCast<uint16_t>(), below.ReinterpretCast<uint16_t>(),
                                above.ReinterpretCast<uint16_t>(), int32_t(lanes / 16));
                }
                AscendC::Select(out, below, out, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
            }
        }

        // a zero selected for a NaN grad gives the NaN back (where no region is 0, every lane carries grad's NaN)
        if (!resultIsGrad && (hasMiddle || lowCoef == 0.0f)) {
            CompareNumbers(t.grad, t.gradF, isNumber, inStorage, !gradWidened, n, lanes);
            AscendC::Select(out, isNumber, out, grad, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
        }
        // a NaN saved value replaces its lane
        CompareNumbers(t.saved, t.savedF, isNumber, inStorage, false, n, lanes);
        AscendC::Select(out, isNumber, resultIsGrad ? grad : out, SelectView(t.saved),
                        AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }

private:
    // HardSwish's form: grad above hi; grad*(x/midDivisor + midOffset) from lo to hi, kept where x >= lo or is NaN and
    // the factor is not 0 (NaN is not 0), or where grad is NaN: 0 below lo and for inf*0, NaN wherever x or grad is
    template <typename T>
    __aicore__ inline static void LinearMiddle(const TileOperands<T>& t, const Scratch& s, const float* params, uint32_t n,
                                               uint32_t lanes) {
        using S = typename SelectLane<T>::type;
        const AscendC::LocalTensor<uint8_t>& above = s.mask[0];
        const AscendC::LocalTensor<uint8_t>& keep = s.mask[1];
        const AscendC::LocalTensor<uint8_t>& work = s.mask[2];
        const AscendC::LocalTensor<uint16_t> keepWords = keep.ReinterpretCast<uint16_t>();
        const AscendC::LocalTensor<uint16_t> workWords = work.ReinterpretCast<uint16_t>();
        const AscendC::LocalTensor<S> out = SelectView(t.out);
        const int32_t m = int32_t(lanes);
        const int32_t words = int32_t(lanes / 16);
        WidenGrad(t, n);
        AscendC::Duplicate(t.outF, params[3], m);
        AscendC::Div(t.outF, t.savedF, t.outF, m);
        AscendC::Adds(t.outF, t.outF, params[4], m);
        AscendC::Compares(keep, t.savedF, params[0], AscendC::CMPMODE::LT, lanes);
        AscendC::Not(keepWords, keepWords, words);
        AscendC::Compares(work, t.outF, 0.0f, AscendC::CMPMODE::NE, lanes);
        AscendC::And(keepWords, keepWords, workWords, words);
        AscendC::Compare(work, t.gradF, t.gradF, AscendC::CMPMODE::NE, lanes);
        AscendC::Or(keepWords, keepWords, workWords, words);
        AscendC::Mul(t.outF, t.gradF, t.outF, m);
        NarrowOut(t, n);
        AscendC::Select(out, keep, out, S(0.0f), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, lanes);
        AscendC::Select(out, above, SelectView(t.grad), out, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, lanes);
    }

    // out = grad with its sign flipped where x's sign bit is set: grad's integer view plus x's sign bit (integer lanes
    // wrap), the sign bit taken by an And with a tile of sign bits (And works on 16-bit lanes)
    template <typename T>
    __aicore__ inline static void CopySignOfSaved(const TileOperands<T>& t, const Scratch& s, uint32_t n) {
        using I = typename SignedBits<T>::type;
        const AscendC::LocalTensor<I> sign = s.tmp[0].ReinterpretCast<I>();
        const AscendC::LocalTensor<uint16_t> signWords = s.tmp[0].ReinterpretCast<uint16_t>();
        AscendC::Duplicate(sign, SignedBits<T>::kSign, int32_t(n));
        AscendC::And(signWords, t.saved.template ReinterpretCast<uint16_t>(), signWords,
                     int32_t(n * sizeof(T) / sizeof(uint16_t)));
        AscendC::Add(t.out.template ReinterpretCast<I>(), t.grad.template ReinterpretCast<I>(), sign, int32_t(n));
    }

    // out = -grad, exact for every value: adding the sign bit to the integer view flips it (integer lanes wrap)
    template <typename T>
    __aicore__ inline static void NegateGrad(const TileOperands<T>& t, uint32_t n) {
        using I = typename SignedBits<T>::type;
        AscendC::Adds(t.out.template ReinterpretCast<I>(), t.grad.template ReinterpretCast<I>(), SignedBits<T>::kSign,
                      int32_t(n));
    }

    // mask = x <mode> bound, on the f16 values (with the f16 bound) or on the f32 view
    template <typename T>
    __aicore__ inline static void CompareSaved(const TileOperands<T>& t, const AscendC::LocalTensor<uint8_t>& mask,
                                               float bound, float boundF16, AscendC::CMPMODE mode, bool inStorage,
                                               uint32_t lanes) {
        if constexpr (kComparesInStorage<T>) {
            if (inStorage) return AscendC::Compares(mask, t.saved, T(boundF16), mode, lanes);
        }
        AscendC::Compares(mask, t.savedF, bound, mode, lanes);
    }

    // mask = the lanes of v that are numbers (v == v): on the f16 values, or on the f32 view, which `widen` fills
    // first where it was not needed before
    template <typename T>
    __aicore__ inline static void CompareNumbers(const AscendC::LocalTensor<T>& v,
                                                 const AscendC::LocalTensor<float>& vF,
                                                 const AscendC::LocalTensor<uint8_t>& mask, bool inStorage, bool widen,
                                                 uint32_t n, uint32_t lanes) {
        if constexpr (kComparesInStorage<T>) {
            if (inStorage) return AscendC::Compare(mask, v, v, AscendC::CMPMODE::EQ, lanes);
        }
        if constexpr (kIsWidened<T>) {
            if (widen) AscendC::Cast(vF, v, AscendC::RoundMode::CAST_NONE, n);
        }
        AscendC::Compare(mask, vF, vF, AscendC::CMPMODE::EQ, lanes);
    }
};

}  // namespace actgrad
