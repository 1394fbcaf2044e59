// The sample kernel sim/examples/add_kernel.h (double-buffered, DataCopyPad tails) over many sizes, block counts and
// tile lengths: results must be exact, GM outside the output untouched, and the statistics consistent.
#include <random>

#include "twin_util.h"
#include "add_kernel.h"

using namespace tu;

namespace {

const uint32_t kBlockCounts[] = {1, 2, 3, 7, 8, 40, 48};

// Runs add_custom on n elements and checks z == x + y exactly; z has a guard zone after n that must stay untouched.
void CheckAdd(uint32_t n, uint32_t blocks, uint32_t tile, uint32_t threads = 0) {
    const uint32_t guard = 64;
    Gm<float> x(n), y(n), z(n + guard);
    Gm<AddTiling> tiling(1);
    std::mt19937 rng(n * 131 + blocks);
    std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
    for (uint32_t i = 0; i < n; ++i) x[i] = dist(rng), y[i] = dist(rng);
    z.fill_bytes(0xCD);
    tiling[0] = AddTiling{n, tile};
    const auto stats = actgrad_sim::Launch("add_custom", add_custom, blocks, actgrad_sim::LaunchOptions{threads, {}}, x.addr(),
                                           y.addr(), z.addr(), GM_ADDR(nullptr), tiling.addr());
    for (uint32_t i = 0; i < n; ++i)
        if (th::Bits(z[i]) != th::Bits(x[i] + y[i]))
            FAIL("n=", n, " blocks=", blocks, " tile=", tile, ": z[", i, "] = ", z[i], ", expected ", x[i] + y[i]);
    const uint8_t* g = reinterpret_cast<const uint8_t*>(z.data() + n);
    for (uint32_t i = 0; i < guard * sizeof(float); ++i)
        if (g[i] != 0xCD) FAIL("n=", n, " blocks=", blocks, " tile=", tile, ": guard byte ", i, " after the output was written");
    // every input byte read once, every output byte written once, DMA sizes within a tile, UB = 3 queues x 2 x tile
    CHECK_EQ(stats.blocks.size(), size_t(blocks));
    uint64_t read = 0, written = 0;
    for (const auto& b : stats.blocks) {
        read += b.gmBytesRead;
        written += b.gmBytesWritten;
        if (b.dmaTransfers) CHECK(b.dmaBytesMax <= uint64_t(tile) * 4 && b.dmaBytesMin >= 4);
        CHECK_EQ(b.dmaTransfers % 3, 0u);
        CHECK_EQ(b.vectorInstructions * 3, b.dmaTransfers);
        if (n) CHECK_EQ(b.ubHighWater, 6 * ((tile * 4 + 31) / 32 * 32));
    }
    CHECK_EQ(read, 8ull * n);
    CHECK_EQ(written, 4ull * n);
}

void Sweep(uint32_t blocks) {
    for (uint32_t n = 0; n <= 70; ++n) CheckAdd(n, blocks, 16);
    for (uint32_t n : {255u, 256u, 257u, 4095u, 4096u, 4097u, 8191u, 100003u}) CheckAdd(n, blocks, 4096);
    CheckAdd(48 * 4096 + 1, blocks, 4096);
    CheckAdd(48 * 4096 - 1, blocks, 1000);
}

}  // namespace

TEST(sizes_blocks_1) { Sweep(1); }
TEST(sizes_blocks_2) { Sweep(2); }
TEST(sizes_blocks_3) { Sweep(3); }
TEST(sizes_blocks_7) { Sweep(7); }
TEST(sizes_blocks_8) { Sweep(8); }
TEST(sizes_blocks_40) { Sweep(40); }
TEST(sizes_blocks_48) { Sweep(48); }

TEST(tile_lengths) {
    // tiles of one 32-byte block up to the largest that fits UB (6 x 8192 x 4 = 196608 bytes exactly)
    for (uint32_t tile : {8u, 24u, 64u, 1000u, 2048u, 8192u})
        for (uint32_t n : {1u, 9u, 1000u, 65537u})
            for (uint32_t blocks : {1u, 3u, 48u}) CheckAdd(n, blocks, tile);
}

TEST(tile_too_large_for_ub) {
    EXPECT_SIM_ERROR(ErrorKind::UbOverflow, "beyond the 196608 bytes", CheckAdd(1000, 2, 8200));
    CHECK_CONTAINS(th::LastError(), "kernel 'add_custom' block 0/2");
}

TEST(thread_counts_sequential_and_pooled) {
    for (uint32_t threads : {1u, 2u, 7u, 48u}) {
        CheckAdd(100003, 48, 4096, threads);
        CheckAdd(4097, 7, 256, threads);
    }
}

TEST(more_blocks_than_data) {
    // blocks past the data get an empty range and must not touch GM
    for (uint32_t n : {1u, 8u, 9u, 100u}) CheckAdd(n, 48, 4096);
    CheckAdd(5, 200, 64);
}

TEST(other_socs) {
    actgrad_sim::SetSoc("Ascend950");
    CheckAdd(100003, 72, 4096);
    actgrad_sim::SetSoc("Ascend910B3");
    CheckAdd(4097, 40, 512);
    // 310P has no DataCopyPad: 32-byte-multiple sizes work, an unaligned tail is rejected
    actgrad_sim::SetSoc("Ascend310P");
    CheckAdd(4096, 8, 512);
    EXPECT_SIM_ERROR(ErrorKind::Unsupported, "DataCopyPad is not available on Ascend310P", CheckAdd(4097, 8, 512));
    CHECK_CONTAINS(th::LastError(), "block 7/8");
}

TEST(run_add_example_via_ICPU_RUN_KF) {
    // the shape of sim/examples/run_add.cpp
    const uint32_t n = 100003, blocks = 8;
    auto* x = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* y = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* z = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* tiling = static_cast<AddTiling*>(AscendC::GmAlloc(sizeof(AddTiling)));
    for (uint32_t i = 0; i < n; ++i) x[i] = float(i), y[i] = 0.5f;
    *tiling = AddTiling{n, 4096};
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, blocks, (GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z, (GM_ADDR) nullptr, (GM_ADDR)tiling);
    for (uint32_t i = 0; i < n; ++i) CHECK_EQ(z[i], float(i) + 0.5f);
    const auto& s = actgrad_sim::LastLaunchStats();
    // block 0 of 8: 12501 units / 8 -> 1563 units = 12504 floats: tiles 4096 x 3 + 216, all 32-byte multiples
    CHECK_EQ(s.blocks[0].gmBytesRead, 2ull * 12504 * 4);
    CHECK_EQ(s.blocks[0].gmBytesWritten, 12504ull * 4);
    CHECK_EQ(s.blocks[0].dmaTransfers, 12u);
    CHECK_EQ(s.blocks[0].dmaBytesMin, 864u);
    CHECK_EQ(s.blocks[0].dmaBytesMax, 16384u);
    CHECK_EQ(s.blocks[0].ubHighWater, 98304u);
    // the last block: 100003 - 7 x 12504 = 12475 floats: tiles 4096 x 3 + 187 (DataCopyPad of 748 bytes)
    CHECK_EQ(s.blocks[7].gmBytesWritten, 12475ull * 4);
    CHECK_EQ(s.blocks[7].dmaBytesMin, 748u);
    for (void* p : {(void*)x, (void*)y, (void*)z, (void*)tiling}) AscendC::GmFree(p);
}

TEST_MAIN()
