// Stand-in for CANN's opp/built-in/op_proto/inc/all_ops.h, for scripts/check_graph_example.sh where no CANN is
// installed (tests/test_graph_example_cpp.py). Data and Const are declared with the IR of CANN's array_ops.h (no
// public source repository has that header); Mul is the real prototype, from an ops-math source tree
// (math/mul/op_graph/mul_proto.h), whose root the check puts on the include path.
#ifndef ACTGRAD_TESTS_ALL_OPS_STANDIN_H_
#define ACTGRAD_TESTS_ALL_OPS_STANDIN_H_

#include "graph/operator_reg.h"
#include "math/mul/op_graph/mul_proto.h"

namespace ge {
REG_OP(Data)
    .INPUT(x, TensorType::ALL())
    .OUTPUT(y, TensorType::ALL())
    .ATTR(index, Int, 0)
    .OP_END_FACTORY_REG(Data)

REG_OP(Const)
    .OUTPUT(y, TensorType::ALL())
    .ATTR(value, Tensor, Tensor())
    .OP_END_FACTORY_REG(Const)
}  // namespace ge

#endif  // ACTGRAD_TESTS_ALL_OPS_STANDIN_H_
