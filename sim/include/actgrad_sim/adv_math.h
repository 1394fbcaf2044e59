// High-level math APIs with a caller-provided shared tmp buffer: Tanh, Sigmoid, Erf.
#pragma once
#include <cmath>

#include "vec_arith.h"

namespace actgrad_sim {

// Minimum tmp bytes on 2201 (ascendc-api.md §5.8): 256 x factor, factor per dtype.
template <typename T> constexpr uint32_t TanhTmpFactor() { return std::is_same<T, half>::value ? 4 : 1; }
template <typename T> constexpr uint32_t ErfTmpFactor() { return std::is_same<T, half>::value ? 8 : 3; }

template <typename T>
void CheckHighLevel(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::LocalTensor<uint8_t>& tmp, uint32_t count, uint32_t minTmp, const char* api) {
    static_assert(OneOf<T, half, float>, "high-level math APIs take half or float");
    Block(api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    CheckVectorOperand(src, bytes, api, "src", Access::Read);
    CheckVectorOperand(tmp, minTmp, api, "sharedTmpBuffer", Access::Write);
    CheckVectorOperand(dst, bytes, api, "dst", Access::Write);
    CheckDisjoint(dst, bytes, src, bytes, api, "dst", "src");
    CheckDisjoint(dst, bytes, tmp, tmp.GetLength(), api, "dst", "sharedTmpBuffer");
    CheckDisjoint(src, bytes, tmp, tmp.GetLength(), api, "src", "sharedTmpBuffer");
    CountVectorInstruction();
}

inline float SigmoidF(float x) { return 1.0f / (1.0f + ExpF(-x)); }

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, bool isReuseSource = false>
void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
          const uint32_t calCount) {
    actgrad_sim::CheckHighLevel(dstTensor, srcTensor, sharedTmpBuffer, calCount, 256 * actgrad_sim::TanhTmpFactor<T>(), "Tanh");
    actgrad_sim::ApplyUnary(dstTensor.Data(), srcTensor.Data(), int32_t(calCount), [](float a) { return std::tanh(a); });
}

template <typename T, bool isReuseSource = false>
void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
             const uint32_t calCount) {
    actgrad_sim::CheckHighLevel(dstTensor, srcTensor, sharedTmpBuffer, calCount, 256, "Sigmoid");
    actgrad_sim::ApplyUnary(dstTensor.Data(), srcTensor.Data(), int32_t(calCount),
                            [](float a) { return actgrad_sim::SigmoidF(a); });
}

template <typename T, bool isReuseSource = false>
void Erf(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
         const uint32_t calCount) {
    actgrad_sim::CheckHighLevel(dstTensor, srcTensor, sharedTmpBuffer, calCount, 256 * actgrad_sim::ErfTmpFactor<T>(), "Erf");
    actgrad_sim::ApplyUnary(dstTensor.Data(), srcTensor.Data(), int32_t(calCount), [](float a) { return std::erf(a); });
}

}  // namespace AscendC
