// The softmax-family row functors of RunRowGrad (row_grad.h): what each element adds to its row's sum (Terms) and
// its result from that sum (Finish, which applies the sum through CombineSum), over whole f32 tiles (RowOperands).
//   SoftmaxGrad:    s = sum(dd*d),  diff_src = d*(dd - s)
//   LogSoftmaxGrad: s = sum(dd),    diff_src = dd - exp(d)*s
// NaN rule: a NaN in either input makes its whole row NaN. Softmax's sum has dd*d in it, so it needs nothing more.
// Log-softmax's sum does not see d: its row is poisoned by 0*exp(d), which is NaN exactly where exp(d) is NaN or
// +inf, i.e. for d = NaN, d = +inf and finite d > ~88.72 (where exp overflows f32, so exp(d)*s is not finite there
// anyway), and 0 for d = -inf (a masked-out class, exp(d) = 0: that row stays finite, as the float64 formula has it).
// A tile in one pass adds those terms into the sum (Terms). Rows in two passes sum dd alone (kSumReadsDst false), so
// that their first pass need not load d: the kernel checks 0*exp(d) (Guard) only for a row with a result that is
// not finite, which a poisoned row always has (exp(d)*s is NaN or infinite there), and then writes that row NaN.
#pragma once
#include "kernel_operator.h"
#include "../row_grad.h"

namespace actgrad {

struct SoftmaxGrad {
    static constexpr bool kSumReadsDst = true;
    __aicore__ static inline void Terms(const RowOperands& t, uint32_t n) {
        AscendC::Mul(t.terms, t.gradF, t.dstF, int32_t(n));
    }
    __aicore__ static inline void Finish(const RowOperands& t, uint32_t n) {
        CombineSum(t, t.terms, t.gradF, SumOp::kSubtract);
        AscendC::Mul(t.outF, t.terms, t.dstF, int32_t(n));
    }
};

// Terms runs in one pass only, where exp(d) is computed once: it leaves it in outF for Finish.
struct LogSoftmaxGrad {
    static constexpr bool kSumReadsDst = false;
    __aicore__ static inline void Terms(const RowOperands& t, uint32_t n) {
        AscendC::Exp(t.outF, t.dstF, int32_t(n));
        AscendC::Muls(t.terms, t.outF, 0.0f, int32_t(n));
        AscendC::Add(t.terms, t.terms, t.gradF, int32_t(n));
    }
    // terms = 0*exp(d): NaN where d poisons its row, else 0 (reads d alone)
    __aicore__ static inline void Guard(const RowOperands& t, uint32_t n) {
        AscendC::Exp(t.terms, t.dstF, int32_t(n));
        AscendC::Muls(t.terms, t.terms, 0.0f, int32_t(n));
    }
    __aicore__ static inline void Finish(const RowOperands& t, uint32_t n) {
        if (t.samePass) {
            CombineSum(t, t.terms, t.outF, SumOp::kMultiply);
        } else {
            AscendC::Exp(t.terms, t.dstF, int32_t(n));
            CombineSum(t, t.terms, t.terms, SumOp::kMultiply);
        }
        AscendC::Sub(t.outF, t.gradF, t.terms, int32_t(n));
    }
};

}  // namespace actgrad
