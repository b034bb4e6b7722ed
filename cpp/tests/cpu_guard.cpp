// sequence_cpu_guard PATH PROGRAM [ARGS...]: runs PROGRAM if this processor supports the
// instruction-set path PATH (cpu.hpp), else exits 77 (ctest's SKIP_RETURN_CODE). Built for the
// baseline, so it runs anywhere; the program built for PATH may use its instructions from startup.
#include <cstdio>

#include "sequence/cpu.hpp"

#if defined(_WIN32)
#include <process.h>
#define SEQUENCE_EXECV _execv
#else
#include <unistd.h>
#define SEQUENCE_EXECV execv
#endif

int main(int argc, char** argv) {
    using namespace sequence::cpu;
    Path path;
    if (argc < 3 || !parse_path(argv[1], path)) {
        std::fprintf(stderr, "usage: sequence_cpu_guard baseline|x86-64-v3|avx512 PROGRAM [ARGS...]\n");
        return 2;
    }
    if (!supports(path)) {
        std::printf("skipped: this processor cannot run the %s path\n", argv[1]);
        return 77;
    }
    SEQUENCE_EXECV(argv[2], argv + 2);
    std::perror(argv[2]);
    return 127;
}
