#include "app/bench_report.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "app/figure_report.h"
#include "app/machine_info.h"
#include "app/number_format.h"
#include "app/stage_report.h"
#include "sim/core/gpu_info.h"

namespace surge::app {
namespace {

constexpr int kCountWidth = 12;
constexpr int kBackendWidth = 16;
constexpr int kBusWidth = 14;
constexpr int kSpeedupWidth = 9;
constexpr int kStepWidth = 10;
constexpr int kRateWidth = 18;
constexpr int kStageWidth = 20;

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer.data();
}

// CUDA encodes versions as 1000 * major + 10 * minor (13000 = 13.0).
std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// A float as the shortest decimal that reads back as the same float: 0.001, not 0.0010000000474974513.
double decimal(float value) {
  std::array<char, 32> text{};
  for (int digits = 6;; ++digits) {
    std::snprintf(text.data(), text.size(), "%.*g", digits, double(value));
    // Nine significant digits always read back exactly; fewer usually do.
    if (digits == 9 || std::strtof(text.data(), nullptr) == value) return std::strtod(text.data(), nullptr);
  }
}

nlohmann::ordered_json vec_json(Vec3f v) {
  return nlohmann::ordered_json::array({decimal(v.x), decimal(v.y), decimal(v.z)});
}

// Floats recorded as the decimal the user would write; units are in the names (NamedValue).
nlohmann::ordered_json parameters_json(const std::vector<NamedValue>& parameters) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const NamedValue& parameter : parameters) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, double>) {
            // A value that came from a float prints as that float's short decimal.
            json[parameter.name] = double(float(value)) == value ? decimal(float(value)) : value;
          } else if constexpr (std::is_same_v<T, Vec3f>) {
            json[parameter.name] = vec_json(value);
          } else {
            json[parameter.name] = value;
          }
        },
        parameter.value);
  }
  return json;
}

// Figures are measurements, not settings: doubles as computed (a count such as 2^36 pairs must not be rounded
// to the float decimal 68719480000).
nlohmann::ordered_json figures_json(const std::vector<NamedValue>& figures) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const NamedValue& figure : figures) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, Vec3f>) {
            json[figure.name] =
                nlohmann::ordered_json::array({double(value.x), double(value.y), double(value.z)});
          } else {
            json[figure.name] = value;
          }
        },
        figure.value);
  }
  return json;
}

nlohmann::ordered_json machine_json() {
  const MachineInfo machine = query_machine();
  return {{"hostname", machine.hostname},
          {"cpu_model", machine.cpu_model},
          {"logical_cores", machine.logical_cores},
          {"openmp_threads", machine.openmp_threads}};
}

nlohmann::ordered_json gpu_json() {
  const std::optional<GpuInfo> gpu = query_gpu();
  if (!gpu) return nullptr;
  return {
      {"name", gpu->name},
      {"compute_capability", std::to_string(gpu->compute_major) + "." + std::to_string(gpu->compute_minor)},
      {"multiprocessors", gpu->multiprocessors},
      {"memory_bytes", gpu->total_memory},
      {"driver_version", gpu->driver_string()},
      {"runtime_version", cuda_version_string(gpu->runtime_version)}};
}

