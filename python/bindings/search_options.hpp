// The search options bound as Python values (search_options.cpp), for search.cpp.
#pragma once

#include "bindings.hpp"
#include "sequence/parallel.hpp"
#include "sequence/search/options.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

void init_search_options(py::module_& m);

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
