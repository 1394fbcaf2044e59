// Stand-in for CANN's include/aclnn/acl_meta.h (libnnopbase), for compiling the bridge without CANN
// (tests/test_npu_bridge.py): only what op_host/torch_npu/ uses, declared as in hicann/opbase
// include/nnopbase/aclnn/acl_meta.h at 02aaf058, which CANN installs as include/aclnn/acl_meta.h.
#ifndef OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H
#define OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H

#include <cstdint>
#include <cstdlib>
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef int32_t aclnnStatus;

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData);

aclnnStatus aclDestroyTensor(const aclTensor *tensor);

#ifdef __cplusplus
}
#endif

#endif  // OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H
