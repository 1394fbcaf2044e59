// Runs an aclnn API of actgrad's CANN package from a torch_npu kernel, through public APIs only: the two phases are
// resolved with dlsym from the package's libcust_opapi.so, tensors are described with CANN's aclCreateTensor, and
// phase 2 is queued on torch_npu's current stream with an OpCommand custom handler, in order with torch_npu's own
// ops. (op-plugin's EXEC_NPU_CMD does the same, but its header is torch_npu's internal code, not an API.)
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <vector>

#include <aclnn/acl_meta.h>  // CANN: aclTensor, aclCreateTensor, aclDestroyTensor, aclnnStatus

namespace actgrad::aclnn {

// One aclnn API of the package: aclnn<OpType>GetWorkspaceSize (phase 1) and aclnn<OpType> (phase 2).
struct Api {
    std::string name;     // aclnn<OpType>
    std::string library;  // the libcust_opapi.so both came from
    void* getWorkspaceSize;  // its parameters are the op's: cast by Run from the arguments it is given
    aclnnStatus (*run)(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream);
};

// Resolves `name` from the first libcust_opapi.so that exports both of its phases, searched as torch_npu searches
// for custom aclnn APIs: <each ASCEND_CUSTOM_OPP_PATH entry>/op_api/lib/, then
// $ASCEND_OPP_PATH/vendors/<each load_priority vendor of config.ini>/op_api/lib/, skipping a library whose owner is
// neither the current user nor root (torch_npu skips those too). Never CANN's built-in libopapi: the package's
// APIs are its own (spec.py's Actgrad prefix), and a built-in of another name must not stand in for one. Raises
// naming every library searched and why it was passed over.
Api Resolve(const std::string& name);

namespace detail {

// The aclnn parameter type of each argument of a generated call (aclnn_calls.inc), as the generated
// aclnn<OpType>GetWorkspaceSize declares it: tensors as const aclTensor*, Float attributes as double, Bool as bool,
// String as char*, Int as int64_t.
template <typename T>
struct Param;
template <>
struct Param<at::Tensor> {
    using Type = const aclTensor*;
};
template <>
struct Param<double> {
    using Type = double;
};
template <>
struct Param<bool> {
    using Type = bool;
};
template <>
struct Param<char*> {
    using Type = char*;
};
template <>
struct Param<int64_t> {
    using Type = int64_t;
};

// The aclTensors of one call. Phase 2 destroys them once it has run (the executor uses them until then); the
// destructor covers a call that fails before.
class Tensors {
public:
    Tensors() = default;
    Tensors(const Tensors&) = delete;
    Tensors& operator=(const Tensors&) = delete;
    ~Tensors() { Destroy(); }

    const aclTensor* Add(const at::Tensor& tensor);
    void Destroy();

private:
    std::vector<const aclTensor*> tensors_;
};

inline const aclTensor* Convert(Tensors& tensors, const at::Tensor& tensor) { return tensors.Add(tensor); }
inline double Convert(Tensors&, double value) { return value; }
inline bool Convert(Tensors&, bool value) { return value; }
inline char* Convert(Tensors&, char* value) { return value; }
inline int64_t Convert(Tensors&, int64_t value) { return value; }

// Raises unless `status` is aclnn's success, naming the API (phase is "GetWorkspaceSize" or "") and CANN's message.
void Check(const Api& api, const char* phase, aclnnStatus status);

// Allocates the workspace on `device` and queues phase 2 on the current stream.
void Submit(const Api& api, std::shared_ptr<Tensors> tensors, uint64_t workspaceSize, aclOpExecutor* executor,
            const c10::Device& device);

}  // namespace detail

// api(args...): phase 1 now, phase 2 queued on torch_npu's current stream (of the current device: the caller guards
// it), with the workspace on `device`. args are the aclnn API's in order (inputs, attributes, outputs), NPU tensors
// and double/bool attributes.
template <typename... Args>
void Run(const Api& api, const c10::Device& device, const Args&... args)
{
    using GetWorkspaceSize = aclnnStatus (*)(typename detail::Param<Args>::Type..., uint64_t*, aclOpExecutor**);
    auto tensors = std::make_shared<detail::Tensors>();
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    detail::Check(api, "GetWorkspaceSize",
                  reinterpret_cast<GetWorkspaceSize>(api.getWorkspaceSize)(detail::Convert(*tensors, args)...,
                                                                          &workspaceSize, &executor));
    detail::Submit(api, std::move(tensors), workspaceSize, executor, device);
}

}  // namespace actgrad::aclnn
