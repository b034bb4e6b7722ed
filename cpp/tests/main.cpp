#include <cstdio>
#include <cstring>

#include "test.hpp"

namespace test {
std::vector<Case>& registry() {
    static std::vector<Case> cases;
    return cases;
}
int failures = 0;
}  // namespace test

// Runs every test, or those whose name contains argv[1], or (argv[1] = -TEXT) those whose name
// does not contain TEXT.
int main(int argc, char** argv) {
    int run = 0;
    const bool exclude = argc > 1 && argv[1][0] == '-';
    for (const test::Case& c : test::registry()) {
        if (argc > 1 && (std::strstr(c.name, argv[1] + exclude) == nullptr) != exclude) continue;
        const int before = test::failures;
        c.run();
        ++run;
        std::printf("%s %s\n", test::failures == before ? "ok  " : "FAIL", c.name);
    }
    std::printf("%d tests, %d failed checks\n", run, test::failures);
    return test::failures == 0 ? 0 : 1;
}
