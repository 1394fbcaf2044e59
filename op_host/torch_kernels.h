// The torch kernels of every operator (functional and .out) for a backend that runs the kernel: the CPU twin
// (op_host/twin_torch.cpp) and the NPU (op_host/torch_npu/aclnn_bridge.cpp). Registered from Python with the operator's
// spec entry (python/actgrad/library.py, npu.py). C++ rather than Python kernels: a Python kernel cost about 40 us
// per call, six times the twin's launch of a small tensor.
#pragma once
#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace actgrad {

struct TorchAttr {
    std::string name;
    std::string type;      // "float", "bool", "str" or "int" (python/actgrad/spec.py Attr.type)
    bool infiniteDefault;  // its schema default is the stand-in for +-inf (python/actgrad/schema.py, SCHEMA_INF)
    std::vector<std::string> choices;  // a str attribute's values; the kernel takes the index of the one given
};

// An attribute as Python passes it (python/actgrad/schema.py, kernel_spec): (name, type, infinite_default, choices).
using AttrTuple = std::tuple<std::string, std::string, bool, std::vector<std::string>>;

// What the kernels need of a spec entry (python/actgrad/spec.py).
struct TorchOpSpec {
    std::string ns, name, opType;
    std::vector<std::string> inputs;  // the two tensor arguments, IR order
    int64_t savedIndex;               // which of them is the saved forward tensor
    std::vector<TorchAttr> attrs;     // schema order
    std::vector<std::string> dtypes;  // supported, as torch names ("float32")
    int64_t maxRank;
    int64_t layoutFirst;              // which input's layout decides the functional result's strides first
    bool rowReduction;                // a row operator: reduces along its one attribute, the axis (spec.py family)
};

// The spec entry as Python passes it.
TorchOpSpec MakeTorchOpSpec(const std::string& ns, const std::string& name, const std::string& opType,
                            const std::vector<std::string>& inputs, int64_t savedIndex, const std::vector<AttrTuple>& attrs,
                            const std::vector<std::string>& dtypes, int64_t maxRank, int64_t layoutFirst,
                            bool rowReduction);

// Runs op_type's kernel: in0/in1 in IR order, contiguous, one dtype and size; out likewise, possibly the gradient
// input itself; attrs in schema order, bools as 0/1, validated (a row operator's axis wrapped into [0, rank)). It picks the device (the NPU launch guards the
// inputs' device, whose stream it queues on).
using LaunchFn = std::function<void(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                    const at::Tensor& out, const std::vector<double>& attrs)>;

// Registers `launch` as the `key` kernel of spec.ns::spec.name and of its .out overload. The kernels check their
// arguments as the Meta kernels (python/actgrad/checks.py) do, in the same order and with the same messages
// (tests/test_bad_input.py compares them), then launch; .out launches into `out` where the kernel may write it
// and copies otherwise.
void RegisterKernels(const TorchOpSpec& spec, c10::DispatchKey key, LaunchFn launch);

}  // namespace actgrad
