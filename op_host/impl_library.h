// The torch::Library objects the C++ kernels are registered through.
#pragma once
#include <torch/library.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace actgrad {

// A new IMPL library of `ns` that lives as long as the process: destroying registrations at exit could run after
// torch's own teardown.
inline torch::Library& ImplLibrary(const std::string& ns, const char* file, uint32_t line) {
    static std::mutex mutex;
    static auto* libraries = new std::vector<std::unique_ptr<torch::Library>>();
    std::lock_guard<std::mutex> lock(mutex);
    libraries->push_back(std::make_unique<torch::Library>(torch::Library::IMPL, ns, std::nullopt, file, line));
    return *libraries->back();
}

}  // namespace actgrad
