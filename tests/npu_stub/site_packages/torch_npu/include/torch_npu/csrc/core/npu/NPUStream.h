// Stand-in for torch_npu's include/torch_npu/csrc/core/npu/NPUStream.h, for compiling the bridge without torch_npu
// (tests/test_npu_bridge.py): only what op_host/torch_npu/ uses, declared as in Ascend/pytorch
// torch_npu/csrc/core/npu/NPUStream.h at 9e73e708 (master, which builds torch_npu 2.13.0): getCurrentNPUStream and
// NPUStream::stream(need_empty), without their C10_NPU_API export attribute.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

#include "third_party/acl/inc/acl/acl_base.h"

namespace c10_npu {

class NPUStream {
 public:
  explicit NPUStream(c10::Stream stream);

  // Explicit conversion to rtStream_t, with out empty taskQ.
  aclrtStream stream(const bool need_empty) const;

 private:
  c10::Stream stream_;
};

NPUStream getCurrentNPUStream(c10::DeviceIndex device_index = -1);

} // namespace c10_npu
