// The backward chain of an MLP block (hardtanh, dropout, GELU), composed as a GE graph with GE's C++ IR API and run
// through a GE Session on an Ascend NPU: the C++ form of the same graph as the Python examples in examples/graph/.
// Needs CANN and the actgrad package installed (build.sh); build and run as examples/graph/CMakeLists.txt says.
//
//   inputs (f32, [8, 64]): dy, z, mask, h
//   g1 = ActgradHardtanhGrad(result=z, grad=dy)          min_val = -1, max_val = 1 (the IR's defaults)
//   g2 = Mul(g1, mask)                                   dropout's mask (0 or 1)
//   g3 = Mul(g2, Const(1 / (1 - 0.1)))                   dropout's rescaling, p = 0.1
//   dh = ActgradGeluBackward(src=h, diff_dst=g3, mode="gelu_tanh")
//   output 0: dh
//
// The program checks dh against the same chain computed on the host in double precision and exits non-zero when
// they differ by more than float32 rounding allows.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "all_ops.h"                      // CANN's built-in prototypes: ge::op::Data, Const, Mul
#include "framework/actgrad_ops_proto.h"  // actgrad's prototypes: ge::op::ActgradHardtanhGrad, ...
#include "ge/ge_api.h"                    // GEInitialize, GEFinalize, Session
#include "graph/graph.h"
#include "graph/tensor.h"

namespace {

constexpr int64_t kRows = 8;
constexpr int64_t kCols = 64;
constexpr size_t kCount = kRows * kCols;
constexpr float kDropout = 0.1f;

ge::TensorDesc MatrixDesc()
{
    return ge::TensorDesc(ge::Shape(std::vector<int64_t>{kRows, kCols}), ge::FORMAT_ND, ge::DT_FLOAT);
}

ge::Tensor HostTensor(const ge::TensorDesc &desc, const std::vector<float> &values)
{
    return ge::Tensor(desc, reinterpret_cast<const uint8_t *>(values.data()), values.size() * sizeof(float));
}

ge::op::Data GraphInput(const char *name, int64_t index)
{
    auto data = ge::op::Data(name).set_attr_index(index);
    data.update_input_desc_x(MatrixDesc());
    data.update_output_desc_y(MatrixDesc());
    return data;
}

// The graph of the header comment; its inputs are fed in Data index order.
ge::Graph BuildGraph()
{
    auto dy = GraphInput("dy", 0);
    auto z = GraphInput("z", 1);
    auto mask = GraphInput("mask", 2);
    auto h = GraphInput("h", 3);

    auto g1 = ge::op::ActgradHardtanhGrad("hardtanh_grad").set_input_result(z).set_input_grad(dy);
    auto g2 = ge::op::Mul("dropout_mask").set_input_x1(g1).set_input_x2(mask);

    const std::vector<float> scale{1.0f / (1.0f - kDropout)};
    const ge::TensorDesc scalarDesc(ge::Shape(std::vector<int64_t>{}), ge::FORMAT_ND, ge::DT_FLOAT);
    auto scaleConst = ge::op::Const("dropout_scale").set_attr_value(HostTensor(scalarDesc, scale));
    scaleConst.update_output_desc_y(scalarDesc);
    auto g3 = ge::op::Mul("dropout_rescale").set_input_x1(g2).set_input_x2(scaleConst);

    auto dh = ge::op::ActgradGeluBackward("gelu_backward")
                  .set_input_src(h)
                  .set_input_diff_dst(g3)
                  .set_attr_mode("gelu_tanh");

    ge::Graph graph("mlp_backward");
    graph.SetInputs(std::vector<ge::Operator>{dy, z, mask, h}).SetOutputs(std::vector<ge::Operator>{dh});
    return graph;
}

// Deterministic inputs: values spread over [-3, 3] (both sides of hardtanh's band), a mask dropping every 10th element.
std::vector<std::vector<float>> MakeInputs()
{
    std::vector<float> dy(kCount), z(kCount), mask(kCount), h(kCount);
    for (size_t i = 0; i < kCount; ++i) {
        const double t = static_cast<double>(i) / static_cast<double>(kCount - 1);
        dy[i] = static_cast<float>(std::sin(7.0 * t) * 2.0);
        z[i] = static_cast<float>(-3.0 + 6.0 * std::fmod(t * 5.0, 1.0));
        mask[i] = (i % 10 == 3) ? 0.0f : 1.0f;
        h[i] = static_cast<float>(3.0 - 6.0 * t);
    }
    return {dy, z, mask, h};
}

// The chain on the host in double: hardtanh's derivative, the mask, the rescaling, GELU's (tanh form) derivative.
double Reference(float dy, float z, float mask, float h)
{
    const double g1 = (z > -1.0f && z < 1.0f) ? dy : 0.0;
    const double g3 = g1 * mask * static_cast<double>(1.0f / (1.0f - kDropout));
    const double k = 0.7978845608028654;  // sqrt(2/pi)
    const double x = h;
    const double t = std::tanh(k * (x + 0.044715 * x * x * x));
    const double du = k * (1.0 + 3.0 * 0.044715 * x * x);
    return g3 * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du);
}