nlohmann::ordered_json number_or_null(std::optional<double> value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

// The work of the neighbour passes, so two runs compare at equal work (neighbor_census.h); null for
// solvers without a census.
nlohmann::ordered_json neighbors_json(const BenchRun& run) {
  const std::vector<NamedValue>& f = run.figures;
  if (!figure_value(f, "neighbors_per_particle")) return nullptr;
  std::optional<double> passes = figure_value(f, "neighbor_passes_mean");
  if (!passes) passes = figure_value(f, "neighbor_passes");
  std::optional<double> pairs_per_s;
  if (const std::optional<double> per_step = figure_value(f, "neighbor_pairs_per_step");
      per_step && run.seconds > 0)
    pairs_per_s = *per_step * double(run.steps) / run.seconds;
  return {{"mean", *figure_value(f, "neighbors_per_particle")},
          {"fluid_mean", number_or_null(figure_value(f, "fluid_neighbors_per_particle"))},
          {"wall_mean", number_or_null(figure_value(f, "wall_neighbors_per_particle"))},
          {"candidates_per_neighbor", number_or_null(figure_value(f, "candidates_per_neighbor"))},
          {"index_cells_per_support", number_or_null(figure_value(f, "index_cells_per_support"))},
          {"pairs_per_pass", number_or_null(figure_value(f, "neighbor_pairs_per_pass"))},
          {"passes_per_step", number_or_null(passes)},
          {"pairs_per_s", number_or_null(pairs_per_s)}};
}

nlohmann::ordered_json density_iteration_json(const BenchRun& run, const BenchRecord& record) {
  const std::optional<DensityIterationCost> cost = density_iteration_cost(run, record);
  if (!cost) return nullptr;
  return {{"density_iterations_per_step", cost->density_iterations_per_step},
          {"divergence_iterations_per_step", cost->divergence_iterations_per_step},
          {"ms_per_density_iteration", cost->ms_per_density_iteration},
          {"wcsph_force_pass_ms", number_or_null(cost->wcsph_force_pass_ms)},
          {"density_iteration_over_force_pass", number_or_null(cost->iteration_over_force_pass())}};
}

nlohmann::ordered_json run_json(const BenchRun& run, const BenchRecord& record) {
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  const std::array<StageShare, kStageCount> shares = stage_shares(run.stages);
  for (int k = 0; k < kStageCount; ++k) {
    const StageShare& stage = shares[k];
    stages[stage.name] = {{"ms_per_step", stage.ms_per_step}, {"share", stage.share}};
    // The memory floor where the solver models the stage's bytes: bytes per step, and the floor's time at
    // the measured bandwidth over the measured time.
    if (run.floor_bytes[k] > 0) {
      stages[stage.name]["floor_bytes_per_step"] = run.floor_bytes[k];
      stages[stage.name]["fraction_of_floor"] = run.memory_bandwidth > 0
                                                    ? nlohmann::ordered_json(run.floor_fraction(k))
                                                    : nlohmann::ordered_json(nullptr);
    }
  }
  nlohmann::ordered_json json = {
      {"particles", run.fluid_particles},
      {"boundary_particles", run.boundary_particles},
      {"backend", run.backend},
      {"solver", run.solver},
      {"steps", run.steps},
      {"ms_per_step", run.ms_per_step()},
      {"particle_steps_per_s", run.particle_steps_per_s()},
      {"stages", stages},
      {"bus_bytes_per_step", run.bus_bytes_per_step()},
      {"bus_gb_per_s", run.bus_gb_per_s()},
      {"speedup_over_cpu", run.speedup_over_cpu > 0 ? nlohmann::ordered_json(run.speedup_over_cpu)
                                                    : nlohmann::ordered_json(nullptr)},
      {"memory_bandwidth_gb_per_s", run.memory_bandwidth > 0
                                        ? nlohmann::ordered_json(run.memory_bandwidth * 1e-9)
                                        : nlohmann::ordered_json(nullptr)},
      {"step_fraction_of_floor", run.step_floor_fraction() > 0
                                     ? nlohmann::ordered_json(run.step_floor_fraction())
                                     : nlohmann::ordered_json(nullptr)},
      {"neighbors", neighbors_json(run)},
      {"density_solve", density_iteration_json(run, record)},
      {"parameters", parameters_json(run.parameters)}};
  if (!run.figures.empty()) {
    json["figures"] = figures_json(run.figures);
    json["rates"] = figures_json(rates_of(run.figures, run.steps, run.seconds));
  }
  if (run.frames) {
    const BenchFrames& f = *run.frames;
    json["frames"] = {{"width", f.width},
                      {"height", f.height},
                      {"frames", f.frames},
                      {"ms_per_frame", f.ms_per_frame},
                      {"fps", f.ms_per_frame > 0 ? 1e3 / f.ms_per_frame : 0.0},
                      {"draw_ms_per_frame", f.draw_ms_per_frame},
                      {"bus_bytes_per_frame", f.bus_bytes_per_frame},
                      {"renderer", f.renderer}};
  }
  return json;
}

}  // namespace

