// UB scratch a compute functor may use for one tile: f32 temporaries and packed bit masks, each a whole tile long.
#pragma once
#include "kernel_operator.h"
#include "functor_needs.h"

namespace actgrad {

constexpr uint32_t kMaxTmpTiles = 4;
constexpr uint32_t kMaxMaskTiles = 4;

struct Scratch {
    AscendC::LocalTensor<float> tmp[kMaxTmpTiles];
    AscendC::LocalTensor<uint8_t> mask[kMaxMaskTiles];
};

}  // namespace actgrad
