#include "autograd_kernels.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/library.h>

#include <memory>
#include <string>

#include "impl_library.h"

namespace actgrad {
namespace {

bool IsDefinedTensor(const c10::IValue& v) { return v.isTensor() && v.toTensor().defined(); }

// Forward-mode AD would drop the tangent silently: refuse it (a tangent at the default level, as ATen checks).
void RefuseForwardAd(const c10::OperatorHandle& op, const torch::jit::Stack& stack, const std::string& message) {
    const size_t n = op.schema().arguments().size();
    for (auto it = stack.end() - n; it != stack.end(); ++it)
        TORCH_CHECK_NOT_IMPLEMENTED(!(IsDefinedTensor(*it) && it->toTensor()._fw_grad(/*level=*/0).defined()), message);
}

// Refuses, with grad mode on, arguments requiring grad, and tangents; otherwise runs below autograd.
class OutAutograd final : public c10::OperatorKernel {
public:
    OutAutograd(std::string message, std::string forwardAdMessage)
        : message_(std::move(message)), forwardAdMessage_(std::move(forwardAdMessage)) {}

    void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
        if (at::GradMode::is_enabled()) {
            const size_t n = op.schema().arguments().size();
            for (auto it = stack->end() - n; it != stack->end(); ++it)
                TORCH_CHECK(!(IsDefinedTensor(*it) && it->toTensor().requires_grad()), message_);
        }
        RefuseForwardAd(op, *stack, forwardAdMessage_);
        at::AutoDispatchBelowAutograd guard;
        op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
    }

private:
    const std::string message_;
    const std::string forwardAdMessage_;
};

void OutAdInplaceOrView(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
    // None (an undefined tensor here) is refused by the kernel below, naming `out`
    const c10::IValue& out = stack->back();
    if (out.isTensor() && out.toTensor().defined() && !out.toTensor().is_inference())
        torch::autograd::impl::bump_version(out.toTensor());
    op.redispatchBoxed(keys & c10::after_ADInplaceOrView_keyset, stack);
}

// The grad_fn of a functional op's output: its backward is the op's derivative, which actgrad does not implement.
class NoDoubleBackward final : public torch::autograd::Node {
public:
    NoDoubleBackward(std::string opName, const c10::OperatorHandle& raising)
        : opName_(std::move(opName)), raising_(raising) {}

    std::string name() const override { return opName_ + "DoubleBackward"; }

    // compiled autograd cannot capture this node: it raises as the eager backward does
    void compiled_args(torch::dynamo::autograd::CompiledNodeArgs&) const override { Raise(at::empty({0})); }

    torch::autograd::variable_list apply(torch::autograd::variable_list&& grads) override {
        // a downstream node that sends no gradient (None) leaves it undefined: zeros, as autograd.Function would
        const at::Tensor grad = grads[0].defined() ? grads[0] : input_metadata(0).zeros_like();
        torch::autograd::variable_list result(num_outputs());
        for (size_t i = 0; i < num_outputs(); ++i)
            if (task_should_compute_output(i)) result[i] = Raise(grad);
        return result;
    }

private:
    // raises NotImplementedError naming the op (eager), or traces the call (torch.compile)
    at::Tensor Raise(const at::Tensor& grad) const {
        torch::jit::Stack stack{grad, opName_};
        raising_.callBoxed(stack);
        return stack.back().toTensor();
    }

    const std::string opName_;
    const c10::OperatorHandle raising_;
};

class FunctionalAutograd final : public c10::OperatorKernel {
public:
    FunctionalAutograd(std::string opName, const c10::OperatorHandle& raising, std::string forwardAdMessage)
        : opName_(std::move(opName)), raising_(raising), forwardAdMessage_(std::move(forwardAdMessage)) {}

    void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
        RefuseForwardAd(op, *stack, forwardAdMessage_);
        const size_t n = op.schema().arguments().size();
        // the two tensor inputs lead the arguments; anything else is refused below, naming the argument
        const c10::IValue& a = *(stack->end() - n);
        const c10::IValue& b = *(stack->end() - n + 1);
        const bool tensors = IsDefinedTensor(a) && IsDefinedTensor(b);
        const bool differentiable = tensors && at::GradMode::is_enabled() &&
                                    (a.toTensor().requires_grad() || b.toTensor().requires_grad());
        const at::Tensor in0 = differentiable ? a.toTensor() : at::Tensor();
        const at::Tensor in1 = differentiable ? b.toTensor() : at::Tensor();
        {
            at::AutoDispatchBelowADInplaceOrView guard;
            op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
        }
        if (!differentiable) return;
        auto node = c10::make_intrusive<NoDoubleBackward>(opName_, raising_);
        node->set_next_edges(torch::autograd::collect_next_edges(in0, in1));
        torch::autograd::set_history(stack->back().toTensor(), node);
    }

private:
    const std::string opName_;
    const c10::OperatorHandle raising_;
    const std::string forwardAdMessage_;
};

}  // namespace

void RegisterFunctionalAutograd(const std::string& ns, const std::string& name, const std::string& doubleBackwardOp,
                                const std::string& forwardAdMessage) {
    const c10::OperatorHandle raising =
        c10::Dispatcher::singleton().findSchemaOrThrow((ns + "::" + doubleBackwardOp).c_str(), "");
    ImplLibrary(ns, __FILE__, __LINE__)
        .impl(name.c_str(), torch::dispatch(c10::DispatchKey::Autograd,
                                            torch::CppFunction::makeFromBoxedFunctor(std::make_unique<FunctionalAutograd>(
                                                name, raising, forwardAdMessage))));
}

void RegisterOutAutograd(const std::string& ns, const std::string& name, const std::string& message,
                         const std::string& forwardAdMessage) {
    const std::string overload = name + ".out";
    torch::Library& lib = ImplLibrary(ns, __FILE__, __LINE__);
    lib.impl(overload.c_str(), torch::dispatch(c10::DispatchKey::Autograd,
                                            torch::CppFunction::makeFromBoxedFunctor(
                                                std::make_unique<OutAutograd>(message, forwardAdMessage))));
    lib.impl(overload.c_str(), torch::dispatch(c10::DispatchKey::ADInplaceOrView,
                                            torch::CppFunction::makeFromBoxedFunction<&OutAdInplaceOrView>()));
}

}  // namespace actgrad
