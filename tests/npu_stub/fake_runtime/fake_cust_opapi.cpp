// A fake of actgrad's CANN package library (op_api/lib/libcust_opapi.so) with one API, aclnnActgradClampBackward,
// declared as CANN generates it from the OpDef (inputs, Float attributes as double, the Bool as bool, the output,
// then &workspaceSize, &executor). fake_log() says how it was called; phase 2 computes ClampBackward on float32.
// $FAKE_ACLNN_STATUS, when set, is what phase 1 returns.
#include <cstdlib>
#include <sstream>
#include <string>

#include "fake_acl.h"

namespace {

std::string g_log;

struct Executor {
    const aclTensor *srcOrDst, *diffDst, *diffSrc;
    double min, max;
};
Executor g_executor;

std::string Describe(const aclTensor* t)
{
    std::ostringstream text;
    text << (t->dataType == ACL_FLOAT ? "float32" : t->dataType == ACL_FLOAT16 ? "float16" : "bfloat16") << "[";
    for (size_t i = 0; i < t->viewDims.size(); ++i) text << (i ? "," : "") << t->viewDims[i];
    text << "] strides [";
    for (size_t i = 0; i < t->strides.size(); ++i) text << (i ? "," : "") << t->strides[i];
    text << "] offset " << t->offset << " of " << t->storageDims.at(0) << (t->format == ACL_FORMAT_ND ? " ND" : " ?");
    return text.str();
}

}  // namespace

extern "C" {

const char* fake_log() { return g_log.c_str(); }

aclnnStatus aclnnActgradClampBackwardGetWorkspaceSize(const aclTensor* srcOrDst, const aclTensor* diffDst, double min,
                                                      double max, bool useDst, const aclTensor* diffSrc,
                                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    std::ostringstream text;
    text << "GetWorkspaceSize(" << Describe(srcOrDst) << "; " << Describe(diffDst) << "; min=" << min << " max=" << max
         << " use_dst=" << (useDst ? "true" : "false") << "; " << Describe(diffSrc) << ")";
    g_log = text.str();
    if (const char* status = std::getenv("FAKE_ACLNN_STATUS")) return std::atoi(status);
    g_executor = {srcOrDst, diffDst, diffSrc, min, max};
    *workspaceSize = 256;
    *executor = reinterpret_cast<aclOpExecutor*>(&g_executor);
    return 0;
}

aclnnStatus aclnnActgradClampBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                      aclrtStream stream)
{
    const Executor& e = *reinterpret_cast<Executor*>(executor);
    std::ostringstream text;
    text << " then run(" << (workspace != nullptr ? "a workspace" : "no workspace") << " of " << workspaceSize
         << " bytes, " << (stream == reinterpret_cast<aclrtStream>(0x5157) ? "the current stream" : "another stream")
         << ")";
    g_log += text.str();
    const float* x = static_cast<const float*>(e.srcOrDst->data) + e.srcOrDst->offset;
    const float* grad = static_cast<const float*>(e.diffDst->data) + e.diffDst->offset;
    float* out = static_cast<float*>(e.diffSrc->data) + e.diffSrc->offset;
    int64_t n = 1;
    for (int64_t d : e.diffSrc->viewDims) n *= d;
    for (int64_t i = 0; i < n; ++i) out[i] = e.min < x[i] && x[i] < e.max ? grad[i] : 0.0f;
    return 0;
}

}  // extern "C"
