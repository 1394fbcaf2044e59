// The CPU twin as a torch backend: the SoC profile launches run as, the launch of a kernel on torch tensors, and
// the CPU kernels of the operators (op_host/torch_kernels.h with this launch).
#pragma once
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "kernel_operator.h"
#include "torch_kernels.h"

namespace actgrad {

// The SoC launches run as: SetDefaultSoc's choice, else $ACTGRAD_SOC, else Ascend910B2. Unknown names raise
// ValueError. "" clears the choice.
void SetDefaultSoc(const std::string& name);
std::string DefaultSoc();

// Runs op's kernel on the twin as `soc`: in0/in1 in IR order, contiguous CPU tensors of one dtype and size; out
// likewise (it may be the gradient input). threads 0: ATen's intra-op threads, the calling thread alone below
// ATen's grain size. Does not touch the GIL: a caller holding it releases it around the call.
actgrad_sim::LaunchStats LaunchOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                      const at::Tensor& out, const std::vector<double>& attrs, const std::string& soc,
                                      int64_t threads);

// The CPU kernels of spec's operator: LaunchOnTwin on DefaultSoc().
void RegisterTwinKernels(const TorchOpSpec& spec);

}  // namespace actgrad
