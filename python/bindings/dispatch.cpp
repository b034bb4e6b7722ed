// The module sequence_game._core: picks the instruction-set path (cpp/include/sequence/cpu.hpp)
// once, at import, and binds that path's copy of the core; build_info() says which runs.
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <string>

#include "sequence/cpu.hpp"

namespace py = pybind11;

// Each path's bindings (module.cpp), in the inline namespace its copy was compiled in
// (sequence/isa.hpp); this file is compiled for the baseline only.
namespace sequence_bindings {
namespace isa_baseline {
void bind_module(py::module_& m);
}
#if defined(SEQUENCE_PATH_X86_64_V3)
namespace isa_x86_64_v3 {
void bind_module(py::module_& m);
}
#endif
#if defined(SEQUENCE_PATH_AVX512)
namespace isa_avx512 {
void bind_module(py::module_& m);
}
#endif
}  // namespace sequence_bindings

namespace {

using sequence::cpu::Path;

bool compiled(Path p) {
    switch (p) {
        case Path::Baseline: return true;
#if defined(SEQUENCE_PATH_X86_64_V3)
        case Path::X86_64_V3: return true;
#endif
#if defined(SEQUENCE_PATH_AVX512)
        case Path::Avx512: return true;
#endif
        default: return false;
    }
}

#if defined(SEQUENCE_NATIVE_BUILD)
constexpr bool kNative = true;
#else
constexpr bool kNative = false;
#endif

// A research build (CMake SEQUENCE_RESEARCH): SearchOptions has the options of docs/research/.
#if SEQUENCE_RESEARCH
constexpr bool kResearch = true;
#else
constexpr bool kResearch = false;
#endif

// The name of a path of this build: a -march=native build holds one path, "native".
std::string name_of(Path p) { return kNative ? "native" : sequence::cpu::path_name(p); }

py::list compiled_names() {
    py::list out;
    for (int i = 0; i < sequence::cpu::kPaths; ++i)
        if (compiled(static_cast<Path>(i))) out.append(name_of(static_cast<Path>(i)));
    if (kNative) return py::list(py::make_tuple("native"));
    return out;
}

// The best path of this build the processor supports, or the one SEQUENCE_CPU names.
Path choose(std::string& forced) {
    const char* env = std::getenv("SEQUENCE_CPU");
    forced = env != nullptr ? env : "";
    if (forced.empty()) {
        for (int i = sequence::cpu::kPaths - 1; i > 0; --i) {
            const Path p = static_cast<Path>(i);
            if (compiled(p) && sequence::cpu::supports(p)) return p;
        }
        return Path::Baseline;
    }
    Path p = Path::Baseline;
    if (kNative) {
        if (forced != "native")
            throw py::import_error("SEQUENCE_CPU=" + forced + ": this build was made with SEQUENCE_NATIVE and holds one "
                                   "path, 'native' (unset SEQUENCE_CPU, or set it to native)");
        return p;
    }
    if (!sequence::cpu::parse_path(forced.c_str(), p))
        throw py::import_error("SEQUENCE_CPU=" + forced + " names no instruction-set path: use one of " +
                               py::str(py::str(", ").attr("join")(compiled_names())).cast<std::string>() + " (or unset it)");
    if (!compiled(p))
        throw py::import_error("SEQUENCE_CPU=" + forced + ": this build does not hold that path; it holds " +
                               py::str(py::str(", ").attr("join")(compiled_names())).cast<std::string>());
    if (!sequence::cpu::supports(p))
        throw py::import_error("SEQUENCE_CPU=" + forced + ": this processor cannot run that path");
    return p;
}

std::string compiler() {
#if defined(__clang__)
    return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
    return std::string("GCC ") + __VERSION__;
#elif defined(_MSC_VER)
    return "MSVC " + std::to_string(_MSC_FULL_VER);
#else
    return "unknown";
#endif
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    std::string forced;
    const Path path = choose(forced);
    switch (path) {
#if defined(SEQUENCE_PATH_AVX512)
        case Path::Avx512: sequence_bindings::isa_avx512::bind_module(m); break;
#endif
#if defined(SEQUENCE_PATH_X86_64_V3)
        case Path::X86_64_V3: sequence_bindings::isa_x86_64_v3::bind_module(m); break;
#endif
        default: sequence_bindings::isa_baseline::bind_module(m); break;
    }
    py::list supported;
    for (int i = 0; i < sequence::cpu::kPaths; ++i)
        if (sequence::cpu::supports(static_cast<Path>(i))) supported.append(sequence::cpu::path_name(static_cast<Path>(i)));
    py::dict info;
    info["path"] = name_of(path);
    info["paths"] = compiled_names();
    info["cpu"] = supported;
    info["forced"] = forced.empty() ? py::object(py::none()) : py::object(py::str(forced));
    info["native"] = kNative;
    info["research"] = kResearch;
    info["compiler"] = compiler();
    m.def(
        "build_info", [info]() { return info.attr("copy")(); },
        "How this module was built and which instruction-set path runs: path (the one running: "
        "baseline, x86-64-v3, avx512, or native for a SEQUENCE_NATIVE build), paths (those the module "
        "holds), cpu (those this processor supports), forced (SEQUENCE_CPU, or None), native, research "
        "(a SEQUENCE_RESEARCH build, with the search options of docs/research/), compiler.");
}
