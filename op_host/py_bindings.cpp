// actgrad._C: the twin backend as seen from Python (the launch, tiling and attribute entry points python/actgrad uses).
#include <torch/extension.h>

#include <string>
#include <vector>

#include "elementwise_tiling.h"
#include "row_tiling.h"
#include "lower_attrs.h"
#include "autograd_kernels.h"
#include "twin_torch.h"
#include "twin_launch.h"

namespace actgrad {
namespace {

DtypeKey KeyOfName(const std::string& dtype) {
    if (dtype == "float32") return kDtypeFloat;
    if (dtype == "float16") return kDtypeHalf;
    if (dtype == "bfloat16") return kDtypeBf16;
    throw std::invalid_argument("dtype must be float32, float16 or bfloat16, got " + dtype);
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
    // the kernel reads a tile of the inputs before it writes that tile of out: only the gradient itself may be out
    CheckOutAliases("actgrad twin launch (" + opType + ")", opType, in0, in1, out);
    actgrad_sim::LaunchStats launchStats;
    {
        py::gil_scoped_release release;
        launchStats = LaunchOnTwin(opType, in0, in1, out, attrs, soc, threads);
    }
    // building a dict per block costs about a microsecond each: only when asked
    return stats ? py::object(StatsDict(launchStats)) : py::object(py::none());
}

py::object LaunchRows(const std::string& opType, const at::Tensor& in0, const at::Tensor& in1, const at::Tensor& out,
                      int64_t outer, int64_t rows, int64_t inner, const std::string& soc, int64_t threads, bool stats) {
    // as Launch: out may be the gradient (diff_dst) itself and share nothing else; never dst, which a two-pass
    // log-softmax row may read after writing its results
    CheckOutAliases("actgrad twin launch_rows (" + opType + ")", opType, in0, in1, out);
    actgrad_sim::LaunchStats launchStats;
    {
        py::gil_scoped_release release;
        launchStats = LaunchRowsOnTwin(opType, in0, in1, out, outer, rows, inner, soc, threads);
    }
    return stats ? py::object(StatsDict(launchStats)) : py::object(py::none());
}

// The statistics of the calling thread's last launch (None after ClearLastLaunchStats, until a launch).
py::object LastLaunchStatsOfThread() {
    const actgrad_sim::LaunchStats& s = actgrad_sim::LastLaunchStats();
    return s.blockDim == 0 ? py::object(py::none()) : py::object(StatsDict(s));
}

void ClearLastLaunchStats() { actgrad_sim::LastLaunchStatsRef() = actgrad_sim::LaunchStats{}; }

void CheckAttrs(const std::string& opType, const std::vector<double>& attrs) {
    ElementwiseGradTiling scratch{};
    LowerAttrs(opType, attrs.data(), attrs.size(), scratch);
}

// The fields every tiling record shares: what was planned, the blocks launched, the UB the kernel carves for the
// tiling against the SoC's, and one dict per block, which fillBlock(b, dict) fills; the caller adds its family's own.
template <class FillBlock>
py::dict TilingRecord(const std::string& opType, const std::string& dtype, const std::string& soc, uint32_t blockDim,
                      uint64_t ubBytesUsed, FillBlock fillBlock) {
    py::list blocks;
    for (uint32_t b = 0; b < blockDim; ++b) {
        py::dict block;
        fillBlock(b, block);
        blocks.append(block);
    }
    py::dict d;
    d["op_type"] = opType;
    d["soc"] = soc;
    d["dtype"] = dtype;
    d["block_dim"] = blockDim;
    d["ub_bytes_used"] = ubBytesUsed;
    d["ub_bytes_available"] = TwinSocResources(actgrad_sim::FindSoc(soc)).ubBytes;
    d["blocks"] = blocks;
    return d;
}

py::dict Tiling(const std::string& opType, uint64_t numel, const std::string& dtype, const std::string& soc,
                const std::vector<double>& attrs) {
    // the block split does not depend on the attributes; they only fill the functor parameters
    const ElementwiseGradTiling t = attrs.empty() ? PlanBlocksOnTwin(opType, numel, KeyOfName(dtype), soc)
                                                  : PlanOnTwin(opType, numel, KeyOfName(dtype), soc, attrs);
    py::dict d = TilingRecord(opType, dtype, soc, t.blockDim, UbBytesUsed(t), [&t](uint32_t b, py::dict& block) {
        uint64_t start = 0, length = 0, tiles = 0;
        uint32_t tail = 0;
        BlockRange(t, b, start, length);
        BlockTiles(t, length, tiles, tail);
        block["start"] = start;
        block["length"] = length;
        block["tiles"] = tiles;
        block["tail"] = tail;
    });
    d["total_length"] = t.totalLength;
    d["tile_length"] = t.tileLength;
    d["unit_elems"] = t.unitElems;
    d["units_per_block"] = t.unitsPerBlock;
    d["blocks_with_extra_unit"] = t.blocksWithExtraUnit;
    d["params"] = std::vector<float>(t.params, t.params + kMaxFunctorParams);
    return d;
}

py::dict PlanRows(const std::string& opType, uint64_t outer, uint64_t rows, uint64_t inner, const std::string& dtype,
                  const std::string& soc) {
    const RowGradTiling t = PlanRowsOnTwin(opType, outer, rows, inner, KeyOfName(dtype), soc);
    py::dict d = TilingRecord(opType, dtype, soc, t.blockDim, RowUbBytesUsed(t), [&t](uint32_t b, py::dict& block) {
        uint64_t first = 0, count = 0;
        RowBlockRange(t, b, first, count);
        block["first_unit"] = first;
        block["units"] = count;
    });
    d["outer"] = t.outer;
    d["row_length"] = t.rowLength;
    d["inner"] = t.inner;
    d["units"] = t.units;
    d["units_per_block"] = t.unitsPerBlock;
    d["blocks_with_extra_unit"] = t.blocksWithExtraUnit;
    d["two_pass"] = bool(t.twoPass);
    d["tile_slices"] = t.tileSlices;
    d["slice_length"] = t.sliceLength;
    d["slice_stride"] = t.sliceStride;
    d["column_chunks"] = t.columnChunks;
    d["sum_tile_elems"] = t.sumTileElems;
    d["sum_elems"] = t.sumElems;
    d["work_elems"] = t.workElems;
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
    // row reductions (SoftMaxBackward, LogSoftmaxBackward) over the [outer, rows, inner] view of the tensors
    m.def("launch_rows", &actgrad::LaunchRows, py::arg("op_type"), py::arg("in0"), py::arg("in1"), py::arg("out"),
          py::arg("outer"), py::arg("rows"), py::arg("inner"), py::arg("soc"), py::arg("threads") = 0,
          py::arg("stats") = false);
    m.def("plan_rows", &actgrad::PlanRows, py::arg("op_type"), py::arg("outer"), py::arg("rows"), py::arg("inner"),
          py::arg("dtype"), py::arg("soc"));
    m.def("check_attrs", &actgrad::CheckAttrs, py::arg("op_type"), py::arg("attrs"));
    m.def("tiling", &actgrad::Tiling, py::arg("op_type"), py::arg("numel"), py::arg("dtype"), py::arg("soc"),
          py::arg("attrs") = std::vector<double>());
    m.def("last_launch_stats", &actgrad::LastLaunchStatsOfThread);
    m.def("clear_last_launch_stats", &actgrad::ClearLastLaunchStats);
    m.def("check_out_aliases", &actgrad::CheckOutAliases, py::arg("fn"), py::arg("op_type"), py::arg("in0"),
          py::arg("in1"), py::arg("out"));
    m.def("check_environment", &actgrad::CheckEnvironment);
    m.def("set_thread_soc", &actgrad::SetThreadSoc, py::arg("name"));
    m.def("socs", &actgrad::Socs);
    m.def("set_default_soc", &actgrad::SetDefaultSoc, py::arg("name"));
    m.def("default_soc", &actgrad::DefaultSoc);
    // the CPU kernels of one operator; attrs as python/actgrad/schema.py kernel_spec gives them, schema order
    m.def(
        "register_twin_kernels",
        [](const std::string& ns, const std::string& name, const std::string& opType, const std::vector<std::string>& inputs,
           int64_t savedIndex, const std::vector<actgrad::AttrTuple>& attrs,
           const std::vector<std::string>& dtypes, int64_t maxRank, int64_t layoutFirst, bool rowReduction) {
            actgrad::RegisterTwinKernels(
                actgrad::MakeTorchOpSpec(ns, name, opType, inputs, savedIndex, attrs, dtypes, maxRank, layoutFirst,
                                         rowReduction));
        },
        py::arg("namespace"), py::arg("name"), py::arg("op_type"), py::arg("inputs"), py::arg("saved_index"),
        py::arg("attrs"), py::arg("dtypes"), py::arg("max_rank"), py::arg("layout_first"), py::arg("row_reduction"));
    m.def("register_functional_autograd", &actgrad::RegisterFunctionalAutograd, py::arg("namespace"), py::arg("name"),
          py::arg("double_backward_op"), py::arg("forward_ad_message"));
    m.def("register_out_autograd", &actgrad::RegisterOutAutograd, py::arg("namespace"), py::arg("name"),
          py::arg("message"), py::arg("forward_ad_message"));
}
