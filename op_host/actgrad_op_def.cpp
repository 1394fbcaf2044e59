// Generated from python/actgrad/spec.py by scripts/gen_ops.py; do not edit, rerun the script.
// Compiled only by the CANN package build (build.sh, op_host/CMakeLists.txt), never by setup.py.
#include <limits>

#include "register/op_def_registry.h"

#include "npu/op_hooks.h"

namespace optiling {

static ge::graphStatus ActgradHardtanhGradTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"min_val", actgrad::npu::AttrKind::kFloat, nullptr},
        {"max_val", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradHardtanhGrad", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradHardsigmoidBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"alpha", actgrad::npu::AttrKind::kFloat, nullptr},
        {"beta", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradHardsigmoidBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradClampBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"min", actgrad::npu::AttrKind::kFloat, nullptr},
        {"max", actgrad::npu::AttrKind::kFloat, nullptr},
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradClampBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradEluBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"alpha", actgrad::npu::AttrKind::kFloat, nullptr},
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
        {"scale", actgrad::npu::AttrKind::kFloat, nullptr},
        {"input_scale", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradEluBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradSoftPlusBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"beta", actgrad::npu::AttrKind::kFloat, nullptr},
        {"threshold", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSoftPlusBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradReluBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradReluBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradThresholdGradV2DTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"threshold", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradThresholdGradV2D", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradLeakyReluGradTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"negative_slope", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradLeakyReluGrad", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradHardSwishBackwardTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradHardSwishBackward", nullptr, 0);
}

static ge::graphStatus ActgradSoftShrinkGradTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"lambd", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSoftShrinkGrad", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradHardShrinkGradTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"lambd", actgrad::npu::AttrKind::kFloat, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradHardShrinkGrad", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradAbsBackwardTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradAbsBackward", nullptr, 0);
}

static ge::graphStatus ActgradSigmoidBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSigmoidBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradTanhBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradTanhBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradSiluGradTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSiluGrad", nullptr, 0);
}

static ge::graphStatus ActgradLogSigmoidGradTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradLogSigmoidGrad", nullptr, 0);
}

static ge::graphStatus ActgradSoftsignGradTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSoftsignGrad", nullptr, 0);
}

static ge::graphStatus ActgradSqrtBackwardTilingFunc(gert::TilingContext* context)
{
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"use_dst", actgrad::npu::AttrKind::kBool, nullptr},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradSqrtBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradGeluBackwardTilingFunc(gert::TilingContext* context)
{
    static const char* const kGeluBackwardModeChoices[] = {"gelu_erf", "gelu_tanh", nullptr};
    static const actgrad::npu::AttrDesc kAttrs[] = {
        {"mode", actgrad::npu::AttrKind::kString, kGeluBackwardModeChoices},
    };
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradGeluBackward", kAttrs,
                                                   sizeof(kAttrs) / sizeof(kAttrs[0]));
}

static ge::graphStatus ActgradFastGeluGradTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradFastGeluGrad", nullptr, 0);
}

static ge::graphStatus ActgradMishBackwardTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::ElementwiseGradTilingFunc(context, "ActgradMishBackward", nullptr, 0);
}

static ge::graphStatus ActgradSoftMaxBackwardTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::RowGradTilingFunc(context, "ActgradSoftMaxBackward");
}

static ge::graphStatus ActgradLogSoftmaxBackwardTilingFunc(gert::TilingContext* context)
{
    return actgrad::npu::RowGradTilingFunc(context, "ActgradLogSoftmaxBackward");
}

}  // namespace optiling

