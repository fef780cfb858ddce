#include "sim/sph/solver_parameters.h"

namespace surge {

std::vector<NamedValue> describe_parameters(const DfsphParameters& d) {
  return {{"solver", std::string("dfsph")},
          {"density_error_target_percent", 100.0 * double(d.density_error)},
          {"divergence_error_target_percent", 100.0 * double(d.divergence_error)},
          {"min_iterations", double(d.min_iterations)},
          {"max_iterations", double(d.max_iterations)},
          {"divergence_solve", std::string(d.divergence_solve ? "on" : "off")},
          {"viscosity_m2_per_s", double(d.viscosity)}};
}

std::vector<NamedValue> describe_parameters(const PbfParameters& p) {
  return {{"solver", std::string("pbf")},
          {"iterations", double(p.iterations)},
          {"density_error_target_percent", 100.0 * double(p.density_error)},
          {"relaxation", double(p.relaxation)},
          {"scorr_k", double(p.scorr_k)},
          {"scorr_n", double(p.scorr_n)},
          {"scorr_dq", double(p.scorr_dq)},
          {"xsph", double(p.xsph)},
          {"vorticity", double(p.vorticity)}};
}

}  // namespace surge
