// actgrad._npu: the PrivateUse1 kernels of the operators (python/actgrad/npu.py registers them through it). They are
// the kernels of op_host/torch_kernels.cpp, as on the twin, whose launch runs the installed CANN package's
// aclnn<OpType> on torch_npu's current stream (aclnn_call.h), queued like any torch_npu op. launch(op_type, in0, in1,
// out, attrs) runs one directly. Built by setup.py where torch_npu and CANN are installed.
#include <string>
#include <tuple>
#include <vector>

#include <ATen/DeviceGuard.h>
#include <torch/extension.h>

#include "../torch_kernels.h"
#include "aclnn_call.h"

namespace {

// Arguments as _C.launch takes them: inputs in IR order, contiguous, one dtype; attrs in spec order, bools as 0/1.
void Launch(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
            const std::vector<double>& attrs)
{
    const c10::OptionalDeviceGuard onInputDevice(at::device_of(in0));  // torch_npu queues on the current device
    // Each API is resolved at its first call, from the package library of that moment.
#define ACTGRAD_ACLNN_CALL(OpType, api, count, ...)                                                              \
    if (opType == #OpType) {                                                                                   \
        TORCH_CHECK(attrs.size() == (count), "actgrad._npu: ", opType, " takes ", (count), " attributes, got ",  \
                    attrs.size());                                                                             \
        static const actgrad::aclnn::Api kApi = actgrad::aclnn::Resolve(#api);                                   \
        actgrad::aclnn::Run(kApi, out.device(), __VA_ARGS__);                                                  \
        return;                                                                                                \
    }
#include "aclnn_calls.inc"
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
             const std::vector<actgrad::AttrTuple>& attrs, const std::vector<std::string>& dtypes,
             int64_t maxRank, int64_t layoutFirst, bool rowReduction) {
              actgrad::RegisterKernels(
                  actgrad::MakeTorchOpSpec(ns, name, opType, inputs, savedIndex, attrs, dtypes, maxRank, layoutFirst,
                                         rowReduction),
                  c10::DispatchKey::PrivateUse1, &Launch);
          });
}
