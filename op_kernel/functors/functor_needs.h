// What each compute functor needs in UB per tile, in plain C++ so host tiling (CANN TilingFunc or twin) can read it
// without compiling kernel code.
#pragma once
#include <cstdint>

namespace actgrad {

struct FunctorNeeds {
    uint32_t tmpTiles;   // f32 scratch tiles
    uint32_t maskTiles;  // bit-mask tiles (tile/8 bytes each)
};

constexpr FunctorNeeds kBandGradNeeds{0, 3};
constexpr FunctorNeeds kEluGradNeeds{2, 3};
constexpr FunctorNeeds kSoftplusGradNeeds{2, 3};

// piecewise-linear rectifiers, shrinks and Abs
constexpr FunctorNeeds kStepGradNeeds{1, 3};

// the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt
constexpr FunctorNeeds kSigmoidFamilyGradNeeds{2, 3};
constexpr FunctorNeeds kQuotientGradNeeds{2, 2};

// The derivative a functor's params[0] selects (the host lowering writes it, the kernel branches on it).
enum class SigmoidFamilyForm : uint32_t {
    kSigmoidOfDst = 0,   // d*(1-d)
    kTanhOfDst = 1,      // (1-d)*(1+d); 1 - d*d from a 16-bit d
    kLogisticOfSrc = 2,  // c*e/(1+e)^2, e = exp(-k|x|): sigmoid' (k 1, c 1), tanh' (k 2, c 4)
    kSilu = 3,           // (A*(1+e) + x*e)/(1+e)^2, A = e (x < 0) or 1
    kLogSigmoid = 4,     // B/(1+e), B = e (x >= 0) or 1
};
enum class QuotientForm : uint32_t {
    kSoftsign = 0,  // g/(1+|x|)/(1+|x|)
    kSqrtOfDst = 1,  // g/(2*d)
    kSqrtOfSrc = 2,  // g/(2*sqrt(s))
};

// the smooth gates: GELU, FastGelu, Mish
constexpr FunctorNeeds kGeluGradNeeds{4, 2};
constexpr FunctorNeeds kFastGeluGradNeeds{3, 2};
constexpr FunctorNeeds kMishGradNeeds{2, 3};

}  // namespace actgrad
