// Compile and run a kernel on the twin exactly as in the vendor's CPU debug mode:
//   g++ -std=c++17 -O2 -pthread -Isim/include sim/examples/run_add.cpp -o run_add && ./run_add
#include <cstdio>
#include <vector>

#include "add_kernel.h"
#include "tikicpulib.h"

int main() {
    const uint32_t n = 100003, blocks = 8;
    auto* x = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* y = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* z = static_cast<float*>(AscendC::GmAlloc(n * sizeof(float)));
    auto* tiling = static_cast<AddTiling*>(AscendC::GmAlloc(sizeof(AddTiling)));
    for (uint32_t i = 0; i < n; ++i) {
        x[i] = float(i);
        y[i] = 0.5f;
    }
    *tiling = AddTiling{n, 4096};
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(add_custom, blocks, (GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z, (GM_ADDR) nullptr, (GM_ADDR)tiling);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; ++i) bad += z[i] != float(i) + 0.5f;
    const auto& stats = actgrad_sim::LastLaunchStats();
    std::printf("%u mismatches; block 0 read %llu B, wrote %llu B in %llu DMA transfers, UB high water %u B\n", bad,
                (unsigned long long)stats.blocks[0].gmBytesRead, (unsigned long long)stats.blocks[0].gmBytesWritten,
                (unsigned long long)stats.blocks[0].dmaTransfers, stats.blocks[0].ubHighWater);
    for (void* p : {(void*)x, (void*)y, (void*)z, (void*)tiling}) AscendC::GmFree(p);
    return bad == 0 ? 0 : 1;
}
