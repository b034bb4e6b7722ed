// Shared declarations of the pybind11 glue for sequence_game._core.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "sequence/position.hpp"

namespace py = pybind11;

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

void init_cards(py::module_& m);
void init_game(py::module_& m);

// An int argument in [lo, hi]; TypeError for a non-int (bools included), ValueError out of range.
long long int_in_range(const py::handle& value, const std::string& name, long long lo, long long hi);
// An int in [0, 2^64); TypeError / ValueError as above.
std::uint64_t uint64_arg(const py::handle& value, const std::string& name);

// A caller's `out` array for a result of `size` elements of dtype T: one-dimensional, contiguous,
// writable and of exactly that dtype; TypeError/ValueError naming `what` otherwise (actions.cpp).
pybind11::object checked_out_array(const pybind11::object& out, const pybind11::object& dtype, long size, const std::string& what);

// The Position of a dict with exactly the keys of sequence::Position (see state.cpp's docstrings).
// Raises TypeError/ValueError on a malformed dict; consistency is checked by from_position().
sequence::Position position_from_dict(const py::dict& d);
py::dict position_to_dict(const sequence::Position& pos);

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
