// Stand-in for torch_npu's include/third_party/acl/inc/acl/acl_base.h (its copy of CANN's), for compiling the bridge
// without CANN (tests/test_npu_bridge.py): only what op_host/torch_npu/ uses, declared as in Ascend/pytorch
// third_party/acl/inc/acl/acl_base.h at c4840e3c (the copy torch_npu kept before 121d44ed fetched CANN's): the same
// include guard, aclrtStream, and the values of aclDataType and aclFormat the bridge passes. That copy has no
// aclOpExecutor; CANN's aclnn/acl_meta.h declares it.
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include <stdint.h>

typedef void *aclrtStream;

typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_BF16 = 27,
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_ND = 2,
} aclFormat;

#endif  // INC_EXTERNAL_ACL_ACL_BASE_H_
