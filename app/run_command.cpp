#include "app/run_command.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <optional>

#include "app/backend_choice.h"
#include "app/cli_checks.h"
#include "app/exit_codes.h"
#include "app/frame_writer.h"
#include "app/interrupts.h"
#include "app/progress.h"
#include "app/ranks_command.h"
#include "app/run_checkpoints.h"
#include "app/run_summary.h"
#include "sim/distributed/distributed_fluid.h"
#include "sim/io/gauge_recorder.h"
#include "sim/io/surface_vdb.h"
#include "sim/io/time_schedule.h"
#include "sim/scene/scene.h"
#if SURGE_HAVE_RENDER
#include "app/graphics/offscreen_frames.h"
#endif

namespace surge::app {

FrameCadence frame_cadence(const RunOptions& options, int scene_every, float scene_every_time) {
  if (options.every >= 0) return {.every = options.every};
  if (options.every_time_s > 0) return {.every_time_s = options.every_time_s};
  return {.every = scene_every, .every_time_s = as_written(scene_every_time)};
}

namespace {

// The run as the scene and the command line together decide it; the command line wins.
struct RunPlan {
  RunEnd end;
  std::filesystem::path out_dir;
  std::vector<ExportFormat> formats;
  int every = 0;
  double every_time_s = 0;  // frames every T simulated seconds instead of every K steps
};

RunPlan plan_run(const RunOptions& options, const Scene& scene) {
  RunPlan plan;
  if (options.steps > 0) {
    plan.end.max_steps = options.steps;
  } else {
    plan.end.end_time_s = options.time_s > 0 ? options.time_s : double(scene.end_time);
  }
  // The loader and CLI11 have already checked the names (and that vdb is built), so parsing cannot fail here.
  for (const std::string& name : options.formats.empty() ? scene.formats : options.formats) {
    plan.formats.push_back(parse_export_format(name));
  }
  const FrameCadence cadence = frame_cadence(options, scene.every, scene.every_time);
  plan.every = cadence.every;
  plan.every_time_s = cadence.every_time_s;
  plan.out_dir = options.out_dir.empty() ? scene.output_dir : options.out_dir;
  // --export on a scene without output.every would silently write nothing.
  if (!options.formats.empty() && plan.every == 0 && plan.every_time_s <= 0) {
    std::cerr << "note: --export without --every or --every-time, and the scene gives neither output.every "
                 "nor output.every_time: no frames will be written\n";
  }
  return plan;
}

void report_instability(const StepStatus& status, const FrameWriter& frames) {
  std::cerr << "unstable: " << status.diagnosis() << '\n';
  if (frames.frames_written() > 0) {
    std::cerr << "the " << frames.frames_written()
              << " frames written before that are kept: " << frames.location() << '\n';
  } else {
    std::cerr << "no frames were written\n";
  }
}

}  // namespace

CLI::App* add_run_command(CLI::App& parent, RunOptions& options) {
  CLI::App* run = parent.add_subcommand("run", "Run a scene headless: progress, exported frames, a summary");
  run->add_option("scene", options.scene_path, "Scene file (TOML), e.g. scenes/dam_break.toml")
      ->required()
      ->type_name("SCENE.toml");
  CLI::Option* backend = run->add_option("--backend", options.backend,
                                         "Where to step: cpu, gpu, or auto (the GPU when there is one)")
                             ->check(CLI::IsMember(kBackendNames))
                             ->capture_default_str();
  run->add_option(
         "--mode", options.mode,
         "Execution mode: cpu, hybrid (CPU index, GPU physics), hybrid-overlap (the same, overlapped) "
         "or gpu; --mode cpu and gpu are --backend cpu and gpu (docs/lessons/)")
      ->check(CLI::IsMember(mode_names()))
      ->excludes(backend);
  run->add_option(
         "--skin", options.skin,
         "hybrid-overlap: index skin as a fraction of the kernel support (cells of 1 + SKIN supports)")
      ->check(finite_in_range(0.01, 2.0))
      ->capture_default_str();
  run->add_option("--solver", options.solver, "Replace the scene's solver: wcsph, dfsph or pbf")
      ->check(CLI::IsMember(kSolverNames));
  run->add_option("--density", options.density,
                  "WCSPH: replace the scene's density, summation (two neighbour passes a step) or continuity "
                  "(the continuity equation with delta-SPH, one pass)")
      ->check(CLI::IsMember(kDensityNames));
  CLI::Option* steps =
      run->add_option("--steps", options.steps, "Stop after N steps (instead of the scene's end time)")
          ->transform(whole_at_least(1));
  run->add_option("--time", options.time_s, "Stop at simulated time T [s] (instead of the scene's end time)")
      ->check(finite_positive(" [s]"))
      ->excludes(steps);
  run->add_option("--particles", options.particles,
                  "Target fluid particle count, replacing the scene's resolution (at most 2e9)")
      ->transform(particle_count());
  run->add_option("--out", options.out_dir, "Directory for exported frames (default: the scene's output.dir)")
      ->type_name("DIR");
  run->add_option("--export", options.formats,
                  "Frame formats, comma-separated: vtk, ply (particles); surface, obj (the fluid's surface "
                  "mesh as binary PLY or OBJ); vdb (the surface as an OpenVDB level set); docs/surfaces.md "
                  "(default: the scene's)")
      ->delimiter(',')
      ->check(CLI::IsMember({"vtk", "ply", "surface", "obj", "vdb"}))
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            return name == "vdb" && !vdb_export_available() ? std::string("vdb: ") + kNoOpenVdb : "";
          },
          "", "OpenVDB"));
  CLI::Option* every = run->add_option("--every", options.every,
                                       "Export a frame every K steps (default: the scene's output.every)")
                           ->transform(whole_at_least(0));
  run->add_option(
         "--every-time", options.every_time_s,
         "Export a frame every T simulated seconds: at the first step at or after each multiple of T "
         "(default: the scene's output.every_time)")
      ->check(finite_positive(" [s]"))
      ->excludes(every);
  CLI::Option* export_sync = run->add_flag(
      "--export-sync", options.export_sync,
      "Write frames on the stepping thread, which waits meanwhile (default: a writer thread writes "
      "while the simulation steps on; docs/lessons/6-trajectories.md)");
  run->add_option("--export-queue", options.export_queue,
                  "Overlapped export: frames snapshotted but not yet written before stepping waits")
      ->check(CLI::Range(std::size_t{1}, OverlappedExporter::kMaxQueueDepth))
      ->capture_default_str()
      ->excludes(export_sync);
  run->add_flag("--quiet", options.quiet, "No progress output");
  CLI::Option* checkpoint_every =
      run->add_option("--checkpoint-every", options.checkpoint_every,
                      "Write a checkpoint every K steps (and at the end and on Ctrl-C), replacing the last")
          ->transform(whole_at_least(1));
  run->add_option("--checkpoint-every-time", options.checkpoint_every_time_s,
                  "Write a checkpoint every T simulated seconds (and at the end and on Ctrl-C)")
      ->check(finite_positive(" [s]"))
      ->excludes(checkpoint_every);
  run->add_option("--checkpoint", options.checkpoint_path,
                  "Checkpoint file (default: OUT/NAME.checkpoint); alone, one at the end and on Ctrl-C")
      ->type_name("FILE");
  run->add_option("--resume", options.resume_path,
                  "Continue the run a checkpoint holds (the same scene, solver, --particles and backend), "
                  "bit for bit; frames, gauges and checkpoints go on where it left them")
      ->type_name("FILE");
  run->add_option("--render", options.render.frames_dir,
                  "Render PNG frames offscreen (EGL, no display needed) into DIR, one every --every steps")
      ->type_name("DIR");
  run->add_option("--video", options.render.video_file,
                  "Render offscreen and pipe the frames to ffmpeg, writing an MP4 (needs ffmpeg on PATH)")
      ->type_name("FILE.mp4");
  add_render_look_options(*run, options.render, true);
  return run;
}

