// The autograd-side kernels of the operators' .out overloads, registered from Python (autograd.py) for each op.
#pragma once
#include <string>

namespace actgrad {

// For `ns::name.out` (which mutates its last argument, `out`): an Autograd kernel that refuses, with grad mode on,
// arguments requiring grad (RuntimeError `message`) and otherwise runs below autograd, and an ADInplaceOrView kernel
// that bumps the version counter of `out` so autograd notices the write.
void RegisterOutAutograd(const std::string& ns, const std::string& name, const std::string& message);

}  // namespace actgrad
