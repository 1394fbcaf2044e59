// actgrad._C: the twin backend as seen from Python (the launch, tiling and attribute entry points python/actgrad uses).
#include <ATen/Parallel.h>
#include <torch/extension.h>

#include <string>
#include <vector>

#include "elementwise_tiling.h"
#include "lower_attrs.h"
#include "out_autograd.h"
#include "twin_launch.h"

namespace actgrad {
namespace {

DtypeKey KeyOfName(const std::string& dtype) {
    if (dtype == "float32") return kDtypeFloat;
    if (dtype == "float16") return kDtypeHalf;
    if (dtype == "bfloat16") return kDtypeBf16;
    throw std::invalid_argument("dtype must be float32, float16 or bfloat16, got " + dtype);
}

DtypeKey KeyOfTensor(const at::Tensor& t, const char* arg) {
    switch (t.scalar_type()) {
        case at::kFloat: return kDtypeFloat;
        case at::kHalf: return kDtypeHalf;
        case at::kBFloat16: return kDtypeBf16;
        default: TORCH_CHECK_TYPE(false, arg, " must be float32, float16 or bfloat16, got ", t.scalar_type());
    }
}

py::dict StatsDict(const actgrad_sim::LaunchStats& s) {
    py::list blocks;
    for (const auto& b : s.blocks) {
        py::dict d;
        d["block"] = b.block;
        d["gm_bytes_read"] = b.gmBytesRead;
        d["gm_bytes_written"] = b.gmBytesWritten;
        d["dma_transfers"] = b.dmaTransfers;
        d["dma_bytes_min"] = b.dmaBytesMin;
        d["dma_bytes_max"] = b.dmaBytesMax;
        d["vector_instructions"] = b.vectorInstructions;
        d["ub_high_water"] = b.ubHighWater;
        blocks.append(d);
    }
    py::dict d;
    d["kernel"] = s.kernel;
    d["soc"] = s.soc;
    d["block_dim"] = s.blockDim;
    d["threads"] = s.threads;
    d["blocks"] = blocks;
    return d;
}

py::object Launch(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
                  const std::vector<double>& attrs, const std::string& soc, int64_t threads, bool stats) {
    const DtypeKey key = KeyOfTensor(in0, "in0");
    for (const at::Tensor* t : {&in0, &in1, &out}) {
        TORCH_CHECK(t->device().is_cpu(), "actgrad._C.launch: tensors must be on the CPU");
        TORCH_CHECK(t->is_contiguous(), "actgrad._C.launch: tensors must be contiguous");
        TORCH_CHECK(t->scalar_type() == in0.scalar_type(), "actgrad._C.launch: tensors must share one dtype");
        TORCH_CHECK(t->numel() == in0.numel(), "actgrad._C.launch: tensors must have the same number of elements");
    }
    TORCH_CHECK(in0.numel() > 0, "actgrad._C.launch: empty tensors launch no kernel");
    TORCH_CHECK(threads >= 0, "actgrad._C.launch: threads must be >= 0");
    // blocks run on ATen's intra-op pool: a second pool would fight ATen's spinning threads for the cores. Below
    // ATen's own grain size the launch stays on the calling thread, as ATen's elementwise kernels do: waking the
    // pool costs more than the work (milliseconds when the cores are busy).
    actgrad_sim::LaunchOptions options;
    const bool small = in0.numel() < at::internal::GRAIN_SIZE;
    options.threads = threads > 0 ? uint32_t(threads) : small ? 1u : uint32_t(at::get_num_threads());
    options.runWorkers = [](uint32_t workers, const std::function<void(uint32_t)>& job) {
        at::parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
            for (int64_t w = begin; w < end; ++w) job(uint32_t(w));
        });
    };
    actgrad_sim::LaunchStats launchStats;
    {
        py::gil_scoped_release release;
        launchStats = RunOnTwin(opType, in0.data_ptr(), in1.data_ptr(), out.data_ptr(), uint64_t(in0.numel()), key, attrs,
                                soc, options);
    }
    // building a dict per block costs about a microsecond each: only when asked
    return stats ? py::object(StatsDict(launchStats)) : py::object(py::none());
}

void CheckAttrs(const std::string& opType, const std::vector<double>& attrs) {
    ElementwiseGradTiling scratch{};
    LowerAttrs(opType, attrs.data(), attrs.size(), scratch);
}

py::dict Tiling(const std::string& opType, uint64_t numel, const std::string& dtype, const std::string& soc,
                const std::vector<double>& attrs) {
    // the block split does not depend on the attributes; they only fill the functor parameters
    const ElementwiseGradTiling t = attrs.empty() ? PlanBlocksOnTwin(opType, numel, KeyOfName(dtype), soc)
                                                  : PlanOnTwin(opType, numel, KeyOfName(dtype), soc, attrs);
    py::list blocks;
    for (uint32_t b = 0; b < t.blockDim; ++b) {
        uint64_t start = 0, length = 0;
        BlockRange(t, b, start, length);
        py::dict d;
        d["start"] = start;
        d["length"] = length;
        d["tiles"] = (length + t.tileLength - 1) / t.tileLength;
        d["tail"] = length == 0 ? 0 : length - (length - 1) / t.tileLength * t.tileLength;
        blocks.append(d);
    }
    py::dict d;
    d["op_type"] = opType;
    d["soc"] = soc;
    d["dtype"] = dtype;
    d["total_length"] = t.totalLength;
    d["block_dim"] = t.blockDim;
    d["tile_length"] = t.tileLength;
    d["unit_elems"] = t.unitElems;
    d["units_per_block"] = t.unitsPerBlock;
    d["blocks_with_extra_unit"] = t.blocksWithExtraUnit;
    d["ub_bytes_used"] = UbBytesUsed(t);
    d["ub_bytes_available"] = TwinSocResources(actgrad_sim::FindSoc(soc)).ubBytes;
    d["params"] = std::vector<float>(t.params, t.params + kMaxFunctorParams);
    d["blocks"] = blocks;
    return d;
}

std::vector<std::string> Socs() {
    std::vector<std::string> names;
    for (const auto& p : actgrad_sim::SocProfiles()) names.push_back(p.name);
    return names;
}

}  // namespace
}  // namespace actgrad

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "actgrad twin backend: runs the Ascend C kernels on the CPU twin of the Ascend C runtime";
    m.def("launch", &actgrad::Launch, py::arg("op_type"), py::arg("in0"), py::arg("in1"), py::arg("out"), py::arg("attrs"),
          py::arg("soc"), py::arg("threads") = 0, py::arg("stats") = false);
    m.def("check_attrs", &actgrad::CheckAttrs, py::arg("op_type"), py::arg("attrs"));
    m.def("tiling", &actgrad::Tiling, py::arg("op_type"), py::arg("numel"), py::arg("dtype"), py::arg("soc"),
          py::arg("attrs") = std::vector<double>());
    m.def("socs", &actgrad::Socs);
    m.def("register_out_autograd", &actgrad::RegisterOutAutograd, py::arg("namespace"), py::arg("name"),
          py::arg("message"));
}
