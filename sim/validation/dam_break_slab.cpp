#include "sim/validation/dam_break_slab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace surge {

DamBreakColumn dam_break_column(const Scene& scene) {
  if (scene.blocks.empty() || scene.blocks.front().shape != FluidBlock::Shape::box)
    throw SceneError(scene.path, scene.blocks.empty() ? 0 : scene.blocks.front().line, "fluid.block",
                     "the dam-break validation needs a box-shaped water column as the first [[fluid.block]]");
  const FluidBlock& block = scene.blocks.front();
  DamBreakColumn column;
  column.width_m = double(block.max.x) - double(block.min.x);
  column.height_m = double(block.max.z) - double(block.min.z);
  if (std::abs(block.min.x - scene.domain_min.x) > 1e-6f ||
      std::abs(block.min.z - scene.domain_min.z) > 1e-6f)
    throw SceneError(scene.path, block.line, "fluid.block.min",
                     "the water column must stand on the floor against the back wall (its min x and z equal "
                     "the domain's)");
  if (std::abs(column.height_m / column.width_m - 2.0) > 1e-3) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", column.height_m / column.width_m);
    throw SceneError(
        scene.path, block.line, "fluid.block.max",
        std::string("the experiments are for a column twice as high as wide (H = 2a); this one has "
                    "H/a = ") +
            ratio);
  }
  column.gravity = -double(scene.gravity.z);
  if (column.gravity <= 0 || scene.gravity.x != 0.0f || scene.gravity.y != 0.0f)
    throw SceneError(scene.path, scene.line_of("fluid.gravity"), "fluid.gravity",
                     "the dam break needs gravity along -z");
  column.front_time_scale = std::sqrt(2.0 * column.gravity / column.width_m);
  column.height_time_scale = std::sqrt(column.gravity / column.width_m);
  return column;
}

int default_slab_depth(int resolution) {
  return std::max(4, int(std::lround(0.4 * resolution)));
}

DamBreakColumn prepare_dam_break_slab(Scene& scene, const std::string& solver, int resolution,
                                      int depth_particles) {
  const DamBreakColumn column = dam_break_column(scene);
  FluidBlock& block = scene.blocks.front();
  const float spacing = float(column.width_m / resolution);
  scene.solver = *parse_solver_kind(solver);
  scene.spacing = spacing;
  scene.target_particles = 0;
  scene.domain_max.y = scene.domain_min.y + float(depth_particles) * spacing;
  block.min.y = scene.domain_min.y;
  block.max.y = scene.domain_max.y;
  scene.formats.clear();
  scene.every = 0;
  return column;
}

}  // namespace surge
