// What the fake CANN of this directory keeps in an aclTensor (aclnn's is opaque): what aclCreateTensor was given.
// Shared by fake_npu_runtime.cpp (linked into the test build of actgrad._npu) and fake_cust_opapi.cpp (the package).
#pragma once

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

struct aclTensor {
    std::vector<int64_t> viewDims, strides, storageDims;
    int64_t offset;
    aclDataType dataType;
    aclFormat format;
    void* data;
};
