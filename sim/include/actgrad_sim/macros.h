// Address-space qualifiers, kernel entry macros and tiling delivery as they look in a CPU build.
#pragma once
#include <cstdint>
#include <cstring>

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __vector__
#define __cube__
#define __inout_pipe__(pipe)
#ifndef __CCE_KT_TEST__
#define __CCE_KT_TEST__ 1
#endif
#ifndef ASCENDC_CPU_DEBUG
#define ASCENDC_CPU_DEBUG 1
#endif

using GM_ADDR = __gm__ uint8_t*;

enum KernelMetaType {
    KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2, KERNEL_TYPE_AICORE, KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE, KERNEL_TYPE_MIX_VECTOR_CORE, KERNEL_TYPE_MAX
};
// A compile-time annotation on the NPU; the twin only checks that the value names a kernel type.
#define KERNEL_TASK_TYPE_DEFAULT(value) static_assert((value) < KERNEL_TYPE_MAX, "unknown kernel type")
#define KERNEL_TASK_TYPE(key, value) static_assert((value) < KERNEL_TYPE_MAX, "unknown kernel type")

inline uint64_t g_tilingKey = 0;
#define TILING_KEY_IS(k) (g_tilingKey == (k))

// Kernel-launch style tiling delivery: the tiling pointer holds the struct's bytes.
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
    tiling_struct tiling_data;                                                \
    std::memcpy(&tiling_data, (tiling_arg), sizeof(tiling_struct))
#define REGISTER_TILING_DEFAULT(tiling_struct) using ActgradDefaultTilingData = tiling_struct
#define GET_TILING_DATA(tiling_data, tiling_arg) \
    GET_TILING_DATA_WITH_STRUCT(ActgradDefaultTilingData, tiling_data, tiling_arg)
