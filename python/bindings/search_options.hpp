// The search options bound as Python values (search_options.cpp), for search.cpp.
#pragma once

#include "bindings.hpp"
#include "sequence/parallel.hpp"
#include "sequence/search/options.hpp"

void init_search_options(py::module_& m);
