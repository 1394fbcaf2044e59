// Stand-in for torch_npu's op-plugin header, for compiling op_host/npu/aclnn_bridge.cpp without CANN
// (tests/test_npu_bridge.py). Like op-plugin's EXEC_NPU_CMD it binds every argument to a non-const reference, so a
// temporary argument fails here as it would against torch_npu.
#pragma once
template <typename... Ts>
inline void BindLikeOpPlugin(Ts&...) {}
#define EXEC_NPU_CMD(aclnn_api, ...) BindLikeOpPlugin(__VA_ARGS__)