double BenchRun::step_floor_fraction() const {
  double bytes = 0.0;
  for (double b : floor_bytes) bytes += b;
  const double ms = ms_per_step();
  if (bytes <= 0 || memory_bandwidth <= 0 || ms <= 0) return 0.0;
  return 1e3 * bytes / memory_bandwidth / ms;
}

std::optional<DensityIterationCost> density_iteration_cost(const BenchRun& run, const BenchRecord& record) {
  if (run.solver != "dfsph") return std::nullopt;
  const std::optional<double> iterations = figure_value(run.figures, "density_iterations_mean");
  const std::optional<double> ms = figure_value(run.figures, "density_iterations_ms_mean");
  if (!iterations || !ms || *iterations <= 0) return std::nullopt;
  DensityIterationCost cost;
  cost.density_iterations_per_step = *iterations;
  cost.divergence_iterations_per_step = figure_value(run.figures, "divergence_iterations_mean").value_or(0.0);
  cost.ms_per_density_iteration = *ms / *iterations;
  // WCSPH's forces stage is its one force pass (and the solids' reaction sums, none without solids).
  for (const BenchRun& other : record.runs)
    if (other.solver == "wcsph" && other.backend == run.backend &&
        other.fluid_particles == run.fluid_particles && other.steps > 0)
      cost.wcsph_force_pass_ms = other.stages.ms[int(Stage::forces)] / double(other.steps);
  return cost;
}

void print_density_iteration_costs(std::ostream& out, const BenchRecord& record) {
  for (const BenchRun& run : record.runs) {
    const std::optional<DensityIterationCost> cost = density_iteration_cost(run, record);
    if (!cost) continue;
    out << "dfsph, " << with_thousands(std::int64_t(run.fluid_particles)) << " fluid particles, "
        << run.backend << ": " << significant(cost->density_iterations_per_step, 4) << " density and "
        << significant(cost->divergence_iterations_per_step, 4) << " divergence iterations a step, "
        << fixed(cost->ms_per_density_iteration, 3) << " ms a density iteration";
    if (const std::optional<double> ratio = cost->iteration_over_force_pass())
      out << " = " << fixed(*ratio, 2) << "x the wcsph force pass (" << fixed(*cost->wcsph_force_pass_ms, 3)
          << " ms)";
    else
      out << " (no wcsph run at this size to compare: --solver wcsph,dfsph)";
    out << '\n';
  }
}

void print_bench_header(std::ostream& out) {
  out << std::setw(kCountWidth) << "fluid" << std::setw(kCountWidth) << "boundary" << std::setw(kBackendWidth)
      << "backend" << std::setw(kStepWidth) << "ms/step" << std::setw(kRateWidth) << "particle-steps/s";
  for (const char* stage : kStageNames) out << std::setw(kStageWidth) << std::string(stage) + " ms (%)";
  out << std::setw(kBusWidth) << "bus B/step" << std::setw(kBusWidth) << "bus GB/s"
      << std::setw(kSpeedupWidth) << "vs cpu" << '\n';
}

