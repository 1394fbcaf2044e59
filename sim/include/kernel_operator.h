// actgrad's CPU twin of the Ascend C runtime: `#include "kernel_operator.h"` and compile the kernel with g++.
// The subset and its checks are documented in README.md ("The CPU twin").
#pragma once
#include "actgrad_sim/macros.h"
#include "actgrad_sim/numeric.h"
#include "actgrad_sim/soc.h"
#include "actgrad_sim/error.h"
#include "actgrad_sim/block_context.h"
#include "actgrad_sim/tensor.h"
#include "actgrad_sim/pipe.h"
#include "actgrad_sim/operand_checks.h"
#include "actgrad_sim/data_copy.h"
#include "actgrad_sim/vec_arith.h"
#include "actgrad_sim/vec_cast.h"
#include "actgrad_sim/vec_cmpsel.h"
#include "actgrad_sim/vec_reduce.h"
#include "actgrad_sim/adv_math.h"
#include "actgrad_sim/sync.h"
#include "actgrad_sim/launcher.h"
