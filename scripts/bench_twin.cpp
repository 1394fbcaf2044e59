// Benchmark driver for scripts/bench_twin.py: the sample double-buffered add kernel (sim/examples/add_kernel.h) on
// the CPU twin, z = x + y over N floats split across B blocks, timed over R runs after a warm-up run.
//   bench_twin [N] [blocks] [tile] [runs] [threads]      (threads 0 = hardware concurrency)
// Prints one line of JSON: {"n":..., "blocks":..., "tile":..., "threads":..., "times":[seconds...], "ok":true}
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "add_kernel.h"
#include "tikicpulib.h"

int main(int argc, char** argv) {
    const uint32_t n = argc > 1 ? uint32_t(std::strtoul(argv[1], nullptr, 10)) : 16u * 1024 * 1024;
    const uint32_t blocks = argc > 2 ? uint32_t(std::atoi(argv[2])) : 48;
    const uint32_t tile = argc > 3 ? uint32_t(std::atoi(argv[3])) : 8192;
    const int runs = argc > 4 ? std::atoi(argv[4]) : 7;
    const uint32_t threads = argc > 5 ? uint32_t(std::atoi(argv[5])) : 0;

    auto* x = static_cast<float*>(AscendC::GmAlloc(size_t(n) * sizeof(float)));
    auto* y = static_cast<float*>(AscendC::GmAlloc(size_t(n) * sizeof(float)));
    auto* z = static_cast<float*>(AscendC::GmAlloc(size_t(n) * sizeof(float)));
    auto* tiling = static_cast<AddTiling*>(AscendC::GmAlloc(sizeof(AddTiling)));
    for (uint32_t i = 0; i < n; ++i) {
        x[i] = float(i % 1000) * 0.25f;
        y[i] = float(i % 7) - 3.0f;
    }
    std::memset(z, 0, size_t(n) * sizeof(float));
    *tiling = AddTiling{n, tile};

    const actgrad_sim::LaunchOptions options{threads, {}};
    auto launch = [&] {
        return actgrad_sim::Launch("add_custom", add_custom, blocks, options, (GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z,
                                   (GM_ADDR) nullptr, (GM_ADDR)tiling);
    };
    const actgrad_sim::LaunchStats stats = launch();  // warm-up: pool threads, UB arenas, page faults of z
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; ++i) ok = z[i] == x[i] + y[i];

    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        launch();
        const auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double>(t1 - t0).count());
    }
    std::printf("{\"n\": %u, \"blocks\": %u, \"tile\": %u, \"threads\": %u, \"ok\": %s, \"times\": [", n, blocks, tile,
                stats.threads, ok ? "true" : "false");
    for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", times[i]);
    std::printf("]}\n");
    for (void* p : {(void*)x, (void*)y, (void*)z, (void*)tiling}) AscendC::GmFree(p);
    return ok ? 0 : 1;
}
