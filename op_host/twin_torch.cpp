#include "twin_torch.h"

#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>  // at::internal::GRAIN_SIZE

#include <cstdlib>
#include <mutex>

#include "twin_launch.h"

namespace actgrad {
namespace {

constexpr const char* kSocEnvVar = "ACTGRAD_SOC";
constexpr const char* kFallbackSoc = "Ascend910B2";

std::mutex& SocMutex() {
    static std::mutex m;
    return m;
}
std::string& ChosenSoc() {  // guarded by SocMutex: kernels read it from any thread
    static std::string name;
    return name;
}

bool KnownSoc(const std::string& name) {
    for (const auto& p : actgrad_sim::SocProfiles())
        if (name == p.name) return true;
    return false;
}

std::string KnownSocs() {  // for messages
    std::string known;
    for (const auto& p : actgrad_sim::SocProfiles()) known += std::string(known.empty() ? "" : ", ") + p.name;
    return known;
}

DtypeKey KeyOf(const at::Tensor& t) {
    switch (t.scalar_type()) {
        case at::kFloat: return kDtypeFloat;
        case at::kHalf: return kDtypeHalf;
        case at::kBFloat16: return kDtypeBf16;
        default: TORCH_CHECK_TYPE(false, "in0 must be float32, float16 or bfloat16, got ", t.scalar_type());
    }
}

}  // namespace

void SetDefaultSoc(const std::string& name) {
    TORCH_CHECK_VALUE(name.empty() || KnownSoc(name), "unknown SoC '", name, "'; known: ", KnownSocs());
    std::lock_guard<std::mutex> lock(SocMutex());
    ChosenSoc() = name;
}

std::string DefaultSoc() {
    {
        std::lock_guard<std::mutex> lock(SocMutex());
        if (!ChosenSoc().empty()) return ChosenSoc();
    }
    const char* env = std::getenv(kSocEnvVar);
    const std::string name = env ? env : kFallbackSoc;
    TORCH_CHECK_VALUE(KnownSoc(name), "$", kSocEnvVar, "='", name, "' is not a known SoC; known: ", KnownSocs());
    return name;
}

actgrad_sim::LaunchStats LaunchOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                      const at::Tensor& out, const std::vector<double>& attrs, const std::string& soc,
                                      int64_t threads) {
    const DtypeKey key = KeyOf(in0);
    for (const at::Tensor* t : {&in0, &in1, &out}) {
        TORCH_CHECK(t->device().is_cpu(), "actgrad twin launch: tensors must be on the CPU");
        TORCH_CHECK(t->is_contiguous(), "actgrad twin launch: tensors must be contiguous");
        TORCH_CHECK(t->scalar_type() == in0.scalar_type(), "actgrad twin launch: tensors must share one dtype");
        TORCH_CHECK(t->numel() == in0.numel(), "actgrad twin launch: tensors must have the same number of elements");
    }
    TORCH_CHECK(in0.numel() > 0, "actgrad twin launch: empty tensors launch no kernel");
    TORCH_CHECK(threads >= 0, "actgrad twin launch: threads must be >= 0");
    // blocks run on ATen's intra-op pool: a second pool would fight ATen's spinning threads for the cores. Below
    // ATen's own grain size the launch stays on the calling thread, as ATen's elementwise kernels do: waking the
    // pool costs more than the work (milliseconds when the cores are busy).
    actgrad_sim::LaunchOptions options;
    const bool small = in0.numel() < at::internal::GRAIN_SIZE;
    options.threads = threads > 0 ? uint32_t(threads) : small ? 1u : uint32_t(at::get_num_threads());
    options.runWorkers = [](uint32_t workers, const std::function<void(uint32_t)>& job) {
        at::parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
            for (int64_t w = begin; w < end; ++w) job(uint32_t(w));
        });
    };
    return RunOnTwin(opType, in0.data_ptr(), in1.data_ptr(), out.data_ptr(), uint64_t(in0.numel()), key, attrs, soc,
                     options);
}

void RegisterTwinKernels(const TorchOpSpec& spec) {
    RegisterKernels(spec, c10::DispatchKey::CPU,
                    [](const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
                       const std::vector<double>& attrs) { LaunchOnTwin(opType, in0, in1, out, attrs, DefaultSoc(), 0); });
}

}  // namespace actgrad
