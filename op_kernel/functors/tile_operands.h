// One tile's operands as a compute functor sees them: the storage-typed tensors of the queues and their f32
// views. For float the views are the tensors themselves; for f16/bf16 they live in the kernel's widen buffer and
// are filled (CAST_NONE, exact) or drained (CAST_RINT) only by the functor that needs them, so a functor that can
// select straight on the 16-bit storage skips the conversions.
#pragma once
#include "kernel_operator.h"

namespace actgrad {

template <typename T>
struct TileOperands {
    AscendC::LocalTensor<T> out, saved, grad;
    AscendC::LocalTensor<float> outF, savedF, gradF;
};

template <typename T> constexpr bool kIsWidened = sizeof(T) != sizeof(float);

template <typename T>
__aicore__ inline void WidenSaved(const TileOperands<T>& t, uint32_t n) {
    if constexpr (kIsWidened<T>) AscendC::Cast(t.savedF, t.saved, AscendC::RoundMode::CAST_NONE, n);
}

template <typename T>
__aicore__ inline void WidenGrad(const TileOperands<T>& t, uint32_t n) {
    if constexpr (kIsWidened<T>) AscendC::Cast(t.gradF, t.grad, AscendC::RoundMode::CAST_NONE, n);
}

template <typename T>
__aicore__ inline void NarrowOut(const TileOperands<T>& t, uint32_t n) {
    if constexpr (kIsWidened<T>) AscendC::Cast(t.out, t.outF, AscendC::RoundMode::CAST_RINT, n);
}

// Compare works on whole 256-byte repeats of its type C: lanes past n are computed and never copied out. Tiles are
// whole multiples of the largest such count (kTileGranule), so the rounded count stays inside them.
template <typename C>
__aicore__ inline uint32_t CompareLanes(uint32_t n) {
    constexpr uint32_t kPerRepeat = 256 / sizeof(C);
    return (n + kPerRepeat - 1) / kPerRepeat * kPerRepeat;
}

// f16 has compares on A2/A3, bf16 has none: bf16 (and f16 where f32 math is needed) goes through the f32 views.
template <typename T> inline constexpr bool kComparesInStorage = false;
template <> inline constexpr bool kComparesInStorage<half> = true;

// Select moves bit patterns without arithmetic, so 16-bit storage selects through a half view (A2/A3 have no bf16
// Select).
template <typename T> struct SelectLane { using type = half; };
template <> struct SelectLane<float> { using type = float; };

template <typename T>
__aicore__ inline AscendC::LocalTensor<typename SelectLane<T>::type> SelectView(const AscendC::LocalTensor<T>& t) {
    return t.template ReinterpretCast<typename SelectLane<T>::type>();
}

}  // namespace actgrad
