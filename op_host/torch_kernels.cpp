#include "torch_kernels.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/InferenceMode.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "impl_library.h"
#include "lower_attrs.h"

namespace actgrad {
namespace {

// ------------------------------------------------------------------------------------------------ argument checks
// The order and wording of python/actgrad/checks.py, which the Meta kernels use.

std::string DtypeName(at::ScalarType t) { return "torch." + std::string(c10::getDtypeNames(t).first); }

std::string SupportedDtypes(const TorchOpSpec& op) {  // for messages
    std::string names;
    for (const std::string& d : op.dtypes) names += (names.empty() ? "torch." : ", torch.") + d;
    return names;
}

const at::Tensor& RequireTensor(const std::string& fn, const std::string& name, const c10::IValue& v) {
    // the dispatcher passes None (an undefined tensor) for a Tensor argument that is not one
    TORCH_CHECK_TYPE(v.isTensor() && v.toTensor().defined(), fn, ": ", name, " must be a Tensor, got NoneType");
    return v.toTensor();
}

void CheckInputs(const TorchOpSpec& op, const std::string& fn, const at::Tensor& in0, const at::Tensor& in1) {
    const std::string& name0 = op.inputs[0];
    const std::string& name1 = op.inputs[1];
    for (const auto& [name, t] : {std::pair<const std::string&, const at::Tensor&>{name0, in0}, {name1, in1}}) {
        const std::string_view dtype = c10::getDtypeNames(t.scalar_type()).first;
        bool supported = false;
        for (const std::string& d : op.dtypes) supported = supported || dtype == d;
        TORCH_CHECK(supported, fn, ": ", name, " has dtype ", DtypeName(t.scalar_type()), "; supported dtypes are ",
                    SupportedDtypes(op));
    }
    TORCH_CHECK(in0.scalar_type() == in1.scalar_type(), fn, ": ", name0, " and ", name1,
                " must have the same dtype, got ", DtypeName(in0.scalar_type()), " and ", DtypeName(in1.scalar_type()));
    TORCH_CHECK(in0.device() == in1.device(), fn, ": ", name0, " and ", name1, " must be on the same device, got ",
                in0.device(), " and ", in1.device());
    TORCH_CHECK(in0.sizes() == in1.sizes(), fn, ": ", name0, " and ", name1, " must have the same shape, got ",
                in0.sizes(), " and ", in1.sizes());
    TORCH_CHECK(in0.dim() <= op.maxRank, fn, ": ", name0, " has rank ", in0.dim(), "; at most ", op.maxRank,
                " dimensions are supported");
}

// `out` must match the result exactly: it is never resized or cast.
void CheckOut(const std::string& fn, const at::Tensor& out, const at::Tensor& like) {
    TORCH_CHECK(out.scalar_type() == like.scalar_type(), fn, ": out has dtype ", DtypeName(out.scalar_type()),
                ", expected ", DtypeName(like.scalar_type()));
    TORCH_CHECK(out.device() == like.device(), fn, ": out is on ", out.device(), ", expected ", like.device());
    TORCH_CHECK(out.sizes() == like.sizes(), fn, ": out has shape ", out.sizes(), ", expected ", like.sizes());
    // as ATen's out= functions refuse them (an inference tensor has no version counter for autograd to check)
    TORCH_CHECK(!out.is_inference() || c10::InferenceMode::is_enabled(), fn,
                ": out is an inference tensor (made under torch.inference_mode()), which cannot be written outside "
                "inference mode; pass out.clone() or call inside torch.inference_mode()");
    TORCH_CHECK(at::has_internal_overlap(out) != at::MemOverlap::Yes, fn,
                ": out has elements that share memory (an expanded or overlapping view), so the result cannot be "
                "written into it; pass a tensor with distinct elements, e.g. out.clone()");
}

// A str attribute's value as the kernel takes it: its index in the choices (python/actgrad/schema.py, choice_index,
// words the error alike).
double ChoiceIndex(const TorchOpSpec& op, const TorchAttr& a, const std::string& value) {
    for (size_t i = 0; i < a.choices.size(); ++i)
        if (a.choices[i] == value) return double(i);
    std::string expected;
    for (const std::string& c : a.choices) expected += (expected.empty() ? "'" : ", '") + c + "'";
    TORCH_CHECK_VALUE(false, op.opType, ": attribute '", a.name, "' = '", value, "' is invalid: expected one of ", expected);
}

// The attributes as the kernel takes them (python/actgrad/schema.py, attribute_values): schema order, bools as 0/1,
// str values as their index, the stand-in for an infinite default back to inf; then validated as float32 (ValueError
// naming the attribute).
std::vector<double> AttributeValues(const TorchOpSpec& op, c10::ArrayRef<c10::IValue> given) {
    std::vector<double> values;
    for (size_t i = 0; i < op.attrs.size(); ++i) {
        const TorchAttr& a = op.attrs[i];
        if (!a.choices.empty()) {
            values.push_back(ChoiceIndex(op, a, given[i].toStringRef()));
            continue;
        }
        if (a.type == "int") {
            values.push_back(double(given[i].toInt()));
            continue;
        }
        double v = a.type == "bool" ? (given[i].toBool() ? 1.0 : 0.0) : given[i].toDouble();
        if (a.infiniteDefault && std::fabs(v) == std::numeric_limits<double>::max())
            v = std::copysign(std::numeric_limits<double>::infinity(), v);
        values.push_back(v);
    }
    if (op.rowReduction) return values;  // the axis is checked against the rank (ReductionAxis); nothing to lower
    try {
        ElementwiseGradTiling scratch{};
        LowerAttrs(op.opType, values.data(), values.size(), scratch);
    } catch (const std::invalid_argument& e) {
        TORCH_CHECK_VALUE(false, e.what());
    }
    return values;
}

// A row operator's axis wrapped into [0, rank) (a 0-dimensional tensor is one row of one element, as ATen wraps it);
// IndexError naming it otherwise (python/actgrad/checks.py, reduction_axis, words it alike).
double ReductionAxis(const TorchOpSpec& op, const std::string& fn, double axis, int64_t rank) {
    const int64_t bound = std::max<int64_t>(rank, 1), a = int64_t(axis);
    TORCH_CHECK_INDEX(-bound <= a && a < bound, fn, ": axis ", a, " is out of range for a ", rank, "-dimensional ",
                      op.inputs[0], " (expected to be in range of [", -bound, ", ", bound - 1, "])");
    return double(a < 0 ? a + bound : a);
}

// ------------------------------------------------------------------------------------------------ memory format
// The result has the layout ATen gives its activation backward functions (hardtanh_backward & co.), which are binary
// TensorIterator ops on (grad_output, self): TensorIterator's output for the inputs (gradient, saved), in that order,
// or (saved, gradient) where ATen's counterpart iterates so (threshold_backward, leaky_relu_backward: spec.py layout_first).
// python/actgrad/meta_kernels.py computes the same strides for the Meta kernels.

// TensorIterator's output strides for two inputs of one shape (its fast setup, then reorder_dimensions and
// allocate_or_resize_outputs). Empty: contiguous.
std::vector<int64_t> ElementwiseOutputStrides(const at::Tensor& first, const at::Tensor& second) {
    if (first.is_contiguous() && second.is_contiguous()) return {};
    if (first.is_contiguous(at::MemoryFormat::ChannelsLast) && second.is_contiguous(at::MemoryFormat::ChannelsLast))
        return c10::get_channels_last_strides_2d(first.sizes());
    if (first.is_non_overlapping_and_dense() && second.is_non_overlapping_and_dense() &&
        first.strides() == second.strides())
        return second.strides().vec();
    const int64_t n = first.dim();
    if (n <= 1) return {};
    const at::IntArrayRef sizes = first.sizes();
    // 1: dim0 goes after dim1 (a larger stride), -1: before, 0: undecided; the first input decides first
    auto shouldSwap = [&](int64_t dim0, int64_t dim1) {
        for (const at::Tensor* t : {&first, &second}) {
            const int64_t stride0 = t->stride(dim0), stride1 = t->stride(dim1);
            if (stride0 == 0 || stride1 == 0) continue;
            if (stride0 != stride1) return stride0 < stride1 ? -1 : 1;
            if (sizes[dim0] > sizes[dim1]) return 1;
        }
        return 0;
    };
    std::vector<int64_t> perm(n);  // fastest-moving dimension first
    for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
    for (int64_t i = 1; i < n; ++i) {
        int64_t dim1 = i;
        for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
            const int comparison = shouldSwap(perm[dim0], perm[dim1]);
            if (comparison > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (comparison < 0) {
                break;
            }
        }
    }
    bool inverted = true;
    for (int64_t i = 0; i < n; ++i) inverted = inverted && perm[i] == n - 1 - i;
    if (inverted) return {};
    std::vector<int64_t> strides(n);
    int64_t next = 1;
    for (int64_t i = 0; i < n; ++i) {
        strides[perm[i]] = next;
        next *= sizes[perm[i]];
    }
    return strides;
}

// The elements of a and b (one shape) lie in the same order in memory: equal strides wherever the size exceeds 1.
bool SameLayout(const at::Tensor& a, const at::Tensor& b) {
    for (int64_t d = 0; d < a.dim(); ++d)
        if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
    return true;
}

// t in the layout of the dense tensor `like`: t itself when it has it, else a copy.
at::Tensor InLayoutOf(const at::Tensor& t, const at::Tensor& like) {
    if (SameLayout(t, like)) return t;
    at::Tensor copy = at::empty_strided(like.sizes(), like.strides(), t.options());
    copy.copy_(t);
    return copy;
}

// A dense tensor's elements as the contiguous 1-D tensor of its memory (strides are never negative, so its first
// element is its lowest address): what the kernels launch on, whatever the layout.
at::Tensor Flat(const at::Tensor& dense) { return dense.as_strided({dense.numel()}, {1}); }

// ------------------------------------------------------------------------------------------------ kernels

bool Overlap(const at::Tensor& a, const at::Tensor& b) {  // two dense tensors share a byte
    const auto* a0 = static_cast<const char*>(a.data_ptr());
    const auto* b0 = static_cast<const char*>(b.data_ptr());
    return a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// The kernel may write into the dense `out` while it reads saved/grad (in out's layout): out is disjoint from both or
// exactly the gradient (in-place, as oneDNN allows diff_src to alias diff_dst).
bool CanWriteInto(const at::Tensor& out, const at::Tensor& saved, const at::Tensor& grad) {
    if (Overlap(out, saved)) return false;
    return !Overlap(out, grad) || out.data_ptr() == grad.data_ptr();
}

class Kernel final : public c10::OperatorKernel {
public:
    Kernel(TorchOpSpec op, bool outVariant, LaunchFn launch)
        : op_(std::move(op)), outVariant_(outVariant), launch_(std::move(launch)), fn_("actgrad." + op_.name) {}

    void operator()(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack* stack) {
        const size_t n = 2 + op_.attrs.size() + (outVariant_ ? 1 : 0);
        const c10::ArrayRef<c10::IValue> args = torch::jit::last(stack, n);
        const at::Tensor& in0 = RequireTensor(fn_, op_.inputs[0], args[0]);
        const at::Tensor& in1 = RequireTensor(fn_, op_.inputs[1], args[1]);
        CheckInputs(op_, fn_, in0, in1);
        if (outVariant_) CheckOut(fn_, RequireTensor(fn_, "out", args[n - 1]), in0);
        std::vector<double> attrs = AttributeValues(op_, args.slice(2, op_.attrs.size()));
        if (op_.rowReduction) attrs[0] = ReductionAxis(op_, fn_, attrs[0], in0.dim());
        if (outVariant_) {
            const at::Tensor out = args[n - 1].toTensor();
            if (out.numel() > 0) RunInto(out, in0, in1, attrs);
            torch::jit::drop(stack, n);
        } else {
            at::Tensor result = Compute(in0, in1, attrs);
            torch::jit::drop(stack, n);
            torch::jit::push(stack, std::move(result));
        }
    }

private:
    const at::Tensor& Grad(const at::Tensor& in0, const at::Tensor& in1) const {
        return op_.savedIndex == 0 ? in1 : in0;
    }
    const at::Tensor& Saved(const at::Tensor& in0, const at::Tensor& in1) const {
        return op_.savedIndex == 0 ? in0 : in1;
    }

    // in0, in1 and out in one dense layout
    void Launch(const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out, const std::vector<double>& attrs) const {
        if (out.is_contiguous()) {
            launch_(op_.opType, in0, in1, out, attrs);
        } else {
            launch_(op_.opType, Flat(in0), Flat(in1), Flat(out), attrs);
        }
    }

    // The functional result, in ATen's layout: a row operator's is contiguous (as _softmax_backward_data's), and its
    // kernel reads rows in the logical layout, so strided inputs are made contiguous.
    at::Tensor Compute(const at::Tensor& in0, const at::Tensor& in1, const std::vector<double>& attrs) const {
        if (op_.rowReduction) {
            at::Tensor result = at::empty(in0.sizes(), in0.options());
            if (result.numel() > 0) launch_(op_.opType, in0.contiguous(), in1.contiguous(), result, attrs);
            return result;
        }
        const std::vector<int64_t> strides = op_.layoutFirst == 0 ? ElementwiseOutputStrides(in0, in1)
                                                                  : ElementwiseOutputStrides(in1, in0);
        at::Tensor result = strides.empty() ? at::empty(in0.sizes(), in0.options())
                                            : at::empty_strided(in0.sizes(), strides, in0.options());
        if (result.numel() > 0) Launch(InLayoutOf(in0, result), InLayoutOf(in1, result), result, attrs);
        return result;
    }

    void RunInto(const at::Tensor& out, const at::Tensor& in0, const at::Tensor& in1, const std::vector<double>& attrs) const {
        if (op_.rowReduction) {
            if (out.is_contiguous()) {
                const at::Tensor a = in0.contiguous(), b = in1.contiguous();
                if (CanWriteInto(out, Saved(a, b), Grad(a, b))) {
                    launch_(op_.opType, a, b, out, attrs);
                    return;
                }
            }
            out.copy_(Compute(in0, in1, attrs));
            return;
        }
        if (out.is_non_overlapping_and_dense()) {
            const at::Tensor a = InLayoutOf(in0, out), b = InLayoutOf(in1, out);
            if (CanWriteInto(out, Saved(a, b), Grad(a, b))) {
                Launch(a, b, out, attrs);
                return;
            }
        }
        out.copy_(Compute(in0, in1, attrs));
    }

    const TorchOpSpec op_;
    const bool outVariant_;
    const LaunchFn launch_;
    const std::string fn_;
};

}  // namespace

TorchOpSpec MakeTorchOpSpec(const std::string& ns, const std::string& name, const std::string& opType,
                            const std::vector<std::string>& inputs, int64_t savedIndex, const std::vector<AttrTuple>& attrs,
                            const std::vector<std::string>& dtypes, int64_t maxRank, int64_t layoutFirst,
                            bool rowReduction) {
    TORCH_CHECK(inputs.size() == 2 && (savedIndex == 0 || savedIndex == 1) && (layoutFirst == 0 || layoutFirst == 1),
                "actgrad: ", name, " must have two tensor inputs, the saved one and the layout-deciding one at index 0 or 1");
    TORCH_CHECK(!rowReduction || (attrs.size() == 1 && std::get<1>(attrs[0]) == "int"),
                "actgrad: ", name, " is a row operator: its one attribute must be the int axis");
    TorchOpSpec spec{ns, name, opType, inputs, savedIndex, {}, dtypes, maxRank, layoutFirst, rowReduction};
    for (const auto& [attr, type, infiniteDefault, choices] : attrs)
        spec.attrs.push_back({attr, type, infiniteDefault, choices});
    return spec;
}

void RegisterKernels(const TorchOpSpec& spec, c10::DispatchKey key, LaunchFn launch) {
    torch::Library& lib = ImplLibrary(spec.ns, __FILE__, __LINE__);
    for (const bool outVariant : {false, true}) {
        const std::string overload = spec.name + (outVariant ? ".out" : "");
        lib.impl(overload.c_str(), torch::dispatch(key, torch::CppFunction::makeFromBoxedFunctor(
                                                            std::make_unique<Kernel>(spec, outVariant, launch))));
    }
}

}  // namespace actgrad
