// The twin's environment variables, read at each launch with the rules `import actgrad` checks them by
// (python/actgrad/soc.py): unset or empty means no setting; $ACTGRAD_SIM_THREADS is an integer from 1 to 65535;
// $ACTGRAD_SOC names a known SoC; anything else is a std::invalid_argument naming the variable and its value.
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "twin_util.h"

using namespace tu;

namespace {

// The message of the std::invalid_argument `f` throws; fails the test when it throws nothing.
template <typename F>
std::string InvalidArgument(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    FAIL("no std::invalid_argument thrown");
}

actgrad_sim::LaunchStats RunDefaultThreads(uint32_t blocks, std::atomic<uint32_t>& ran) {
    return actgrad_sim::Launch("env_threads", [&ran] { ran++; }, blocks, actgrad_sim::LaunchOptions{0, {}});
}

}  // namespace

TEST(SimThreads_env_sets_the_worker_count_of_launches_given_none) {
    std::atomic<uint32_t> ran{0};
    setenv("ACTGRAD_SIM_THREADS", "3", 1);
    CHECK_EQ(actgrad_sim::EnvThreads(), 3u);
    CHECK_EQ(RunDefaultThreads(8, ran).threads, 3u);
    setenv("ACTGRAD_SIM_THREADS", "1", 1);
    CHECK_EQ(RunDefaultThreads(8, ran).threads, 1u);
    setenv("ACTGRAD_SIM_THREADS", "65535", 1);
    CHECK_EQ(RunDefaultThreads(2, ran).threads, 2u);  // never more workers than blocks
    setenv("ACTGRAD_SIM_THREADS", "", 1);           // empty: no setting
    CHECK_EQ(actgrad_sim::EnvThreads(), 0u);
    CHECK_EQ(RunDefaultThreads(64, ran).threads, std::min(64u, std::max(1u, std::thread::hardware_concurrency())));
    // an explicit count wins over the environment
    setenv("ACTGRAD_SIM_THREADS", "3", 1);
    CHECK_EQ(actgrad_sim::Launch("explicit", [&ran] { ran++; }, 8, actgrad_sim::LaunchOptions{2, {}}).threads, 2u);
    CHECK_EQ(ran.load(), 8u + 8u + 2u + 64u + 8u);
}

TEST(SimThreads_env_invalid_values_throw_naming_the_variable_before_any_block_runs) {
    for (const char* bad : {"0", "abc", "-3", "2x", " 2", "+2", "65536", "99999999999999999999"}) {
        setenv("ACTGRAD_SIM_THREADS", bad, 1);
        std::atomic<uint32_t> ran{0};
        const std::string message = InvalidArgument([&] { RunDefaultThreads(4, ran); });
        CHECK_CONTAINS(message, "ACTGRAD_SIM_THREADS");
        CHECK_CONTAINS(message, std::string("'") + bad + "'");
        CHECK_CONTAINS(message, "1 to 65535");
        CHECK_EQ(ran.load(), 0u);
    }
}

TEST(Soc_env_empty_is_the_default_and_an_unknown_name_throws_naming_the_variable) {
    auto socOf = [] { return RunBlock("soc", [] {}).soc; };
    setenv("ACTGRAD_SOC", "", 1);
    CHECK(actgrad_sim::EnvSoc() == nullptr);
    CHECK_EQ(socOf(), std::string("Ascend910B2"));
    setenv("ACTGRAD_SOC", "Ascend910B3", 1);
    CHECK_EQ(socOf(), std::string("Ascend910B3"));
    setenv("ACTGRAD_SOC", "Ascend000", 1);
    const std::string message = InvalidArgument(socOf);
    CHECK_CONTAINS(message, "ACTGRAD_SOC='Ascend000'");
    for (const auto& p : actgrad_sim::SocProfiles()) CHECK_CONTAINS(message, p.name);  // lists the known SoCs
}

TEST_MAIN()
