// A minimal test harness: TEST(name) registers a function; CHECK records a failure and goes on.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace test {

struct Case {
    const char* name;
    std::function<void()> run;
};
std::vector<Case>& registry();
extern int failures;

struct Register {
    Register(const char* name, std::function<void()> run) { registry().push_back({name, std::move(run)}); }
};

}  // namespace test

#define TEST(name)                                            \
    static void name();                                       \
    static const test::Register name##_registered(#name, name); \
    static void name()

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            ++test::failures;                                                         \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

#define CHECK_EQ(a, b)                                                                              \
    do {                                                                                            \
        const auto va = (a);                                                                        \
        const auto vb = (b);                                                                        \
        if (!(va == vb)) {                                                                          \
            ++test::failures;                                                                       \
            std::fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%s vs %s)\n", __FILE__, __LINE__, #a, #b, \
                         std::to_string(va).c_str(), std::to_string(vb).c_str());                   \
        }                                                                                           \
    } while (0)
