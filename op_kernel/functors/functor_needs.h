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

// the sigmoid/tanh family, SiLU, LogSigmoid, Softsign, Sqrt

// the smooth gates: GELU, FastGelu, Mish
constexpr FunctorNeeds kGeluGradNeeds{4, 2};
constexpr FunctorNeeds kFastGeluGradNeeds{3, 2};
constexpr FunctorNeeds kMishGradNeeds{2, 3};

}  // namespace actgrad
