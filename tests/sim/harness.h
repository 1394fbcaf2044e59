// A tiny test harness for the CPU twin's C++ tests (tests/sim/test_*.cpp).
//
//   TEST(name) { ... }                       registers a test
//   KNOWN_BUG_TEST(name, "why") { ... }      a test that reproduces a known sim/include bug: it runs and reports
//                                           like any other, and `--known-bugs` lists it so pytest can xfail it
//   CHECK(cond), CHECK_EQ(a, b), CHECK_NEAR(a, b, tol), CHECK_BITS_EQ(a, b), CHECK_CONTAINS(str, sub), FAIL(msg...)
//   EXPECT_SIM_ERROR(kind, substring, statement)   statement must throw actgrad_sim::SimError of that ErrorKind whose
//                                                  message contains substring; the message is then in th::LastError()
//
//   ./binary            runs every test
//   ./binary a b        runs the tests named a and b
//   ./binary --list     prints the test names, one per line
//   ./binary --known-bugs   prints "name<TAB>why" for the KNOWN_BUG_TESTs
// Output: one line per test, "PASS name" or "FAIL name: why", then exactly "N passed, M failed". Exit code 1 on failure.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tikicpulib.h"

namespace th {

struct TestCase {
    const char* name;
    void (*fn)();
    const char* knownBug;  // null for ordinary tests
};

inline std::vector<TestCase>& Registry() {
    static std::vector<TestCase> tests;
    return tests;
}

struct Registrar {
    Registrar(const char* name, void (*fn)(), const char* knownBug = nullptr) { Registry().push_back({name, fn, knownBug}); }
};

// Thrown by a failed CHECK; deliberately not derived from std::exception so no kernel-side catch(...) of SimError
// handling confuses it with a simulator error (the launcher still forwards it as an exception_ptr).
struct Failure {
    std::string message;
};

template <typename... Parts>
[[noreturn]] void FailAt(const char* file, int line, const Parts&... parts) {
    std::ostringstream os;
    const char* base = std::strrchr(file, '/');
    os << (base ? base + 1 : file) << ":" << line << ": ";
    (os << ... << parts);
    throw Failure{os.str()};
}

inline std::string& LastError() {
    static std::string message;
    return message;
}

// Printable form of a value for failure messages (16-bit floats also show their bit pattern).
template <typename T>
std::string Show(const T& v) {
    std::ostringstream os;
    if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g (0x%04x)", double(float(v)), unsigned(v.val));
        os << buf;
    } else if constexpr (std::is_floating_point<T>::value) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", double(v));
        os << buf;
    } else if constexpr (std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value) {
        os << int(v);
    } else if constexpr (std::is_enum<T>::value) {
        os << int(v);
    } else {
        os << v;
    }
    return os.str();
}

template <typename T>
uint64_t Bits(const T& v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

inline std::string Hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return buf;
}

inline const char* KindName(actgrad_sim::ErrorKind k) { return actgrad_sim::ErrorKindName(k); }

// Resets the process-wide twin state every test may have changed.
inline void ResetTwinState() {
    actgrad_sim::SelectedSocName().clear();
    unsetenv("ACTGRAD_SOC");
    unsetenv("ACTGRAD_SIM_THREADS");
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    LastError().clear();
}

inline int Main(int argc, char** argv) {
    std::vector<std::string> wanted;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--list") {
            for (const auto& t : Registry()) std::printf("%s\n", t.name);
            return 0;
        }
        if (a == "--known-bugs") {
            for (const auto& t : Registry())
                if (t.knownBug) std::printf("%s\t%s\n", t.name, t.knownBug);
            return 0;
        }
        wanted.push_back(a);
    }
    std::vector<const TestCase*> run;
    int failed = 0, passed = 0;
    if (wanted.empty()) {
        for (const auto& t : Registry()) run.push_back(&t);
    } else {
        for (const auto& w : wanted) {
            const TestCase* found = nullptr;
            for (const auto& t : Registry())
                if (w == t.name) found = &t;
            if (found) {
                run.push_back(found);
            } else {
                std::printf("FAIL %s: no such test\n", w.c_str());
                failed++;
            }
        }
    }
    for (const TestCase* t : run) {
        ResetTwinState();
        std::string why;
        try {
            t->fn();
        } catch (const Failure& f) {
            why = f.message;
        } catch (const actgrad_sim::SimError& e) {
            why = std::string("unexpected SimError (") + KindName(e.kind()) + "): " + e.what();
        } catch (const std::exception& e) {
            why = std::string("unexpected exception: ") + e.what();
        } catch (...) {
            why = "unexpected non-standard exception";
        }
        if (why.empty()) {
            std::printf("PASS %s\n", t->name);
            passed++;
        } else {
            for (char& c : why)
                if (c == '\n') c = ' ';
            std::printf("FAIL %s: %s%s\n", t->name, why.c_str(),
                        t->knownBug ? (std::string(" [known sim bug: ") + t->knownBug + "]").c_str() : "");
            failed++;
        }
        std::fflush(stdout);
    }
    ResetTwinState();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

}  // namespace th

