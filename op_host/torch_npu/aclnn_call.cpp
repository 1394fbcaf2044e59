#include "aclnn_call.h"

#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include <torch_npu/csrc/core/npu/NPUStream.h>   // c10_npu::getCurrentNPUStream
#include <torch_npu/csrc/framework/OpCommand.h>  // at_npu::native::OpCommand

// Declared by CANN's acl/acl.h (libascendcl). torch_npu's headers include their own copy of acl.h first, under the
// same include guard, and older copies lack this declaration.
extern "C" const char* aclGetRecentErrMsg();

namespace actgrad::aclnn {
namespace {

constexpr aclnnStatus kSuccess = 0;  // aclnn's success status (acl_meta.h's OK)
const std::string kLibrary = "/op_api/lib/libcust_opapi.so";

std::string RecentError()
{
    const char* message = aclGetRecentErrMsg();
    return message != nullptr && *message != '\0' ? message : "no message from CANN (aclGetRecentErrMsg)";
}

std::string Trim(const std::string& s)
{
    const auto begin = s.find_first_not_of(" \t\r\n");
    return begin == std::string::npos ? "" : s.substr(begin, s.find_last_not_of(" \t\r\n") + 1 - begin);
}

// The non-empty entries of a list (trimmed, for config.ini's vendor names): a set_env.bash that prepends to an unset
// ASCEND_CUSTOM_OPP_PATH leaves a ':'.
std::vector<std::string> Split(const std::string& list, char separator, bool trim)
{
    std::vector<std::string> entries;
    size_t begin = 0;
    while (begin <= list.size()) {
        const size_t end = std::min(list.find(separator, begin), list.size());
        std::string entry = list.substr(begin, end - begin);
        if (trim) entry = Trim(entry);
        if (!entry.empty()) entries.push_back(entry);
        begin = end + 1;
    }
    return entries;
}

struct Candidate {
    std::string path;
    std::string via;
};

// The libraries torch_npu would look in for a custom aclnn API, in its order (python/actgrad/npu.py lists the same).
std::vector<Candidate> Candidates()
{
    std::vector<Candidate> candidates;
    if (const char* custom = std::getenv("ASCEND_CUSTOM_OPP_PATH")) {
        for (const std::string& dir : Split(custom, ':', false))
            candidates.push_back({dir + kLibrary, "ASCEND_CUSTOM_OPP_PATH"});
    }
    if (const char* opp = std::getenv("ASCEND_OPP_PATH"); opp != nullptr && *opp != '\0') {
        const std::string vendors = std::string(opp) + "/vendors";
        std::ifstream config(vendors + "/config.ini");
        for (std::string line; std::getline(config, line);) {
            if (line.rfind("load_priority=", 0) != 0) continue;
            for (const std::string& vendor : Split(line.substr(line.find('=') + 1), ',', true))
                candidates.push_back({vendors + "/" + vendor + kLibrary, "$ASCEND_OPP_PATH/vendors/config.ini"});
            break;
        }
    }
    return candidates;
}

bool SameFile(const char* a, const struct stat& b)
{
    struct stat info {};
    return stat(a, &info) == 0 && info.st_dev == b.st_dev && info.st_ino == b.st_ino;
}

// A symbol `library` itself defines (dlsym on a handle also searches the libraries it depends on).
void* OwnSymbol(void* handle, const std::string& symbol, const struct stat& library)
{
    void* address = dlsym(handle, symbol.c_str());
    Dl_info info{};
    return address != nullptr && dladdr(address, &info) != 0 && SameFile(info.dli_fname, library) ? address : nullptr;
}

// Loads `name` from the candidate into *api, or says why it cannot serve.
std::string Load(const Candidate& candidate, const std::string& name, Api* api)
{
    struct stat library {};
    if (stat(candidate.path.c_str(), &library) != 0) return "absent";
    const uid_t user = getuid();
    if (library.st_uid != user && library.st_uid != 0) {
        return "owned by uid " + std::to_string(library.st_uid) + ", neither this user (uid " + std::to_string(user) +
               ") nor root: skipped, as torch_npu skips it";
    }
    void* handle = dlopen(candidate.path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) return std::string("does not load: ") + dlerror();
    void* phase1 = OwnSymbol(handle, name + "GetWorkspaceSize", library);
    void* phase2 = OwnSymbol(handle, name, library);
    if (phase1 == nullptr || phase2 == nullptr) {
        dlclose(handle);
        return "does not export " + name + (phase1 == nullptr ? "GetWorkspaceSize" : "");
    }
    *api = Api{name, candidate.path, phase1, reinterpret_cast<decltype(Api::run)>(phase2)};  // the handle stays open
    return "";
}

aclDataType DataType(const at::Tensor& tensor)
{
    const at::ScalarType type = tensor.scalar_type();
    TORCH_CHECK(type == at::kFloat || type == at::kHalf || type == at::kBFloat16,
                "actgrad._npu: no aclnn data type for ", type);
    return type == at::kFloat ? ACL_FLOAT : type == at::kHalf ? ACL_FLOAT16 : ACL_BF16;
}

}  // namespace

Api Resolve(const std::string& name)
{
    std::string searched;
    for (const Candidate& candidate : Candidates()) {
        Api api{};
        const std::string reason = Load(candidate, name, &api);
        if (reason.empty()) return api;
        searched += "\n  " + candidate.path + " (via " + candidate.via + "): " + reason;
    }
    C10_THROW_ERROR(Error, c10::str("actgrad._npu: no libcust_opapi.so exporting ", name, " was found; searched:",
                                    searched.empty() ? "\n  nothing: ASCEND_CUSTOM_OPP_PATH is not set and "
                                                       "$ASCEND_OPP_PATH/vendors/config.ini loads no vendor"
                                                     : searched,
                                    "\nInstall actgrad's CANN package (bash build.sh, then its .run with "
                                    "--install-path=<dir>) and source <dir>/vendors/actgrad/bin/set_env.bash before "
                                    "Python starts; `python -m actgrad.npu_check` says what is missing."));
}

namespace detail {

const aclTensor* Tensors::Add(const at::Tensor& tensor)
{
    // The view (shape, strides and offset in elements) on the whole storage, as torch_npu describes its tensors to
    // aclnn; ND, the only format of the package's OpDef. aclnn takes a non-const address for inputs too.
    const int64_t storageElements = static_cast<int64_t>(tensor.storage().nbytes() / tensor.itemsize());
    const aclTensor* created =
        aclCreateTensor(tensor.sizes().data(), tensor.sizes().size(), DataType(tensor), tensor.strides().data(),
                        tensor.storage_offset(), ACL_FORMAT_ND, &storageElements, 1,
                        const_cast<void*>(tensor.storage().data()));
    TORCH_CHECK(created != nullptr, "actgrad._npu: aclCreateTensor failed for a ", tensor.scalar_type(),
                " tensor of shape ", tensor.sizes(), ": ", RecentError());
    tensors_.push_back(created);
    return created;
}

void Tensors::Destroy()
{
    for (const aclTensor* tensor : tensors_) aclDestroyTensor(tensor);
    tensors_.clear();
}

void Check(const Api& api, const char* phase, aclnnStatus status)
{
    TORCH_CHECK(status == kSuccess, "actgrad._npu: ", api.name, phase, " failed with aclnn status ", status, " (",
                api.library, "): ", RecentError());
}

void Submit(const Api& api, std::shared_ptr<Tensors> tensors, uint64_t workspaceSize, aclOpExecutor* executor,
            const c10::Device& device)
{
    // Freed when Submit returns, before phase 2 runs, as op-plugin frees its workspaces: the caching allocator hands
    // the block on only to work queued after phase 2 on this stream.
    at::Tensor workspace;
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        workspace = at::empty({static_cast<int64_t>(workspaceSize)},
                              at::TensorOptions().dtype(at::kByte).device(device));
        workspaceAddr = workspace.mutable_data_ptr();
    }
    const aclrtStream stream = c10_npu::getCurrentNPUStream().stream(false);  // false: leave the task queue be
    // The handler runs on torch_npu's task-queue thread (or right away when the queue is off), after the ops queued
    // before it; an exception there is logged by torch_npu and fails the stream.
    at_npu::native::OpCommand command;
    command.Name(api.name)
        .SetCustomHandler([api, tensors, workspaceAddr, workspaceSize, executor, stream]() -> int {
            const aclnnStatus status = api.run(workspaceAddr, workspaceSize, executor, stream);
            tensors->Destroy();
            Check(api, "", status);
            return 0;
        })
        .Run();
}

}  // namespace detail
}  // namespace actgrad::aclnn