int run_scene(const RunOptions& options) {
  // Under mpirun with several ranks: the scene split into slabs over them (app/ranks_command.h).
  if (launched_on_several_ranks()) return run_scene_on_ranks(options);
  // From here a Ctrl-C ends the run cleanly after the step in flight (app/interrupts.h); during setup it
  // takes effect before the first step.
  install_interrupt_handlers();
  // Setup is CPU work (reading the scene, placing particles, the wall particles' volumes) plus the first
  // upload to the GPU; reported beside the stepping time.
  const auto setup_start = std::chrono::steady_clock::now();
  Scene scene = load_scene(options.scene_path);
  apply_solver_override(scene, options.solver);
  apply_density_override(scene, options.density);
  const RunPlan plan = plan_run(options, scene);
  RenderOptions render_options = options.render;
  render_options.scene_look = scene.render;
  if (render_options.style == "surface" && !is_fluid_solver(scene.solver)) {
    throw InputError("--style surface draws a liquid; this scene's solver is \"" +
                     std::string(solver_name(scene.solver)) + "\" (its particles are drawn as spheres)");
  }
  if (render_options.writes_frames()) {
    render_options.validate();
    if (!renderer_built()) throw InputError(kNoRendererMessage);
  }
  const SimulationOptions simulation_options{.particles_override = options.particles,
                                             .skin_ratio = options.skin};
  BackendChoice backend =
      options.mode.empty() ? choose_backend(parse_backend_request(options.backend), scene, simulation_options)
                           : choose_mode(*parse_mode(options.mode), scene, simulation_options);
  Simulation& simulation = *backend.simulation;

  // Checkpoints and resuming (app/run_checkpoints.h): the checkpoint is checked against this run and its
  // state loaded before anything is written.
  CheckpointPlan checkpoint_plan{.path = options.checkpoint_path,
                                 .every_steps = options.checkpoint_every,
                                 .every_time_s = options.checkpoint_every_time_s};
  const bool checkpoints_asked = checkpoint_plan.enabled() || !options.checkpoint_path.empty();
  if (checkpoint_plan.path.empty()) checkpoint_plan.path = plan.out_dir / (scene.name + ".checkpoint");
  const bool resuming = !options.resume_path.empty();
  if ((checkpoints_asked || resuming) && backend.mode == ExecutionMode::hybrid_overlap) {
    throw InputError(
        "--mode hybrid-overlap keeps no checkpoints: its index pipeline is state a checkpoint does not hold "
        "(use --mode hybrid, gpu or cpu)");
  }
  if (resuming && render_options.writes_frames()) {
    throw InputError(
        "--resume with --render or --video: a resumed run does not continue rendered frames yet; "
        "render the resumed run's exported frames, or render a run from its start");
  }
  const Checkpoint identity = checkpoint_identity(scene, options.particles, options.density,
                                                  mode_name(backend.mode), backend.description);
  std::optional<Checkpoint> resumed;
  if (resuming) {
    resumed = read_checkpoint_for(options.resume_path, identity);
    // A checkpoint of a run on ranks holds one process's state too; its frames are the ranks' .pvtp
    // series, which this run does not continue: its own series starts anew.
    if (remove_rank_layout(resumed->state)) {
      resumed->frames.frames_written = 0;
      resumed->frames.series.clear();
      std::cout << "note: " << options.resume_path.string()
                << " was written on several ranks: this run's frames start a new series\n";
    }
    try {
      simulation.load_state(resumed->state);
    } catch (const StateMismatch& error) {
      throw InputError("--resume " + options.resume_path.string() + ": " + error.what());
    }
    resumed->state = {};  // loaded: its memory goes
    expect_same_gauges(options.resume_path, *resumed, scene);
  }
  RunCheckpoints checkpoints(checkpoint_plan, identity, resumed ? &*resumed : nullptr);
  const double setup_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
  double upload_ms = 0.0;
  for (const auto& [key, entry] : simulation.ledger().entries()) {
    if (key.first == CopyDirection::host_to_device) upload_ms += entry.ms;
  }
  std::cout << backend_line(backend) << '\n' << std::flush;
  const ExportPipeline pipeline{.overlapped = !options.export_sync, .queue_depth = options.export_queue};

#if SURGE_HAVE_RENDER
  // Rendered frames follow --every, else the scene's output.every, else one per 100 steps. Set up before
  // the exporter, so that a renderer that cannot start (no EGL) leaves no output directory behind.
  std::optional<RenderedFrames> rendered;
  if (render_options.writes_frames()) {
    const int every = options.every >= 0 ? options.every : (scene.every > 0 ? scene.every : 100);
    rendered.emplace(simulation, scene, render_options, every, backend.gpu ? backend.gpu->device : -1,
                     std::cerr);
    std::cout << "rendering: " << rendered->description() << '\n' << std::flush;
  }
  FrameWriter frames(simulation, plan.out_dir, scene.name, plan.formats, plan.every, pipeline,
                     plan.every_time_s, resumed ? &resumed->frames : nullptr);
  auto write_frames = [&](const StepStatus& status) {
    frames.write_if_due(status);
    if (rendered) rendered->write_if_due(status);
  };
#else
  FrameWriter frames(simulation, plan.out_dir, scene.name, plan.formats, plan.every, pipeline,
                     plan.every_time_s, resumed ? &resumed->frames : nullptr);
  auto write_frames = [&](const StepStatus& status) { frames.write_if_due(status); };
#endif
  // Gauges (sim/io/gauge_recorder.h): a CSV in the output directory unless [gauges] csv says otherwise.
  std::optional<GaugeRecorder> gauges;
  if (!scene.gauges.empty()) {
    const std::filesystem::path csv = scene.gauge_output.csv.empty() ? "gauges.csv" : scene.gauge_output.csv;
    gauges.emplace(simulation, scene.gauges, scene.gauge_output, plan.out_dir / csv,
                   resumed ? resumed->time_s : 0.0, resumed ? &resumed->gauges : nullptr);
  }
  // Where the run's files go, before the first step: a user should not have to wait for the summary.
  std::cout << "output: " << frames.plan() << '\n';
  if (gauges) std::cout << "gauges: " << gauges->path().string() << '\n';
  if (checkpoints_asked) std::cout << "checkpoints: " << checkpoints.plan() << '\n';
  if (resumed) {
    std::cout << "resumed: " << options.resume_path.string() << " at step " << resumed->step
              << ", t = " << resumed->time_s << (scene.solver == SolverKind::nbody ? "" : " s") << '\n';
  }
  std::cout << std::flush;
  ProgressReporter progress(std::cerr, progress_style_for_stderr(options.quiet), plan.end,
                            simulation.fluid_count(), resumed ? resumed->step : 0,
                            resumed ? resumed->time_s : 0.0);

  const auto start = std::chrono::steady_clock::now();
  StepStatus status = simulation.status();
  const long first_step = status.step;
  // A resumed run's frame at its checkpoint step was written before the checkpoint was.
  if (!resumed) write_frames(status);
  bool emitter_full_said = false;  // said once
  int interrupted_by = 0;
  while (!plan.end.reached(status.step, status.time_s)) {
    // Between steps: the step before and its frame are complete, and the run ends as a finished one does.
    if ((interrupted_by = interrupt_signal()) != 0) break;
    simulation.step();
    status = simulation.status();
    if (status.instability != Instability::none) {
      progress.finish(status.step, status.time_s);
      frames.finish();  // the frames before the instability are complete on disk before we say so
      if (gauges) gauges->finish();  // so are the samples before it
      report_instability(status, frames);
      return kExitUnstable;
    }
    if (status.emitter_full && !emitter_full_said) {
      emitter_full_said = true;
      std::cout << "emitter stopped at step " << status.step << ", t = " << status.time_s
                << " s: " << simulation.fluid_count() << " of " << simulation.capacity()
                << " fluid particles, its next layer does not fit (raise [[emitter]] max_particles)\n"
                << std::flush;
    }
    write_frames(status);
    if (gauges) gauges->sample_if_due(status);
    if (checkpoints.due(status)) checkpoints.write(simulation, status, frames, gauges ? &*gauges : nullptr);
    progress.update(status.step, status.time_s);
  }
  // At the end, finished or interrupted, the run can be continued from here (a later --time, after Ctrl-C).
  if (checkpoints_asked) checkpoints.write(simulation, status, frames, gauges ? &*gauges : nullptr);
  // The run is over when its files are: the wall time includes waiting for the writer to drain.
  frames.finish();
  if (gauges) gauges->finish();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish(status.step, status.time_s);

  // Bus bytes of the run itself, before the figures' own readback.
  const std::size_t bus_bytes = simulation.ledger().total_bytes();
  std::size_t export_bus_bytes = 0;
  for (const auto& [key, entry] : simulation.ledger().entries()) {
    if (key == std::pair{CopyDirection::device_to_host, std::string("export frame")})
      export_bus_bytes += entry.bytes;
  }
  print_run_summary(std::cout,
                    {.scene_name = scene.name,
                     .interrupted_by = interrupted_by != 0 ? signal_name(interrupted_by) : "",
                     .backend = backend.description,
                     .particle_kind = scene.solver == SolverKind::dem     ? "grains"
                                      : scene.solver == SolverKind::nbody ? "bodies"
                                                                          : "fluid",
                     .fluid_particles = simulation.fluid_count(),
                     .boundary_particles = simulation.boundary_count(),
                     .steps = status.step,
                     .first_step = first_step,
                     .simulated_s = status.time_s,
                     .time_unit = scene.solver == SolverKind::nbody ? "time units (G = 1)" : "s",
                     .setup_s = setup_s,
                     .upload_s = upload_ms / 1e3,
                     .wall_s = wall_s,
                     .export_s = frames.seconds_spent(),
                     .stages = simulation.stage_times(),
                     .frames_written = frames.frames_written(),
                     .frames_location = frames.location(),
                     .stale_files_removed = frames.stale_files_removed(),
                     .export_overlapped = frames.pipeline().overlapped,
                     .export_queue_depth = frames.pipeline().queue_depth,
                     .export_times = frames.times(),
                     .export_bus_bytes = export_bus_bytes,
                     .bus_bytes = bus_bytes,
                     .figures = simulation.step_figures(),
                     .checkpoint_path = checkpoints.written() > 0 ? checkpoints.path().string() : "",
                     .checkpoint_step = checkpoints.last_step(),
                     .checkpoints_written = checkpoints.written()});
  if (gauges) {
    std::cout << "gauges: " << gauges->rows_written() << " samples of " << scene.gauges.size()
              << " gauges every " << scene.gauge_output.every_time << " s: " << gauges->path().string()
              << '\n';
  }
#if SURGE_HAVE_RENDER
  if (rendered) {
    rendered->finish();
    std::cout << "rendered " << rendered->frames_written() << " frames at " << render_options.width << "x"
              << render_options.height << " in " << rendered->seconds_spent() << " s";
    if (!render_options.frames_dir.empty()) std::cout << ": " << render_options.frames_dir.string() << "/";
    if (!render_options.video_file.empty()) std::cout << "; video: " << render_options.video_file.string();
    std::cout << '\n';
  }
#endif
  if (interrupted_by != 0 && checkpoints.written() > 0) {
    std::cout << "to continue: the same command with --resume " << checkpoints.path().string() << '\n';
  }
  return interrupted_by != 0 ? interrupted_exit_code(interrupted_by) : kExitSuccess;
}

}  // namespace surge::app
