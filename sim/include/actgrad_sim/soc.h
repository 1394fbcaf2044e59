// SoC profiles: the numbers of the platform configuration files (see ascendc-api.md §7) and what each SoC supports.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <stdexcept>

namespace actgrad_sim {

struct SocProfile {
    const char* name;
    uint32_t npuArch;        // __NPU_ARCH__: 2201 = A2/A3, 2002 = 310P, 3510 = 950
    uint32_t aivCores;       // blocks a vector-only kernel can run at once (GetCoreNumAiv)
    uint32_t ubBytes;        // unified buffer per vector core (ini ub_size)
    uint32_t ubReservedBytes;  // top of UB that Select modes 1/2 use as scratch (2201: 8 KiB)
    uint32_t eventIds;       // event IDs per HardEvent
    bool dataCopyPad;        // DataCopyPad exists
    bool bf16Storage;        // bf16 DataCopy/Cast/Duplicate
    bool bf16Math;           // bf16 arithmetic/compare/select
    bool saturationDefault;  // half/bf16 results saturate (inf -> max, NaN -> 0) until SetSaturationFlag
    uint32_t maxAivBlocks;   // largest blockDim of any launch (numBlocks range of <<<>>>, ascendc-api.md §1.1)
    uint32_t cpuDebugAivBlocks;  // largest blockDim ICPU_RUN_KF accepts for an AIV kernel (0 = no limit)
};

inline const std::vector<SocProfile>& SocProfiles() {
    static const std::vector<SocProfile> profiles = {
        // 2201: the vendor's CPU-debug launcher aborts AIV launches beyond 50 blocks (ascendc-api.md §15.1)
        {"Ascend910B1", 2201, 48, 196608, 8192, 8, true, true, false, true, 65535, 50},
        {"Ascend910B2", 2201, 48, 196608, 8192, 8, true, true, false, true, 65535, 50},
        {"Ascend910B3", 2201, 40, 196608, 8192, 8, true, true, false, true, 65535, 50},
        {"Ascend910B4", 2201, 40, 196608, 8192, 8, true, true, false, true, 65535, 50},
        {"Ascend910_93", 2201, 48, 196608, 8192, 8, true, true, false, true, 65535, 50},
        // 310P3: coupled architecture, 8 AI cores; UB 256 KiB with the top 8 KiB kept by the toolchain
        {"Ascend310P", 2002, 8, 253952, 0, 8, false, false, false, false, 65535, 0},
        {"Ascend950", 3510, 72, 253952, 0, 8, true, true, true, false, 65535, 0},
    };
    return profiles;
}

constexpr const char* kDefaultSocName = "Ascend910B2";

inline std::string KnownSocNames() {  // for messages
    std::string known;
    for (const auto& p : SocProfiles()) known += std::string(known.empty() ? "" : ", ") + p.name;
    return known;
}

inline const SocProfile& FindSoc(const std::string& name) {
    for (const auto& p : SocProfiles())
        if (name == p.name) return p;
    throw std::invalid_argument("unknown SoC '" + name + "'; known SoCs: " + KnownSocNames());
}

// $ACTGRAD_SOC: the SoC of launches that choose none. Unset or empty: no choice (null here, the default SoC applies).
// An unknown name throws std::invalid_argument naming the variable and listing the known SoCs.
inline const SocProfile* EnvSoc() {
    const char* env = std::getenv("ACTGRAD_SOC");
    if (env == nullptr || *env == '\0') return nullptr;
    for (const auto& p : SocProfiles())
        if (std::string(env) == p.name) return &p;
    throw std::invalid_argument(std::string("$ACTGRAD_SOC='") + env + "' is not a known SoC; known: " +
                                KnownSocNames());
}

// The SoC the next launch runs on: SetSoc() wins, else $ACTGRAD_SOC, else Ascend910B2.
inline std::string& SelectedSocName() {
    static std::string name;
    return name;
}
inline void SetSoc(const std::string& name) { FindSoc(name); SelectedSocName() = name; }
inline const SocProfile& CurrentSoc() {
    if (!SelectedSocName().empty()) return FindSoc(SelectedSocName());
    const SocProfile* env = EnvSoc();
    return env != nullptr ? *env : FindSoc(kDefaultSocName);
}

}  // namespace actgrad_sim
