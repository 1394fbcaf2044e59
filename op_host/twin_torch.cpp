#include "twin_torch.h"

#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>  // at::internal::GRAIN_SIZE

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>

#include "twin_launch.h"

namespace actgrad {
namespace {

std::mutex& SocMutex() {
    static std::mutex m;
    return m;
}
std::string& ChosenSoc() {  // guarded by SocMutex: kernels read it from any thread
    static std::string name;
    return name;
}
std::string& ThreadSoc() {
    static thread_local std::string name;
    return name;
}

bool KnownSoc(const std::string& name) {
    for (const auto& p : actgrad_sim::SocProfiles())
        if (name == p.name) return true;
    return false;
}

void CheckSocName(const std::string& name) {  // "" (no choice) or a known SoC
    TORCH_CHECK_VALUE(name.empty() || KnownSoc(name), "unknown SoC '", name, "'; known: ",
                      actgrad_sim::KnownSocNames());
}

// The registered operators by OpType (RegisterTwinKernels), for the names and the gradient input of CheckOutAliases.
std::mutex& SpecMutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, TorchOpSpec>& Specs() {  // guarded by SpecMutex
    static std::map<std::string, TorchOpSpec> specs;
    return specs;
}

// Runs `f`, turning the twin's std::invalid_argument (an environment variable's rule) into ValueError.
template <typename F>
auto AsValueError(F f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        TORCH_CHECK_VALUE(false, e.what());
    }
}

DtypeKey KeyOf(const at::Tensor& t) {
    switch (t.scalar_type()) {
        case at::kFloat: return kDtypeFloat;
        case at::kHalf: return kDtypeHalf;
        case at::kBFloat16: return kDtypeBf16;
        default: TORCH_CHECK_TYPE(false, "in0 must be float32, float16 or bfloat16, got ", t.scalar_type());
    }
}

// The bytes [first, last) a tensor's elements lie in (PyTorch strides are never negative).
std::pair<uintptr_t, uintptr_t> Span(const at::Tensor& t) {
    const auto first = reinterpret_cast<uintptr_t>(t.data_ptr());
    int64_t last = 0;
    for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    return {first, first + uintptr_t((last + 1) * int64_t(t.element_size()))};
}

// The same elements at the same addresses (the stride of a size-1 dimension never moves an address).
bool SameElements(const at::Tensor& a, const at::Tensor& b) {
    if (a.data_ptr() != b.data_ptr() || a.sizes() != b.sizes()) return false;
    for (int64_t d = 0; d < a.dim(); ++d)
        if (a.size(d) > 1 && a.stride(d) != b.stride(d)) return false;
    return true;
}

}  // namespace

void SetDefaultSoc(const std::string& name) {
    CheckSocName(name);
    std::lock_guard<std::mutex> lock(SocMutex());
    ChosenSoc() = name;
}

std::string DefaultSoc() {
    {
        std::lock_guard<std::mutex> lock(SocMutex());
        if (!ChosenSoc().empty()) return ChosenSoc();
    }
    const actgrad_sim::SocProfile* env = AsValueError([] { return actgrad_sim::EnvSoc(); });
    return env != nullptr ? env->name : actgrad_sim::kDefaultSocName;
}

void SetThreadSoc(const std::string& name) {
    CheckSocName(name);
    ThreadSoc() = name;
}

void CheckEnvironment() {
    actgrad_sim::EnvSoc();
    actgrad_sim::EnvThreads();
}

void CheckOutAliases(const std::string& fn, const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                     const at::Tensor& out) {
    if (out.numel() == 0) return;
    const auto [outFirst, outEnd] = Span(out);
    for (int64_t i = 0; i < 2; ++i) {
        const at::Tensor& in = i == 0 ? in0 : in1;
        if (in.numel() == 0) continue;
        const auto [first, end] = Span(in);
        if (end <= outFirst || outEnd <= first) continue;  // disjoint
        std::vector<std::string> inputs{"in0", "in1"};
        int64_t gradIndex = -1;
        {
            std::lock_guard<std::mutex> lock(SpecMutex());
            const auto it = Specs().find(opType);
            if (it != Specs().end()) {
                inputs = it->second.inputs;
                gradIndex = 1 - it->second.savedIndex;
            }
        }
        if (i == gradIndex && SameElements(out, in)) continue;  // in place into the gradient
        const std::string grad = gradIndex < 0 ? "the gradient input" : inputs[gradIndex];
        TORCH_CHECK(false, fn, ": out shares memory with ", inputs[i], "; out may be ", grad,
                    " itself (in place) or share no memory with ", inputs[0], " and ", inputs[1]);
    }
}