#define TH_CAT2(a, b) a##b
#define TH_CAT(a, b) TH_CAT2(a, b)

#define TEST(name)                                                    \
    static void TH_CAT(th_test_, name)();                             \
    static th::Registrar TH_CAT(th_reg_, name)(#name, &TH_CAT(th_test_, name)); \
    static void TH_CAT(th_test_, name)()

#define KNOWN_BUG_TEST(name, why)                                     \
    static void TH_CAT(th_test_, name)();                             \
    static th::Registrar TH_CAT(th_reg_, name)(#name, &TH_CAT(th_test_, name), why); \
    static void TH_CAT(th_test_, name)()

#define FAIL(...) th::FailAt(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond)                                          \
    do {                                                     \
        if (!(cond)) th::FailAt(__FILE__, __LINE__, "CHECK(" #cond ") failed"); \
    } while (0)

#define CHECK_MSG(cond, ...)                                                        \
    do {                                                                            \
        if (!(cond)) th::FailAt(__FILE__, __LINE__, "CHECK(" #cond ") failed: ", __VA_ARGS__); \
    } while (0)

#define CHECK_EQ(a, b)                                                                                      \
    do {                                                                                                    \
        const auto th_a = (a);                                                                              \
        const auto th_b = (b);                                                                              \
        if (!(th_a == th_b))                                                                                \
            th::FailAt(__FILE__, __LINE__, "CHECK_EQ(" #a ", " #b ") failed: ", th::Show(th_a), " != ", th::Show(th_b)); \
    } while (0)

// Same bit pattern (so NaN == NaN and +0 != -0).
#define CHECK_BITS_EQ(a, b)                                                                                  \
    do {                                                                                                     \
        const auto th_a = (a);                                                                               \
        const auto th_b = (b);                                                                               \
        static_assert(sizeof(th_a) == sizeof(th_b), "CHECK_BITS_EQ needs equal sizes");                      \
        if (th::Bits(th_a) != th::Bits(th_b))                                                                \
            th::FailAt(__FILE__, __LINE__, "CHECK_BITS_EQ(" #a ", " #b ") failed: ", th::Show(th_a), " [",     \
                       th::Hex(th::Bits(th_a)), "] != ", th::Show(th_b), " [", th::Hex(th::Bits(th_b)), "]"); \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                                 \
    do {                                                                                                      \
        const double th_a = double(a);                                                                        \
        const double th_b = double(b);                                                                        \
        if (!(std::fabs(th_a - th_b) <= double(tol)))                                                         \
            th::FailAt(__FILE__, __LINE__, "CHECK_NEAR(" #a ", " #b ", " #tol ") failed: ", th::Show(th_a), " vs ", \
                       th::Show(th_b));                                                                       \
    } while (0)

#define CHECK_CONTAINS(str, sub)                                                                          \
    do {                                                                                                  \
        const std::string th_s = (str);                                                                   \
        const std::string th_sub = (sub);                                                                 \
        if (th_s.find(th_sub) == std::string::npos)                                                       \
            th::FailAt(__FILE__, __LINE__, "expected \"", th_sub, "\" in \"", th_s, "\"");                \
    } while (0)

#define EXPECT_SIM_ERROR(th_kind, th_substring, th_statement)                                                         \
    do {                                                                                                     \
        bool th_thrown = false;                                                                              \
        try {                                                                                                \
            th_statement;                                                                                       \
        } catch (const actgrad_sim::SimError& th_e) {                                                        \
            th_thrown = true;                                                                                \
            th::LastError() = th_e.what();                                                                   \
            if (th_e.kind() != (th_kind))                                                                       \
                th::FailAt(__FILE__, __LINE__, "expected a SimError of kind '", th::KindName(th_kind), "', got '", \
                           th::KindName(th_e.kind()), "': ", th_e.what());                                   \
            if (std::string(th_e.what()).find(th_substring) == std::string::npos)                               \
                th::FailAt(__FILE__, __LINE__, "SimError message lacks \"", th_substring, "\": ", th_e.what()); \
        } catch (const th::Failure&) {                                                                       \
            throw;                                                                                           \
        } catch (const std::exception& th_e) {                                                               \
            th::FailAt(__FILE__, __LINE__, "expected a SimError (", th::KindName(th_kind), "), got another exception: ", \
                       th_e.what());                                                                         \
        }                                                                                                    \
        if (!th_thrown)                                                                                      \
            th::FailAt(__FILE__, __LINE__, "expected a SimError (", th::KindName(th_kind), ") containing \"", th_substring, \
                       "\" from: " #th_statement);                                                              \
    } while (0)

#define TEST_MAIN() \
    int main(int argc, char** argv) { return th::Main(argc, argv); }
