// The parameter table of [gauges] (sim/core/parameter_spec.h): its numbers, for the loader and
// docs/scenes.md. Its `csv` path, a string, is read beside it (read_gauges.cpp).
#pragma once

#include <span>

#include "sim/core/parameter_spec.h"
#include "sim/sph/gauge.h"

namespace surge {

std::span<const ParameterSpec<GaugeOutput>> gauge_parameter_specs();

}  // namespace surge
