// The instruction-set path this translation unit is compiled for, as a namespace: every
// declaration of the core lives in `namespace sequence { inline namespace SEQUENCE_ISA { ... } }`,
// so that the copies of a dispatching build (CMakeLists.txt, cpu.hpp) are distinct symbols that
// link side by side in one module, while code names them as plain `sequence::...`. A new function
// needs nothing more than to be declared inside the namespace.
#pragma once

// SEQUENCE_ISA_LEVEL (set by CMake for each copy of a dispatching build): 0 or unset baseline,
// 1 x86-64-v3, 2 AVX-512.
#if !defined(SEQUENCE_ISA_LEVEL) || SEQUENCE_ISA_LEVEL == 0
#define SEQUENCE_ISA isa_baseline
#elif SEQUENCE_ISA_LEVEL == 1
#define SEQUENCE_ISA isa_x86_64_v3
#elif SEQUENCE_ISA_LEVEL == 2
#define SEQUENCE_ISA isa_avx512
#else
#error "SEQUENCE_ISA_LEVEL must be 0 (baseline), 1 (x86-64-v3) or 2 (AVX-512)"
#endif