int RunAndCheck(ge::Session &session, uint32_t graphId)
{
    const auto inputs = MakeInputs();
    std::vector<ge::Tensor> feeds;
    for (const auto &values : inputs) {
        feeds.push_back(HostTensor(MatrixDesc(), values));
    }
    std::vector<ge::Tensor> outputs;
    if (session.RunGraph(graphId, feeds, outputs) != ge::SUCCESS || outputs.size() != 1) {
        std::fprintf(stderr, "RunGraph failed (or returned %zu outputs, not 1)\n", outputs.size());
        return 1;
    }
    if (outputs[0].GetSize() != kCount * sizeof(float)) {
        std::fprintf(stderr, "dh has %zu bytes, expected %zu\n", outputs[0].GetSize(), kCount * sizeof(float));
        return 1;
    }
    const auto *dh = reinterpret_cast<const float *>(outputs[0].GetData());
    double worst = 0.0;
    for (size_t i = 0; i < kCount; ++i) {
        const double want = Reference(inputs[0][i], inputs[1][i], inputs[2][i], inputs[3][i]);
        // float32 rounding of the chain: a few tens of ulp at most (docs/semantics.md, GeluBackward tanh form)
        worst = std::fmax(worst, std::fabs(dh[i] - want) / (1e-6 + 1e-5 * std::fabs(want)));
    }
    std::printf("dh[0, :4] = %.6f %.6f %.6f %.6f\n", dh[0], dh[1], dh[2], dh[3]);
    std::printf("largest difference from the host reference: %.3f of the tolerance\n", worst);
    return worst <= 1.0 ? 0 : 1;
}

}  // namespace

int main(int argc, char *argv[])
{
    const std::string deviceId = argc > 1 ? argv[1] : "0";
    const std::map<ge::AscendString, ge::AscendString> globalOptions{{"ge.exec.deviceId", deviceId.c_str()},
                                                                     {"ge.graphRunMode", "0"}};
    if (ge::GEInitialize(globalOptions) != ge::SUCCESS) {
        std::fprintf(stderr, "GEInitialize failed on device %s\n", deviceId.c_str());
        return 1;
    }
    int status = 1;
    {
        // the Session must be gone before GEFinalize
        ge::Session session(std::map<ge::AscendString, ge::AscendString>{});
        const uint32_t graphId = 0;
        if (session.AddGraph(graphId, BuildGraph()) != ge::SUCCESS) {
            std::fprintf(stderr, "AddGraph failed: is the actgrad package installed and its set_env.bash sourced?\n");
        } else {
            status = RunAndCheck(session, graphId);
        }
    }
    ge::GEFinalize();
    return status;
}
