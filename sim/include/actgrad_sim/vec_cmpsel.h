// Compare / Compares produce a packed bit mask (element i -> byte i/8, bit i%8); Select consumes one.
#pragma once
#include "operand_checks.h"
#include "vec_arith.h"

namespace AscendC {
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
}  // namespace AscendC

namespace actgrad_sim {

inline const char* CmpModeName(AscendC::CMPMODE m) {
    static const char* names[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    return uint8_t(m) < 6 ? names[uint8_t(m)] : "?";
}

template <typename T>
void CheckCompareOperands(uint32_t count, AscendC::CMPMODE mode, const char* api) {
    auto& ctx = Block(api);
    if (uint8_t(mode) > uint8_t(AscendC::CMPMODE::NE))
        Fail(ErrorKind::InvalidArgument, api, "cmpMode ", int(mode), " is not one of LT GT EQ LE GE NE");
    if (std::is_same<T, int32_t>::value && mode != AscendC::CMPMODE::EQ)
        Fail(ErrorKind::Unsupported, api, "int32_t compares only with EQ, got ", CmpModeName(mode));
    RequireBf16Math<T>(api);
    if (uint64_t(count) * sizeof(T) % kRepeatBytes != 0)
        Fail(ErrorKind::Alignment, api, "count ", count, " x sizeof(", TypeName<T>(), ") = ", uint64_t(count) * sizeof(T),
             " bytes is not a multiple of 256 (the NPU silently skips the partial repeat)");
    (void)ctx;
}

template <typename T, typename Pred>
void PackMask(uint8_t* dst, const T* a, uint32_t count, Pred pred) {
    for (uint32_t byte = 0; byte < count / 8; ++byte) {
        uint8_t bits = 0;
        for (uint32_t k = 0; k < 8; ++k) bits |= uint8_t(pred(byte * 8 + k) ? 1u : 0u) << k;
        dst[byte] = bits;
    }
    (void)a;
}

template <typename C>
inline bool Compare1(C a, C b, AscendC::CMPMODE m) {
    switch (m) {
        case AscendC::CMPMODE::LT: return a < b;
        case AscendC::CMPMODE::GT: return a > b;
        case AscendC::CMPMODE::EQ: return a == b;
        case AscendC::CMPMODE::LE: return a <= b;
        case AscendC::CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

// One mask loop per mode, so each is a tight loop without a per-element switch.
template <typename T, typename Get1>
void CompareInto(uint8_t* dst, const T* a, uint32_t count, AscendC::CMPMODE m, Get1 rhs) {
    using C = std::conditional_t<IsHalfLike<T>, float, T>;
    auto run = [&](auto op) {
        PackMask(dst, a, count, [&](uint32_t i) { return op(C(a[i]), C(rhs(i))); });
    };
    switch (m) {
        case AscendC::CMPMODE::LT: run([](C x, C y) { return x < y; }); break;
        case AscendC::CMPMODE::GT: run([](C x, C y) { return x > y; }); break;
        case AscendC::CMPMODE::EQ: run([](C x, C y) { return x == y; }); break;
        case AscendC::CMPMODE::LE: run([](C x, C y) { return x <= y; }); break;
        case AscendC::CMPMODE::GE: run([](C x, C y) { return x >= y; }); break;
        default: run([](C x, C y) { return x != y; }); break;
    }
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, typename U>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, uint32_t count) {
    static_assert(actgrad_sim::OneOf<T, half, float, int32_t, bfloat16_t>, "Compare: src must be half, float or int32_t");
    static_assert(actgrad_sim::OneOf<U, int8_t, uint8_t>, "Compare: dst must be int8_t or uint8_t");
    const char* api = "Compare";
    actgrad_sim::CheckCompareOperands<T>(count, cmpMode, api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(src1, bytes, api, "src1", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(dst, count / 8, api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CheckDisjoint(dst, count / 8, src0, bytes, api, "dst", "src0");
    actgrad_sim::CheckDisjoint(dst, count / 8, src1, bytes, api, "dst", "src1");
    actgrad_sim::CountVectorInstruction();
    const T* b = src1.GetPhyAddr();
    actgrad_sim::CompareInto(reinterpret_cast<uint8_t*>(dst.GetPhyAddr()), src0.GetPhyAddr(), count, cmpMode,
                             [b](uint32_t i) { return b[i]; });
}

template <typename T, typename U>
void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode, uint32_t count) {
    static_assert(actgrad_sim::OneOf<T, half, float, int32_t, bfloat16_t>, "Compares: src must be half, float or int32_t");
    static_assert(std::is_same<U, uint8_t>::value, "Compares: dst must be uint8_t");
    const char* api = "Compares";
    actgrad_sim::CheckCompareOperands<T>(count, cmpMode, api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(dst, (count + 7) / 8, api, "dst", actgrad_sim::Access::Write);
    actgrad_sim::CheckDisjoint(dst, (count + 7) / 8, src0, bytes, api, "dst", "src0");
    actgrad_sim::CountVectorInstruction();
    const T s = src1Scalar;
    actgrad_sim::CompareInto(dst.GetPhyAddr(), src0.GetPhyAddr(), count, cmpMode, [s](uint32_t) { return s; });
}

}  // namespace AscendC

namespace actgrad_sim {

template <typename T, typename U>
void CheckSelect(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& mask, uint32_t count,
                 AscendC::SELMODE mode, const char* api) {
    static_assert(OneOf<T, half, float, bfloat16_t>, "Select: dst/src must be half or float");
    static_assert(OneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>, "Select: selMask must be uint8/16/32/64");
    auto& ctx = Block(api);
    RequireBf16Math<T>(api);
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    CheckVectorOperand(dst, bytes, api, "dst", Access::Write);
    const uint64_t maskBytes = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR ? kRepeatBytes / sizeof(T) / 8 : (uint64_t(count) + 7) / 8;
    CheckVectorOperand(mask, maskBytes, api, "selMask", Access::Read);
    if (mode != AscendC::SELMODE::VSEL_CMPMASK_SPR && ctx.soc().ubReservedBytes != 0 && ctx.pipe != nullptr &&
        ctx.pipe->CarvedBytes() > ctx.soc().ubBytes - ctx.soc().ubReservedBytes)
        Fail(ErrorKind::UbOverflow, api, "modes 1/2 use the top ", ctx.soc().ubReservedBytes, " bytes of UB as scratch on ",
             ctx.soc().name, ", but the TPipe carved UB up to offset ", ctx.pipe->CarvedBytes());
    CountVectorInstruction();
}

// mode 0 reuses the first repeat's mask bits for every repeat; modes 1/2 consume the mask continuously
inline uint32_t MaskBitIndex(uint32_t i, AscendC::SELMODE mode, uint32_t lanesPerRepeat) {
    return mode == AscendC::SELMODE::VSEL_CMPMASK_SPR ? i % lanesPerRepeat : i;
}

}  // namespace actgrad_sim

namespace AscendC {

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            SELMODE selMode, uint32_t count) {
    const char* api = "Select";
    if (selMode == SELMODE::VSEL_TENSOR_SCALAR_MODE)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "VSEL_TENSOR_SCALAR_MODE needs a scalar src1");
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::Block(api);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::Read);
    actgrad_sim::CheckVectorOperand(src1, bytes, api, "src1", actgrad_sim::Access::Read);
    actgrad_sim::CheckSelect(dst, selMask, count, selMode, api);
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src0, bytes, api, "src0");
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src1, bytes, api, "src1");
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.GetPhyAddr());
    const T* a = src0.GetPhyAddr();
    const T* b = src1.GetPhyAddr();
    T* d = dst.GetPhyAddr();
    const uint32_t lanes = actgrad_sim::kRepeatBytes / sizeof(T);
    if (selMode == SELMODE::VSEL_TENSOR_TENSOR_MODE) {
        for (uint32_t i = 0; i < count; ++i) d[i] = ((m[i >> 3] >> (i & 7)) & 1u) ? a[i] : b[i];
    } else {
        for (uint32_t i = 0; i < count; ++i) {
            const uint32_t k = actgrad_sim::MaskBitIndex(i, selMode, lanes);
            d[i] = ((m[k >> 3] >> (k & 7)) & 1u) ? a[i] : b[i];
        }
    }
}

template <typename T, typename U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1, SELMODE selMode,
            uint32_t count) {
    const char* api = "Select";
    if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
        actgrad_sim::Fail(actgrad_sim::ErrorKind::InvalidArgument, api, "a scalar src1 needs VSEL_TENSOR_SCALAR_MODE");
    const uint64_t bytes = uint64_t(count) * sizeof(T);
    actgrad_sim::Block(api);
    actgrad_sim::CheckVectorOperand(src0, bytes, api, "src0", actgrad_sim::Access::Read);
    actgrad_sim::CheckSelect(dst, selMask, count, selMode, api);
    actgrad_sim::CheckNoPartialOverlap(dst, bytes, src0, bytes, api, "src0");
    const uint8_t* m = reinterpret_cast<const uint8_t*>(selMask.GetPhyAddr());
    const T* a = src0.GetPhyAddr();
    T* d = dst.GetPhyAddr();
    for (uint32_t i = 0; i < count; ++i) d[i] = ((m[i >> 3] >> (i & 7)) & 1u) ? a[i] : src1;
}

}  // namespace AscendC