void print_bench_row(std::ostream& out, const BenchRun& run) {
  out << std::setw(kCountWidth) << with_thousands(std::int64_t(run.fluid_particles)) << std::setw(kCountWidth)
      << with_thousands(std::int64_t(run.boundary_particles)) << std::setw(kBackendWidth) << run.backend
      << std::setw(kStepWidth) << fixed(run.ms_per_step(), 3) << std::setw(kRateWidth)
      << engineering(run.particle_steps_per_s());
  for (const StageShare& stage : stage_shares(run.stages)) {
    out << std::setw(kStageWidth)
        << fixed(stage.ms_per_step, 3) + " (" + fixed(100.0 * stage.share, 1) + "%)";
  }
  out << std::setw(kBusWidth) << with_thousands(std::int64_t(run.bus_bytes_per_step() + 0.5))
      << std::setw(kBusWidth) << (run.bus_ms > 0 ? fixed(run.bus_gb_per_s(), 2) : std::string("-"))
      << std::setw(kSpeedupWidth)
      << (run.speedup_over_cpu > 0 ? fixed(run.speedup_over_cpu, 2) + "x" : std::string("-"));
  out << '\n';
  // Iterative solvers: their per-step means over the timed steps (iterations, error reached), one line.
  std::string means;
  for (const NamedValue& f : run.figures) {
    const std::string& name = f.name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "_mean") == 0)
      means += "  " + name.substr(0, name.size() - 5) + " " + significant(std::get<double>(f.value), 4);
  }
  if (!means.empty())
    out << std::setw(kCountWidth) << ""
        << "  per step:" << means << '\n';
  const std::vector<NamedValue> rates = rates_of(run.figures, run.steps, run.seconds);
  if (!rates.empty()) {
    out << std::setw(kCountWidth) << ""
        << "  rates:";
    for (const NamedValue& rate : rates)
      out << "  " << rate.name << ' ' << engineering(std::get<double>(rate.value));
    out << '\n';
  }
  // Steps as CUDA graphs (--cuda-graphs on): counted from the simulation's start, warm-up included.
  if (const std::optional<double> captures = figure_value(run.figures, "cuda_graph_captures")) {
    out << std::setw(kCountWidth) << ""
        << "  CUDA graphs, warm-up included: captured " << fixed(*captures, 0) << ", replayed "
        << fixed(figure_value(run.figures, "cuda_graph_replays").value_or(0.0), 0)
        << ", steps run without a graph "
        << fixed(figure_value(run.figures, "steps_without_graph").value_or(0.0), 0) << '\n';
  }
  if (const std::optional<double> mean = figure_value(run.figures, "neighbors_per_particle")) {
    out << std::setw(kCountWidth) << ""
        << "  neighbors: " << fixed(*mean, 1) << " a particle ("
        << fixed(figure_value(run.figures, "fluid_neighbors_per_particle").value_or(0.0), 1) << " fluid + "
        << fixed(figure_value(run.figures, "wall_neighbors_per_particle").value_or(0.0), 1) << " wall), "
        << fixed(figure_value(run.figures, "candidates_per_neighbor").value_or(0.0), 2)
        << " candidates tested per neighbor found (index cells per support: "
        << fixed(figure_value(run.figures, "index_cells_per_support").value_or(1.0), 0) << ")";
    // With per-step lists (the GPU's DFSPH and PBF) the cell search runs once a step, to build them.
    if (const std::optional<double> listed = figure_value(run.figures, "neighbor_list_entries"))
      out << "; the cell search builds per-step lists once a step ("
          << fixed(*listed / run.fluid_particles, 1) << " entries a particle) and the other passes read them";
    out << '\n';
  }
  if (run.memory_bandwidth > 0 && run.step_floor_fraction() > 0) {
    out << std::setw(kCountWidth) << ""
        << "  memory floor at " << fixed(run.memory_bandwidth * 1e-9, 0) << " GB/s (measured copy):";
    for (int k = 0; k < kStageCount; ++k)
      if (run.floor_bytes[k] > 0)
        out << "  " << kStageNames[k] << ' ' << fixed(100.0 * run.floor_fraction(k), 1) << '%';
    out << "  step " << fixed(100.0 * run.step_floor_fraction(), 1) << "%\n";
  }
  out << std::flush;
}

nlohmann::ordered_json bench_json(const BenchRecord& record) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const BenchRun& run : record.runs) runs.push_back(run_json(run, record));
  return {{"surge", {{"version", SURGE_VERSION}, {"commit", SURGE_GIT_COMMIT}}},
          {"date", utc_now_iso8601()},
          {"command_line", record.command_line},
          {"machine", machine_json()},
          {"gpu", gpu_json()},
          {"scene",
           {{"path", std::filesystem::absolute(record.scene_path).lexically_normal().string()},
            {"name", record.scene_name}}},
          {"warmup_steps", record.warmup_steps},
          {"runs", runs}};
}

}  // namespace surge::app
