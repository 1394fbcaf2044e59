// The autograd-side kernels of the operators, registered from Python (python/actgrad/autograd.py) for each op. C++
// rather than Python kernels: torch.library's Python autograd wrapper cost about 25 us per functional call, and a
// Python kernel at each .out key about 13 us.
#pragma once
#include <string>

namespace actgrad {

// For `ns::name` (functional): an Autograd kernel that runs the op below autograd and, when grad mode is on and an
// input requires grad, makes the output require grad through a node whose backward calls
// `ns::<doubleBackwardOp>(grad, name)` for each input that wants a gradient. That op raises (its Meta kernel
// returns an empty tensor, so torch.compile traces the backward and the compiled backward raises, as eager does).
// An input with a forward-mode tangent is refused (NotImplementedError `forwardAdMessage`).
void RegisterFunctionalAutograd(const std::string& ns, const std::string& name, const std::string& doubleBackwardOp,
                                const std::string& forwardAdMessage);

// For `ns::name.out` (which mutates its last argument, `out`): an Autograd kernel that refuses, with grad mode on,
// arguments requiring grad (RuntimeError `message`), and tangents as above, and otherwise runs below autograd; and an
// ADInplaceOrView kernel that bumps the version counter of `out` so autograd notices the write.
void RegisterOutAutograd(const std::string& ns, const std::string& name, const std::string& message,
                         const std::string& forwardAdMessage);

}  // namespace actgrad
