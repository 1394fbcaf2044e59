// C++ rather than Python kernels: a Python kernel at each of these two dispatch keys cost about 13 us per call.
#include "out_autograd.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace actgrad {
namespace {

std::mutex& RegistryMutex() {
    static std::mutex m;
    return m;
}
// operator name (ns::name) -> the refusal message; never destroyed, like the registrations below
std::map<std::string, std::string>& Messages() {
    static auto* messages = new std::map<std::string, std::string>();
    return *messages;
}

const std::string& MessageOf(const c10::OperatorHandle& op) {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    return Messages().at(op.schema().name());
}

void OutAutograd(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
    if (at::GradMode::is_enabled()) {
        const size_t n = op.schema().arguments().size();
        for (auto it = stack->end() - n; it != stack->end(); ++it)
            TORCH_CHECK(!(it->isTensor() && it->toTensor().defined() && it->toTensor().requires_grad()), MessageOf(op));
    }
    at::AutoDispatchBelowAutograd guard;
    op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
}

void OutAdInplaceOrView(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
    // None (an undefined tensor here) is refused by the kernel below, naming `out`
    const c10::IValue& out = stack->back();
    if (out.isTensor() && out.toTensor().defined() && !out.toTensor().is_inference())
        torch::autograd::impl::bump_version(out.toTensor());
    op.redispatchBoxed(keys & c10::after_ADInplaceOrView_keyset, stack);
}

}  // namespace

void RegisterOutAutograd(const std::string& ns, const std::string& name, const std::string& message) {
    // registrations live as long as the process: destroying them at exit could run after torch's own teardown
    static auto* libraries = new std::vector<std::unique_ptr<torch::Library>>();
    std::lock_guard<std::mutex> lock(RegistryMutex());
    Messages()[ns + "::" + name] = message;
    auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, ns, std::nullopt, __FILE__, __LINE__);
    const std::string overload = name + ".out";
    lib->impl(overload.c_str(), torch::dispatch(c10::DispatchKey::Autograd,
                                             torch::CppFunction::makeFromBoxedFunction<&OutAutograd>()));
    lib->impl(overload.c_str(), torch::dispatch(c10::DispatchKey::ADInplaceOrView,
                                             torch::CppFunction::makeFromBoxedFunction<&OutAdInplaceOrView>()));
    libraries->push_back(std::move(lib));
}

}  // namespace actgrad
