// A fake of the torch_npu and CANN runtime functions the bridge calls (the declarations of tests/npu_stub), linked
// into a test build of actgrad._npu so that its launch runs on CPU tensors (tests/test_npu_bridge.py): aclCreateTensor
// records its arguments, OpCommand::Run runs the custom handler at once, as torch_npu does with its task queue off.
#include <c10/util/Exception.h>

#include <string>
#include <utility>

#include <torch_npu/csrc/core/npu/NPUStream.h>
#include <torch_npu/csrc/framework/OpCommand.h>

#include "fake_acl.h"

namespace {
int g_destroyed = 0;
at_npu::native::PROC_FUNC g_handler;
}  // namespace

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t* stride,
                           int64_t offset, aclFormat format, const int64_t* storageDims, uint64_t storageDimsNum,
                           void* tensorData)
{
    return new aclTensor{{viewDims, viewDims + viewDimsNum}, {stride, stride + viewDimsNum},
                         {storageDims, storageDims + storageDimsNum}, offset, dataType, format, tensorData};
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor)
{
    ++g_destroyed;
    delete tensor;
    return 0;
}

const char* aclGetRecentErrMsg() { return "the fake CANN's message"; }

int fake_destroyed_tensors() { return g_destroyed; }

}  // extern "C"

namespace c10_npu {

NPUStream::NPUStream(c10::Stream stream) : stream_(stream) {}

aclrtStream NPUStream::stream(const bool) const { return reinterpret_cast<aclrtStream>(0x5157); }

NPUStream getCurrentNPUStream(c10::DeviceIndex)
{
    return NPUStream(c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::DeviceType::CPU)));
}

}  // namespace c10_npu

namespace at_npu::native {

OpCommand::OpCommand() = default;

OpCommand& OpCommand::Name(const std::string&) { return *this; }

OpCommand& OpCommand::SetCustomHandler(PROC_FUNC func)
{
    g_handler = std::move(func);
    return *this;
}

void OpCommand::Run()
{
    const PROC_FUNC handler = std::exchange(g_handler, nullptr);
    TORCH_CHECK(handler() == 0, "the custom handler failed");
}

}  // namespace at_npu::native
