// actgrad._npu: the PrivateUse1 kernels of the operators (python/actgrad/npu.py registers them through it).
// They are the kernels of op_host/torch_kernels.cpp, as on the twin, whose launch calls the installed CANN package's
// aclnn<OpType> on torch_npu's current stream, queued like any torch_npu op. launch(op_type, in0, in1, out, attrs)
// runs one directly. Built by scripts/build_npu_package.sh against torch_npu; never by setup.py.
#include <string>
#include <tuple>
#include <vector>

#include <ATen/DeviceGuard.h>
#include <torch/extension.h>

#include "op_plugin/utils/op_api_common.h"  // EXEC_NPU_CMD; torch_npu ships it in include/third_party/op-plugin
#include "torch_kernels.h"

namespace {

constexpr size_t kMaxAttrs = 8;

// Arguments as _C.launch takes them: inputs in IR order, contiguous, one dtype; attrs in spec order, bools as 0/1.
void Launch(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
            const std::vector<double>& attrs)
{
    const c10::OptionalDeviceGuard onInputDevice(at::device_of(in0));  // the stream of the tensors' device
    bool flags[kMaxAttrs] = {};  // the bool attributes as aclnn takes them (the generated calls pick theirs)
    TORCH_CHECK(attrs.size() <= kMaxAttrs, "actgrad._npu: ", opType, " got ", attrs.size(), " attributes, at most ",
                kMaxAttrs, " expected");
    for (size_t i = 0; i < attrs.size(); ++i) flags[i] = attrs[i] != 0.0;
#define ACTGRAD_ACLNN_CALL(OpType, api, count, ...)                                                          \
    if (opType == #OpType) {                                                                               \
        TORCH_CHECK(attrs.size() == (count), "actgrad._npu: ", opType, " takes ", (count), " attributes, got ", \
                    attrs.size());                                                                         \
        EXEC_NPU_CMD(api, __VA_ARGS__);                                                                    \
        return;                                                                                            \
    }
#include "npu/aclnn_calls.inc"
#undef ACTGRAD_ACLNN_CALL
    TORCH_CHECK(false, "actgrad._npu: unknown operator ", opType);
}

}  // namespace

PYBIND11_MODULE(_npu, m)
{
    m.def("launch", &Launch, "Run aclnn<op_type>(in0, in1, *attrs, out) on the current NPU stream");
    // the PrivateUse1 kernels of one operator; arguments as _C.register_twin_kernels
    m.def("register_kernels",
          [](const std::string& ns, const std::string& name, const std::string& opType,
             const std::vector<std::string>& inputs, int64_t savedIndex,
             const std::vector<std::tuple<std::string, bool, bool>>& attrs, const std::vector<std::string>& dtypes,
             int64_t maxRank) {
              actgrad::RegisterKernels(
                  actgrad::MakeTorchOpSpec(ns, name, opType, inputs, savedIndex, attrs, dtypes, maxRank),
                  c10::DispatchKey::PrivateUse1, &Launch);
          });
}
