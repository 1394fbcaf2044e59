// PROBE: ubsan
// int16 Mul and Muls wrap like the hardware; built with -fsanitize=undefined this must run clean.
#include <cstdio>
#include <cstring>

#include "kernel_operator.h"

int main() {
    int16_t out[32] = {};
    actgrad_sim::Launch("int16_mul", [&] {
        AscendC::TPipe pipe;
        AscendC::TBuf<AscendC::TPosition::VECCALC> b;
        pipe.InitBuffer(b, 256);
        auto x = b.Get<int16_t>(16);
        auto d = b.GetWithOffset<int16_t>(16, 64);
        AscendC::Duplicate(x, int16_t(-1), 16);
        AscendC::Mul(d, x, x, 16);
        std::memcpy(out, d.GetPhyAddr(), 32);
        AscendC::Duplicate(x, int16_t(-300), 16);
        AscendC::Muls(d, x, int16_t(-300), 16);
        std::memcpy(out + 16, d.GetPhyAddr(), 32);
    }, 1, actgrad_sim::LaunchOptions{1, {}});
    if (out[0] != 1 || out[16] != int16_t(90000 - 65536)) {
        std::printf("wrong results %d %d\n", out[0], out[16]);
        return 1;
    }
    return 0;
}
