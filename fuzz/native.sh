#!/usr/bin/env bash
# Fuzz one target with coverage of the compiled core as well as the Python side (fuzz/README.md,
# "Coverage of the C++ core"):
#   fuzz/native.sh TARGET [libFuzzer options]      e.g. fuzz/native.sh core_position -runs=20000 -seed=1
# Builds sequence_game._core with clang and -fsanitize=fuzzer-no-link (libFuzzer's counters on every
# C++ edge and comparison) into build/fuzz-native, beside a copy of the Python package; makes clang's
# libFuzzer (compiler-rt, without main) a shared library that atheris finds preloaded, and runs
# fuzz/fuzz.py on that copy. Needs clang, compiler-rt (Debian: apt-get install clang
# libclang-rt-14-dev), atheris, and the Python that has numpy, rich and pybind11 (run it in the venv).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,9p' "$0"; exit 2; }
build=$(realpath -m "${SEQUENCE_FUZZ_NATIVE_BUILD:-build/fuzz-native}")
python=$(python -c 'import sys; print(sys.executable)')
runtime="$(clang++ -print-resource-dir)/lib/linux/libclang_rt.fuzzer_no_main-$(uname -m).a"
[ -f "$runtime" ] || { echo "native.sh: no $runtime (install compiler-rt: libclang-rt-14-dev)" >&2; exit 1; }

cmake -S . -B "$build" -DSEQUENCE_PYTHON=ON -DSEQUENCE_NATIVE=OFF -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
  -DPython_EXECUTABLE="$python" -Dpybind11_DIR="$(python -m pybind11 --cmakedir)" > "$build.cmake.log"
cmake --build "$build" -j2 --target _core > "$build.build.log"
rm -rf "$build/pkg" && mkdir -p "$build/pkg"
cp -r python/sequence_game "$build/pkg/"
rm -f "$build"/pkg/sequence_game/_core*.so
cp "$build"/_core*.so "$build/pkg/sequence_game/"
[ "$build/libfuzzer.so" -nt "$runtime" ] ||
  clang++ -shared -o "$build/libfuzzer.so" -Wl,--whole-archive "$runtime" -Wl,--no-whole-archive -lpthread

# -S: no .pth files, so an editable install's import hook cannot put the other _core first; the
# site-packages directories come back through PYTHONPATH, after the instrumented copy.
site=$("$python" -c 'import site; print(":".join(site.getsitepackages()))')
export PYTHONPATH="$build/pkg:$site" LD_PRELOAD="$build/libfuzzer.so"
"$python" -S -c "import sys, sequence_game._core as c; sys.exit(0 if c.__file__.startswith('$build/pkg') else 'the instrumented _core was not the one imported: ' + c.__file__)"
exec "$python" -S fuzz/fuzz.py "$@"