namespace {

// The tensors of a launch: contiguous CPU tensors of one supported dtype and size, not empty. Returns the dtype.
DtypeKey CheckLaunchTensors(const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out) {
    const DtypeKey key = KeyOf(in0);
    for (const at::Tensor* t : {&in0, &in1, &out}) {
        TORCH_CHECK(t->device().is_cpu(), "actgrad twin launch: tensors must be on the CPU");
        TORCH_CHECK(t->is_contiguous(), "actgrad twin launch: tensors must be contiguous");
        TORCH_CHECK(t->scalar_type() == in0.scalar_type(), "actgrad twin launch: tensors must share one dtype");
        TORCH_CHECK(t->numel() == in0.numel(), "actgrad twin launch: tensors must have the same number of elements");
    }
    TORCH_CHECK(in0.numel() > 0, "actgrad twin launch: empty tensors launch no kernel");
    return key;
}

// Where the blocks of a launch of `numel` elements run. threads 0: ATen's intra-op pool, see LaunchOnTwin.
actgrad_sim::LaunchOptions PoolOptions(int64_t numel, int64_t threads) {
    TORCH_CHECK(threads >= 0, "actgrad twin launch: threads must be >= 0");
    // blocks run on ATen's intra-op pool: a second pool would fight ATen's spinning threads for the cores. Below
    // ATen's own grain size the launch stays on the calling thread, as ATen's elementwise kernels do: waking the
    // pool costs more than the work (milliseconds when the cores are busy). $ACTGRAD_SIM_THREADS caps the count.
    actgrad_sim::LaunchOptions options;
    if (threads > 0) {
        options.threads = uint32_t(threads);
    } else {
        const bool small = numel < at::internal::GRAIN_SIZE;
        options.threads = small ? 1u : uint32_t(std::max(1, at::get_num_threads()));
        if (const uint32_t cap = AsValueError([] { return actgrad_sim::EnvThreads(); }))
            options.threads = std::min(options.threads, cap);
    }
    options.runWorkers = [](uint32_t workers, const std::function<void(uint32_t)>& job) {
        at::parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
            for (int64_t w = begin; w < end; ++w) job(uint32_t(w));
        });
    };
    return options;
}

// A row reduction (row_op_registry.inc): launched over the [outer, R, inner] view of its tensors at its axis.
bool IsRowOp(const std::string& opType) {
    static const char* const kRowOps[] = {
#define ACTGRAD_ROW_OP(OpType, kernel, Functor, KnownAs) #OpType,
#include "row_op_registry.inc"
#undef ACTGRAD_ROW_OP
    };
    for (const char* name : kRowOps)
        if (opType == name) return true;
    return false;
}

// The [outer, R, inner] sizes of `t` at the row operator's axis, attrs[0], wrapped into [0, rank) by the torch
// kernels (a 0-dimensional tensor is one row of one element).
std::array<int64_t, 3> RowView(const std::string& opType, const at::Tensor& t, const std::vector<double>& attrs) {
    TORCH_CHECK_VALUE(attrs.size() == 1, "actgrad twin launch: ", opType, " takes one attribute, the axis; got ",
                      attrs.size());
    const int64_t axis = int64_t(attrs[0]);
    TORCH_CHECK_VALUE(double(axis) == attrs[0] && 0 <= axis && axis < std::max<int64_t>(t.dim(), 1),
                      "actgrad twin launch: ", opType, ": the axis must be wrapped into [0, rank) for a tensor of rank ",
                      t.dim(), ", got ", attrs[0]);
    std::array<int64_t, 3> view{1, 1, 1};
    for (int64_t d = 0; d < t.dim(); ++d) view[d < axis ? 0 : d == axis ? 1 : 2] *= t.size(d);
    return view;
}

}  // namespace

actgrad_sim::LaunchStats LaunchOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                      const at::Tensor& out, const std::vector<double>& attrs, const std::string& soc,
                                      int64_t threads) {
    if (IsRowOp(opType)) {
        TORCH_CHECK(in1.sizes() == in0.sizes() && out.sizes() == in0.sizes(),
                    "actgrad twin launch: ", opType, "'s tensors must have one shape");
        const auto [outer, rows, inner] = RowView(opType, in0, attrs);
        return LaunchRowsOnTwin(opType, in0, in1, out, outer, rows, inner, soc, threads);
    }
    const DtypeKey key = CheckLaunchTensors(in0, in1, out);
    return RunOnTwin(opType, in0.data_ptr(), in1.data_ptr(), out.data_ptr(), uint64_t(in0.numel()), key, attrs, soc,
                     PoolOptions(in0.numel(), threads));
}

actgrad_sim::LaunchStats LaunchRowsOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                          const at::Tensor& out, int64_t outer, int64_t rows, int64_t inner,
                                          const std::string& soc, int64_t threads) {
    const DtypeKey key = CheckLaunchTensors(in0, in1, out);
    TORCH_CHECK_VALUE(outer > 0 && rows > 0 && inner > 0, "actgrad twin launch_rows: outer, rows and inner must be > 0, "
                      "got ", outer, ", ", rows, ", ", inner);
    const int64_t numel = in0.numel();
    const bool fits = numel % outer == 0 && numel / outer % rows == 0 && numel / outer / rows == inner;
    TORCH_CHECK_VALUE(fits, "actgrad twin launch_rows: outer * rows * inner = ", outer,
                      " * ", rows, " * ", inner, " must equal the tensors' ", in0.numel(), " elements");
    return AsValueError([&] {
        return RunRowsOnTwin(opType, in0.data_ptr(), in1.data_ptr(), out.data_ptr(), uint64_t(outer), uint64_t(rows),
                             uint64_t(inner), key, soc, PoolOptions(in0.numel(), threads));
    });
}

void RegisterTwinKernels(const TorchOpSpec& spec) {
    {
        std::lock_guard<std::mutex> lock(SpecMutex());
        Specs().insert_or_assign(spec.opType, spec);
    }
    RegisterKernels(spec, c10::DispatchKey::CPU,
                    [](const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
                       const std::vector<double>& attrs) {
                        const std::string& threadSoc = ThreadSoc();
                        LaunchOnTwin(opType, in0, in1, out, attrs, threadSoc.empty() ? DefaultSoc() : threadSoc, 0);
                    });
}

}  // namespace actgrad
