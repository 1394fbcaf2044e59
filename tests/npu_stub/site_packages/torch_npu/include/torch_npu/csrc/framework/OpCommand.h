// Stand-in for torch_npu's include/torch_npu/csrc/framework/OpCommand.h, for compiling the bridge without torch_npu
// (tests/test_npu_bridge.py): only what op_host/torch_npu/ uses, declared as in Ascend/pytorch
// torch_npu/csrc/framework/OpCommand.h at 9e73e708 (master, which builds torch_npu 2.13.0; the class is TORCH_NPU_API,
// exported by libtorch_npu.so) and PROC_FUNC as in torch_npu/csrc/framework/OpParamMaker.h there.
#pragma once

#include <functional>
#include <string>

namespace at_npu {
namespace native {

using PROC_FUNC = std::function<int()>;

class OpCommand {
 public:
  OpCommand();
  ~OpCommand() {}

  OpCommand(const OpCommand& other) = delete;
  OpCommand(OpCommand&& other) = delete;
  OpCommand& operator=(const OpCommand&) = delete;
  OpCommand& operator=(OpCommand&&) = delete;

  OpCommand& Name(const std::string& name);

  OpCommand& SetCustomHandler(PROC_FUNC func);

  // Run a single op
  void Run();
};

} // namespace native
} // namespace at_npu
