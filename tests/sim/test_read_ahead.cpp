// Read-ahead of GM inputs (sim/include/actgrad_sim/read_ahead.h): which bytes a copy from GM predicts, and how fast
// the vector loops ask for them. A cache hint changes no value, so these tests read the block's predictions; every
// other test of the twin runs with the read-ahead on and checks the values.
#include "twin_util.h"

using namespace tu;
using AscendC::CMPMODE;
using AscendC::SELMODE;
using AscendC::TBuf;
using AscendC::TPipe;

namespace {

constexpr uint32_t kTile = 4096;  // floats per copy
constexpr uint64_t kTileBytes = kTile * sizeof(float);

const actgrad_sim::ReadAhead& Predictions() { return actgrad_sim::tlBlock->readAhead; }

GlobalTensor<float> Global(const Gm<float>& gm) {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(gm.data()), gm.size());
    return g;
}

// fn(a UB tile to copy into) in a one-block kernel
void InKernel(const std::function<void(const LocalTensor<float>&)>& fn) {
    RunBlock("read_ahead", [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, kTileBytes);
        fn(buf.Get<float>());
    });
}

}  // namespace

TEST(A_copy_from_gm_predicts_the_next_tile_of_its_stream) {
    Gm<float> a(4 * kTile), b(4 * kTile);
    InKernel([&](const LocalTensor<float>& ub) {
        AscendC::DataCopy(ub, Global(a), kTile);
        AscendC::DataCopy(ub, Global(b), kTile);
        CHECK_EQ(Predictions().PendingBytes(a.data() + kTile), kTileBytes);
        CHECK_EQ(Predictions().PendingBytes(b.data() + kTile), kTileBytes);
        CHECK_EQ(Predictions().PendingBytes(a.data()), 0u);
        // the predicted copy moves its stream on; a shorter last tile predicts its own size
        AscendC::DataCopy(ub, Global(a)[kTile], kTile / 2);
        CHECK_EQ(Predictions().PendingBytes(a.data() + kTile), 0u);
        CHECK_EQ(Predictions().PendingBytes(a.data() + 3 * kTile / 2), kTileBytes / 2);
        CHECK_EQ(Predictions().PendingBytes(b.data() + kTile), kTileBytes);
    });
}

TEST(A_new_stream_replaces_the_least_recently_copied_one) {
    std::vector<std::unique_ptr<Gm<float>>> inputs;
    for (uint32_t i = 0; i < actgrad_sim::kReadAheadStreams + 1; ++i) inputs.push_back(std::make_unique<Gm<float>>(2 * kTile));
    InKernel([&](const LocalTensor<float>& ub) {
        for (uint32_t i = 0; i < actgrad_sim::kReadAheadStreams; ++i) AscendC::DataCopy(ub, Global(*inputs[i]), kTile);
        AscendC::DataCopy(ub, Global(*inputs[0])[kTile], kTile);  // stream 0 goes on: stream 1 is now the oldest
        AscendC::DataCopy(ub, Global(*inputs.back()), kTile);
        CHECK_EQ(Predictions().PendingBytes(inputs[1]->data() + kTile), 0u);
        CHECK_EQ(Predictions().PendingBytes(inputs[0]->data() + 2 * kTile), kTileBytes);
        for (uint32_t i = 2; i < inputs.size(); ++i)
            CHECK_MSG(Predictions().PendingBytes(inputs[i]->data() + kTile) == kTileBytes, "stream ", i);
    });
}

TEST(Only_a_contiguous_run_of_gm_is_predicted) {
    Gm<float> a(4 * kTile);
    InKernel([&](const LocalTensor<float>& ub) {
        const uint16_t rows = 4, rowBlocks = uint16_t(kTile / 4 * sizeof(float) / 32);
        AscendC::DataCopy(ub, Global(a), AscendC::DataCopyParams{rows, uint16_t(rowBlocks / 2), 16, 0});
        CHECK_EQ(Predictions().PendingBytes(a.data() + kTile / 2), 0u);  // rows with gaps: no guess
        AscendC::DataCopy(ub, Global(a), AscendC::DataCopyParams{rows, rowBlocks, 0, 0});
        CHECK_EQ(Predictions().PendingBytes(a.data() + kTile), kTileBytes);
        const AscendC::DataCopyExtParams row{1, uint32_t(kTileBytes / 2 + 4), 0, 0, 0};
        AscendC::DataCopyPad(ub, Global(a)[2 * kTile], row, AscendC::DataCopyPadExtParams<float>{});
        CHECK_EQ(Predictions().PendingBytes(a.data() + 2 * kTile + kTile / 2 + 1), row.blockLen);
    });
}

// Each vector loop asks for one line per stream every kReadAheadStride elements it handles (the AVX2 loops; the
// portable ones, for machines without AVX2, ask for none).
TEST(Vector_loops_ask_for_one_line_per_stream_every_stride) {
    Gm<float> a(2 * kTile), b(2 * kTile);
    RunUb([&](Ub& ub) {
        const uint32_t n = 1024;
        auto x = ub.Load(std::vector<float>(n, 1.5f));
        auto y = ub.Alloc<float>(n);
        auto mask = ub.Alloc<uint8_t>(n / 8);
        auto narrow = ub.Alloc<bfloat16_t>(n);
        auto tile = ub.Alloc<float>(kTile);
        const std::vector<std::pair<const char*, std::function<void()>>> instructions = {
            {"Adds", [&] { AscendC::Adds(y, x, 1.0f, int32_t(n)); }},
            {"Mul", [&] { AscendC::Mul(y, x, x, int32_t(n)); }},
            {"Exp", [&] { AscendC::Exp(y, x, int32_t(n)); }},
            {"Compares", [&] { AscendC::Compares(mask, x, 1.0f, CMPMODE::GT, n); }},
            {"Select", [&] { AscendC::Select(y, mask, x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n); }},
            {"Cast", [&] { AscendC::Cast(narrow, x, RoundMode::CAST_RINT, n); }},
        };
        AscendC::SetSaturationFlag<AscendC::SaturationMode::CAST>(false);  // the narrowing's AVX2 loop
        const uint64_t perInstruction = actgrad_sim::UseAvx2() ? n / actgrad_sim::kReadAheadStride * actgrad_sim::kCacheLine : 0;
        for (const auto& [name, run] : instructions) {
            AscendC::PipeBarrier<AscendC::PIPE_ALL>();  // the copies share the scratch buffer with the instructions
            AscendC::DataCopy(tile, Global(a), kTile);
            AscendC::DataCopy(tile, Global(b), kTile);
            AscendC::PipeBarrier<AscendC::PIPE_ALL>();
            run();
            CHECK_MSG(Predictions().PendingBytes(a.data() + kTile) == kTileBytes - perInstruction, name);
            CHECK_MSG(Predictions().PendingBytes(b.data() + kTile) == kTileBytes - perInstruction, name);
        }
    });
}

TEST_MAIN()
