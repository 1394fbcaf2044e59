// The CPU twin as a torch backend: the SoC profile launches run as, the launch of a kernel on torch tensors, and
// the CPU kernels of the operators (op_host/torch_kernels.h with this launch).
#pragma once
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "kernel_operator.h"
#include "torch_kernels.h"

namespace actgrad {

// The SoC launches run as: SetDefaultSoc's choice, else $ACTGRAD_SOC (unset or empty: no choice), else Ascend910B2.
// Unknown names raise ValueError (for $ACTGRAD_SOC naming the variable and listing the known SoCs). "" clears the
// choice.
void SetDefaultSoc(const std::string& name);
std::string DefaultSoc();

// The SoC of the calling thread's launches, over DefaultSoc() ("" clears it): how actgrad.launch_stats runs an
// operator as a given SoC without changing it for other threads.
void SetThreadSoc(const std::string& name);

// Checks the environment variables the twin reads, with the rules its launches apply ($ACTGRAD_SOC: a known SoC;
// $ACTGRAD_SIM_THREADS: an integer from 1 to 65535; both: unset or empty means no setting). Throws
// std::invalid_argument (ValueError) naming the variable and its value.
void CheckEnvironment();

// Whether `out` may receive op's result while the kernel reads in0/in1 (IR order): it shares no memory with either,
// or it is exactly the gradient input (the same elements, in place). Otherwise RuntimeError: "<fn>: out ..." naming
// the input it overlaps. Strided tensors are judged by the span of memory they cover.
void CheckOutAliases(const std::string& fn, const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                     const at::Tensor& out);

// Runs op's kernel on the twin as `soc`: in0/in1 in IR order, contiguous CPU tensors of one dtype and size; out
// likewise, either the gradient input itself or sharing no memory with the inputs (the torch kernels ensure it;
// _C.launch checks it with CheckOutAliases). threads 0:
// ATen's intra-op threads, the calling thread alone below ATen's grain size, and at most $ACTGRAD_SIM_THREADS.
// A row reduction (row_op_registry.inc) runs as LaunchRowsOnTwin over the [outer, R, inner] view of in0's shape at
// its axis, attrs[0], wrapped into [0, rank); its three tensors have one shape.
// Does not touch the GIL: a caller holding it releases it around the call.
actgrad_sim::LaunchStats LaunchOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                      const at::Tensor& out, const std::vector<double>& attrs, const std::string& soc,
                                      int64_t threads);

// Runs a row-reduction operator's kernel (row_op_registry.inc) on the twin as `soc` over the [outer, rows, inner]
// view of in0 (diff_dst), in1 (dst) and out, with the checks and threads of LaunchOnTwin; out may be in0 itself.
// Sizes that do not multiply to the tensors' element count raise ValueError.
actgrad_sim::LaunchStats LaunchRowsOnTwin(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1,
                                          const at::Tensor& out, int64_t outer, int64_t rows, int64_t inner,
                                          const std::string& soc, int64_t threads);

// The CPU kernels of spec's operator: LaunchOnTwin on the thread's SoC (SetThreadSoc), else DefaultSoc().
void RegisterTwinKernels(const TorchOpSpec& spec);

}  // namespace actgrad