namespace ops {

// y = grad if min_val < result < max_val else 0
class ActgradHardtanhGrad : public OpDef {
public:
    explicit ActgradHardtanhGrad(const char* name) : OpDef(name)
    {
        this->Input("result")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("grad")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("min_val").AttrType(OPTIONAL).Float(-1.0);
        this->Attr("max_val").AttrType(OPTIONAL).Float(1.0);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradHardtanhGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradHardtanhGrad);

// out = grad_output*alpha if 0 < alpha*self + beta < 1 else 0 (band bounds computed in double)
class ActgradHardsigmoidBackward : public OpDef {
public:
    explicit ActgradHardsigmoidBackward(const char* name) : OpDef(name)
    {
        this->Input("grad_output")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("self")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("out")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.16666666666666666);
        this->Attr("beta").AttrType(OPTIONAL).Float(0.5);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradHardsigmoidBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradHardsigmoidBackward);

// diff_src = diff_dst if min < src_or_dst < max else 0
class ActgradClampBackward : public OpDef {
public:
    explicit ActgradClampBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("min").AttrType(REQUIRED).Float();
        this->Attr("max").AttrType(REQUIRED).Float();
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradClampBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradClampBackward);

// x <= 0: diff_dst*input_scale*(x + alpha*scale) (dst) or diff_dst*input_scale*alpha*scale*exp(x*input_scale) (src); else diff_dst*scale
class ActgradEluBackward : public OpDef {
public:
    explicit ActgradEluBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(REQUIRED).Float();
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->Attr("scale").AttrType(OPTIONAL).Float(1.0);
        this->Attr("input_scale").AttrType(OPTIONAL).Float(1.0);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradEluBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradEluBackward);

// diff_src = diff_dst if beta*src > threshold else diff_dst*sigmoid(beta*src)
class ActgradSoftPlusBackward : public OpDef {
public:
    explicit ActgradSoftPlusBackward(const char* name) : OpDef(name)
    {
        this->Input("src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("beta").AttrType(OPTIONAL).Float(1.0);
        this->Attr("threshold").AttrType(OPTIONAL).Float(std::numeric_limits<float>::infinity());
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSoftPlusBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSoftPlusBackward);

// diff_src = diff_dst if src_or_dst > 0 else 0
class ActgradReluBackward : public OpDef {
public:
    explicit ActgradReluBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradReluBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradReluBackward);

// backprops = gradients if features > threshold else 0
class ActgradThresholdGradV2D : public OpDef {
public:
    explicit ActgradThresholdGradV2D(const char* name) : OpDef(name)
    {
        this->Input("gradients")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("features")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("backprops")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("threshold").AttrType(REQUIRED).Float();
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradThresholdGradV2DTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradThresholdGradV2D);

// backprops = gradients if features > 0 else gradients*negative_slope
class ActgradLeakyReluGrad : public OpDef {
public:
    explicit ActgradLeakyReluGrad(const char* name) : OpDef(name)
    {
        this->Input("gradients")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("features")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("backprops")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.0);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradLeakyReluGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradLeakyReluGrad);

// diff_src = 0 if src <= -3, diff_dst*(src/3 + 0.5) if -3 < src < 3, diff_dst if src >= 3
class ActgradHardSwishBackward : public OpDef {
public:
    explicit ActgradHardSwishBackward(const char* name) : OpDef(name)
    {
        this->Input("src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradHardSwishBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradHardSwishBackward);

// output_y = 0 if -lambd <= input_x <= lambd else input_grad
class ActgradSoftShrinkGrad : public OpDef {
public:
    explicit ActgradSoftShrinkGrad(const char* name) : OpDef(name)
    {
        this->Input("input_grad")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("input_x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("output_y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("lambd").AttrType(OPTIONAL).Float(0.5);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSoftShrinkGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSoftShrinkGrad);

// backprops = 0 if -lambd <= features <= lambd else gradients
class ActgradHardShrinkGrad : public OpDef {
public:
    explicit ActgradHardShrinkGrad(const char* name) : OpDef(name)
    {
        this->Input("gradients")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("features")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("backprops")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("lambd").AttrType(OPTIONAL).Float(0.5);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradHardShrinkGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradHardShrinkGrad);

// diff_src = diff_dst if src > 0, -diff_dst if src < 0, 0 if src = 0
class ActgradAbsBackward : public OpDef {
public:
    explicit ActgradAbsBackward(const char* name) : OpDef(name)
    {
        this->Input("src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradAbsBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradAbsBackward);

// diff_src = diff_dst*(d*(1-d)) (use_dst) or diff_dst*e/(1+e)^2 with e = exp(-|src|)
class ActgradSigmoidBackward : public OpDef {
public:
    explicit ActgradSigmoidBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSigmoidBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSigmoidBackward);

// diff_src = diff_dst*((1-d)*(1+d)) (use_dst) or diff_dst*4e/(1+e)^2 with e = exp(-2|src|)
class ActgradTanhBackward : public OpDef {
public:
    explicit ActgradTanhBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradTanhBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradTanhBackward);

// dx = dy*sigmoid(x)*(1 + x*(1-sigmoid(x)))
class ActgradSiluGrad : public OpDef {
public:
    explicit ActgradSiluGrad(const char* name) : OpDef(name)
    {
        this->Input("dy")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("dx")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSiluGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSiluGrad);

// backprops = grads*sigmoid(-features)
class ActgradLogSigmoidGrad : public OpDef {
public:
    explicit ActgradLogSigmoidGrad(const char* name) : OpDef(name)
    {
        this->Input("grads")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("features")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("backprops")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradLogSigmoidGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradLogSigmoidGrad);

// output = gradients/(1+|features|)^2
class ActgradSoftsignGrad : public OpDef {
public:
    explicit ActgradSoftsignGrad(const char* name) : OpDef(name)
    {
        this->Input("gradients")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("features")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("output")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSoftsignGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSoftsignGrad);

// diff_src = diff_dst/(2*d) (use_dst) or diff_dst/(2*sqrt(src))
class ActgradSqrtBackward : public OpDef {
public:
    explicit ActgradSqrtBackward(const char* name) : OpDef(name)
    {
        this->Input("src_or_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("use_dst").AttrType(OPTIONAL).Bool(true);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSqrtBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSqrtBackward);

// none: diff_src = diff_dst*(Phi(src) + src*phi(src)); tanh: diff_src = diff_dst*(0.5*(1 + tanh(u)) + 0.5*src*(1 - tanh(u)^2)*u'), u = sqrt(2/pi)*(src + 0.044715*src^3)
class ActgradGeluBackward : public OpDef {
public:
    explicit ActgradGeluBackward(const char* name) : OpDef(name)
    {
        this->Input("src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("mode").AttrType(OPTIONAL).String("gelu_erf");
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradGeluBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradGeluBackward);

// z = dy*s*(1 + 1.702*x*(1 - s)), s = sigmoid(1.702*x) (1.702 as the f32 constant)
class ActgradFastGeluGrad : public OpDef {
public:
    explicit ActgradFastGeluGrad(const char* name) : OpDef(name)
    {
        this->Input("dy")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradFastGeluGradTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradFastGeluGrad);

// diff_src = diff_dst*(tanh(sp) + src*sigmoid(src)*(1 - tanh(sp)^2)), sp = softplus(src)
class ActgradMishBackward : public OpDef {
public:
    explicit ActgradMishBackward(const char* name) : OpDef(name)
    {
        this->Input("src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradMishBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradMishBackward);

// diff_src = dst*(diff_dst - sum_axis(diff_dst*dst))
class ActgradSoftMaxBackward : public OpDef {
public:
    explicit ActgradSoftMaxBackward(const char* name) : OpDef(name)
    {
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("axis").AttrType(OPTIONAL).Int(1);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradSoftMaxBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradSoftMaxBackward);

// diff_src = diff_dst - exp(dst)*sum_axis(diff_dst)
class ActgradLogSoftmaxBackward : public OpDef {
public:
    explicit ActgradLogSoftmaxBackward(const char* name) : OpDef(name)
    {
        this->Input("diff_dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("dst")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("diff_src")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("axis").AttrType(OPTIONAL).Int(-1);
        this->SetInferShape(actgrad::npu::InferShapeSameAsInput0)
            .SetInferDataType(actgrad::npu::InferDataTypeSameAsInput0);
        this->AICore()
            .SetTiling(optiling::ActgradLogSoftmaxBackwardTilingFunc)
            .AddConfig("ascend910b")
            .AddConfig("ascend910_93");
    }
};
OP_ADD(ActgradLogSoftmaxBackward);

}  // namespace ops
