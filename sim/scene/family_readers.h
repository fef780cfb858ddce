// The readers of each scene family's tables, called by parse_scene (scene_loader.cpp) in the order
// docs/scenes.md gives. Each fills its part of the Scene or throws SceneError.
#pragma once

#include <string_view>

#include "sim/scene/toml_reader.h"

namespace surge {

// Fails `table` when its extent [low, high] along `axis` leaves the domain (beyond a micron per metre of
// tank): "WHAT is not inside the domain: its x extent DETAIL[low, high] m leaves ...". For fluid blocks and
// grain blocks and solids (read_fluid.cpp).
void check_extent_in_domain(const TableReader& table, const Scene& scene, int axis, double low, double high,
                            std::string_view what, std::string_view detail);

// SPH fluids (read_fluid.cpp).
void read_resolution(const TableReader& resolution, Scene& scene);
void read_fluid(const TableReader& fluid, Scene& scene);
void read_emitters(const TableReader& top, Scene& scene);
// [[solid]] obstacles of the SPH solvers (read_solids.cpp), after [domain] and [resolution].
void read_solids(const TableReader& top, Scene& scene);
void read_dfsph(const TableReader& dfsph, Scene& scene);
void read_pbf(const TableReader& pbf, Scene& scene);
// The WCSPH-only [fluid] keys in a scene of another solver, which would otherwise be ignored silently.
void reject_wcsph_keys_of_other_solvers(const Scene& scene);

// [[gauge]] and [gauges] of the SPH solvers (read_gauges.cpp), after [domain], [resolution] and [output].
void read_gauges(const TableReader& top, Scene& scene);

// [render]: the style and the surface's look (read_render.cpp), any solver.
void read_render(const TableReader& render, Scene& scene);

// Granular DEM (read_dem.cpp).
void read_dem(const TableReader& dem, Scene& scene);

// Gravitating bodies (read_nbody.cpp).
void read_nbody(const TableReader& nbody, Scene& scene);

}  // namespace surge
