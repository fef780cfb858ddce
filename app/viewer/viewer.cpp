// The `surge view` window.
//
// Index:
//   [Session]   a running simulation and what feeds it to GL; rebuilt on restart
//   [Input]     camera (mouse), keyboard shortcuts
//   [Panels]    scene and parameters, statistics and timings, view, help overlay
//   [Capture]   screenshots and recording (numbered PNGs, MP4 through ffmpeg)
//   [Loop]      one frame: step, feed, draw, capture, panels
#include "app/viewer/viewer.h"

#include <glad/gl.h>
// GLFW after glad, and without its own GL header.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "app/backend_choice.h"
#include "app/exit_codes.h"
#include "app/graphics/live_session.h"
#include "app/graphics/particle_feed.h"
#include "app/graphics/render_defaults.h"
#include "app/graphics/video_encoder.h"
#include "app/viewer/lessons_panel.h"
#include "app/viewer/live_parameters_panel.h"
#include "render/camera.h"
#include "render/particle_renderer.h"
#include "render/png_writer.h"
#include "sim/scene/scene.h"
#include "sim/sph/sph_setup.h"

namespace surge::app {
namespace {

using Clock = std::chrono::steady_clock;

// ---- [Session]

std::vector<std::filesystem::path> scenes_beside(const std::filesystem::path& scene) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  const auto dir = scene.has_parent_path() ? scene.parent_path() : std::filesystem::path(".");
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// ---- [Capture]

std::vector<std::uint8_t> read_window(int width, int height) {
  const std::size_t row = std::size_t(width) * 4;
  std::vector<std::uint8_t> bottom_up(row * std::size_t(height)), top_down(bottom_up.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[std::size_t(y) * row], &bottom_up[std::size_t(height - 1 - y) * row], row);
  }
  for (std::size_t k = 3; k < top_down.size(); k += 4) top_down[k] = 255;  // the window may have alpha
  return top_down;
}

struct Recording {
  std::filesystem::path directory;
  int frames = 0;
  std::optional<VideoEncoder> video;
  int width = 0, height = 0;
};

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", std::localtime(&now));
  return text;
}

// "STEM.png", or "STEM-2.png", "STEM-3.png"... when taken: two screenshots in one second keep both.
std::filesystem::path unused_name(const std::string& stem, const std::string& extension) {
  std::filesystem::path name = stem + extension;
  for (int k = 2; std::filesystem::exists(name); ++k) name = stem + "-" + std::to_string(k) + extension;
  return name;
}

// ---- [Panels]

constexpr const char* kHelpText =
    "Mouse: left drag orbit, right or middle drag pan, wheel zoom\n"
    "Shift or Ctrl + left drag: stir the fluid (a hand that drags it along)\n"
    "Space        pause / run\n"
    "N            one step (while paused)\n"
    "Backspace    restart the scene\n"
    "+ / -        more / fewer steps per frame (time scale)\n"
    "1 2 3 4      camera: perspective, front, side, top\n"
    "C            reset the camera\n"
    "B            show / hide wall particles\n"
    "E            emitter on / off (scenes with an [[emitter]])\n"
    "P            screenshot (PNG in the working directory)\n"
    "R            start / stop recording\n"
    "F11          fullscreen\n"
    "Tab          show / hide the panels\n"
    "H or F1      this help\n"
    "Esc          quit";

struct TimingHistory {
  static constexpr int kLength = 240;
  std::array<float, kLength> step_ms{};
  int next = 0;
  void add(float ms) {
    step_ms[std::size_t(next)] = ms;
    next = (next + 1) % kLength;
  }
};

// The keys pressed since the last frame, in order (see the key callback in run_viewer).
struct KeyPresses {
  std::vector<int> keys;
};

void glfw_error(int code, const char* text) {
  std::cerr << "GLFW error " << code << ": " << text << '\n';
}

}  // namespace

int run_viewer(const ViewOptions& options) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::cerr << "surge view: cannot open the display; on a server use `surge run SCENE --render frames/`\n";
    return kExitBadInput;
  }
  // 4.6 where the driver has it, else 4.5 (Mesa llvmpipe): the renderer needs 4.5 core.
  GLFWwindow* window = nullptr;
  glfwSetErrorCallback(nullptr);  // a refused 4.6 request is expected; report only the final failure
  for (int minor : {6, 5}) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, minor);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window = glfwCreateWindow(options.look.width, options.look.height, "Surge", nullptr, nullptr);
    if (window) break;
  }
  glfwSetErrorCallback(glfw_error);
  if (!window) {
    std::cerr << "surge view: this display has no OpenGL 4.5 core context; try `surge run SCENE --render "
                 "frames/` (offscreen)\n";
    glfwTerminate();
    return kExitRuntimeError;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(options.frames > 0 ? 0 : 1);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::cerr << "surge view: cannot load OpenGL functions\n";
    return kExitRuntimeError;
  }
  std::cout << "OpenGL " << glGetString(GL_VERSION) << ", " << glGetString(GL_RENDERER) << '\n';

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini littered in the working directory
  ImGui::StyleColorsDark();
  // Key presses are queued here as GLFW delivers them, then read once per frame: ImGui 1.86 keeps only
  // whether a key is down at the start of a frame, so a tap shorter than one frame (common when a large
  // scene runs at a few frames per second) would be lost. Installed first, so ImGui's callback chains to it.
  KeyPresses key_presses;
  glfwSetWindowUserPointer(window, &key_presses);
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int, int action, int) {
    if (action == GLFW_PRESS) static_cast<KeyPresses*>(glfwGetWindowUserPointer(w))->keys.push_back(key);
  });
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 450 core");

  int exit_code = kExitSuccess;
  {
    render::ParticleRenderer renderer;
    render::RenderSettings settings;
    settings.color_by = *render::parse_color_by(options.look.color_by);
    settings.show_boundary = options.look.show_boundary;

    Scene scene = load_scene(options.scene_path);
    const std::optional<ExecutionMode> first_mode =
        options.mode.empty() ? std::nullopt : parse_mode(options.mode);
    auto session = std::make_unique<LiveSession>(scene, options.backend, first_mode, options.particles,
                                                 renderer, settings.show_boundary, std::cout);
    LessonsPanel lessons;
    const render::CameraPreset first_preset = *render::parse_camera_preset(options.look.camera);
    auto reset_camera = [&](render::CameraPreset preset) {
      return render::OrbitCamera::framing(session->look().domain_min, session->look().domain_max, preset);
    };
    render::OrbitCamera camera = reset_camera(first_preset);
    auto reset_colors = [&] {
      settings.particle_radius = session->look().particle_radius;
      std::tie(settings.color_min, settings.color_max) =
          default_color_range(settings.color_by, session->look());
    };
    reset_colors();

    std::vector<std::filesystem::path> scene_files = scenes_beside(options.scene_path);
    int particles_edit = int(session->simulation().fluid_count());  // applies on restart
    LiveParametersPanel live;  // the solver's other parameters, applied at once and kept over restarts
    for (const auto& [name, value] : options.live_edits) {
      if (std::string refused = live.set(session->simulation(), name, value); !refused.empty()) {
        std::cerr << "surge view: --set " << name << ": " << refused << '\n';
        exit_code = kExitBadInput;
        glfwSetWindowShouldClose(window, GLFW_TRUE);
      } else {
        std::cout << "live: " << name << " set before the first step\n";
      }
    }
    bool paused = false, single_step = false, show_panels = true, show_help = false;
    bool fullscreen = false;
    int windowed_pos[2] = {0, 0}, windowed_size[2] = {options.look.width, options.look.height};
    int steps_per_frame = 1;
    std::optional<Recording> recording;
    std::string last_message;
    TimingHistory history;
    StageTimes last_stages;
    double fps = 0.0, particle_steps_per_s = 0.0;
    long frame = 0;
    auto last_frame = Clock::now();
    std::size_t ledger_bytes_last = 0;
    double bus_bytes_per_frame = 0.0;
    bool stirring = false;
    Vec3f last_hand_point{};
    auto default_hand_radius = [&] {
      return 0.1f * std::sqrt(length_squared(session->look().domain_max - session->look().domain_min));
    };
    float hand_radius = default_hand_radius();

    long particles_now = options.particles;
    auto restart = [&](const Scene& next, long particles) {
      particles_now = particles;
      recording.reset();
      // A restart keeps the mode, except a hybrid one for a solver that has none (then the gpu mode).
      ExecutionMode mode = session->mode();
      if (!why_solver_lacks_mode(next.solver, mode).empty()) mode = ExecutionMode::gpu;
      session.reset();  // the old simulation's GPU memory goes before the new one is allocated
      session = std::make_unique<LiveSession>(next, options.backend, mode, particles, renderer,
                                              settings.show_boundary, std::cout);
      scene = next;
      particles_edit = int(session->simulation().fluid_count());
      if (std::string refused = live.reapply(session->simulation()); !refused.empty()) last_message = refused;
      reset_colors();
      ledger_bytes_last = 0;
      hand_radius = default_hand_radius();
      stirring = false;
    };
    auto toggle_fullscreen = [&] {
      fullscreen = !fullscreen;
      if (fullscreen) {
        glfwGetWindowPos(window, &windowed_pos[0], &windowed_pos[1]);
        glfwGetWindowSize(window, &windowed_size[0], &windowed_size[1]);
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
        if (mode) glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
      } else {
        glfwSetWindowMonitor(window, nullptr, windowed_pos[0], windowed_pos[1], windowed_size[0],
                             windowed_size[1], 0);
      }
    };
    auto toggle_emitter = [&](Simulation& simulation) {
      if (!simulation.has_emitter()) {
        last_message = "this scene has no [[emitter]] (docs/scenes.md)";
        return;
      }
      simulation.set_emitter_enabled(!simulation.emitter_enabled());
      last_message = simulation.emitter_enabled() ? "emitter on" : "emitter off";
    };
    // The Lessons panel's live switch: the same particles, time and step, continued in `next`.
    auto switch_mode = [&](ExecutionMode next) {
      last_message = session->switch_mode(next, renderer, std::cout);
      ledger_bytes_last = 0;
      stirring = false;
      if (const std::string refused = live.reapply(session->simulation()); !refused.empty())
        last_message += "; " + refused;
      std::cout << last_message << '\n';
    };
    if (options.fullscreen) toggle_fullscreen();
    auto screenshot = [&](const std::filesystem::path& file, int width, int height) {
      render::write_png(file, width, height, read_window(width, height));
      char where[96];
      std::snprintf(where, sizeof where, " (step %ld, t = %.6f s)", session->simulation().status().step,
                    session->simulation().status().time_s);
      last_message = "saved " + file.string() + where;
      std::cout << last_message << '\n';
    };

    // ---- [Loop]
    while (!glfwWindowShouldClose(window)) {
      glfwPollEvents();
      int width = 0, height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      if (width == 0 || height == 0) {  // minimised
        glfwWaitEvents();
        continue;
      }
      Simulation& simulation = session->simulation();

      // Step, then feed GL. status() is a small readback that shows in the ledger: twice a second, or when
      // paused.
      const bool stepped = !paused || single_step;
      const int steps = !stepped ? 0 : single_step ? 1 : steps_per_frame;
      single_step = false;
      const FrameFigures figures =
          session->frame(steps, stepped && (frame % 30 == 0 || paused), settings.color_by);
      if (stepped) particle_steps_per_s = double(simulation.fluid_count()) * steps * fps;
      if (session->status().instability != Instability::none && !paused) {
        last_message = "unstable: " + session->status().diagnosis() + " (paused; Backspace restarts)";
        std::cerr << last_message << '\n';
        paused = true;
      }
      const StageTimes& stages = figures.stages;
      if (stages.steps > 0) {
        last_stages = stages;
        lessons.record(session->mode(), stages, figures.step_bytes);
        history.add(float(stages.total_ms() / double(stages.steps)));
      }

      // Draw the particles, then capture before the panels cover them.
      glBindFramebuffer(GL_FRAMEBUFFER, 0);
      renderer.draw(camera, width, height, settings);
      ++frame;
      if (recording && width == recording->width && height == recording->height) {
        const auto image = read_window(width, height);
        char name[32];
        std::snprintf(name, sizeof name, "frame_%06d.png", recording->frames++);
        render::write_png(recording->directory / name, width, height, image);
        if (recording->video) recording->video->add_frame(image);
      }

      const auto now = Clock::now();
      const double frame_s = std::chrono::duration<double>(now - last_frame).count();
      last_frame = now;
      fps = 0.9 * fps + 0.1 * (frame_s > 0 ? 1.0 / frame_s : 0.0);
      const std::size_t ledger_bytes = simulation.ledger().total_bytes();
      bus_bytes_per_frame =
          0.9 * bus_bytes_per_frame + 0.1 * double(ledger_bytes - std::min(ledger_bytes, ledger_bytes_last));
      ledger_bytes_last = ledger_bytes;

      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();

      // ---- [Input]
      // Shift or Ctrl + left drag: the stirring hand, on the plane through the camera target, moving as
      // fast as the pointer (at most the scene's largest expected speed).
      const bool stirring_now = !io.WantCaptureMouse && ImGui::IsMouseDown(ImGuiMouseButton_Left) &&
                                (io.KeyShift || io.KeyCtrl) && io.DisplaySize.x > 0 && io.DisplaySize.y > 0;
      if (stirring_now) {
        const float ndc_x = 2.0f * io.MousePos.x / io.DisplaySize.x - 1.0f;
        const float ndc_y = 1.0f - 2.0f * io.MousePos.y / io.DisplaySize.y;
        const Vec3f point = camera.point_on_target_plane(ndc_x, ndc_y, io.DisplaySize.x / io.DisplaySize.y);
        Stirring hand;
        hand.center = point;
        hand.radius = hand_radius;
        if (stirring && frame_s > 0) {
          hand.velocity = (1.0f / float(frame_s)) * (point - last_hand_point);
          const float speed = std::sqrt(length_squared(hand.velocity)),
                      limit = session->look().speed_of_sound / 10.0f;
          if (speed > limit) hand.velocity = (limit / speed) * hand.velocity;
        }
        last_hand_point = point;
        stirring = true;
        if (!simulation.set_stirring(hand)) last_message = "this solver has no stirring hand";
      } else if (stirring) {
        stirring = false;
        simulation.set_stirring(Stirring{});
      }
      if (!io.WantCaptureMouse && !stirring_now) {
        const ImVec2 delta = io.MouseDelta;
        if (ImGui::IsMouseDown(ImGuiMouseButton_Left)) camera.orbit(-0.3f * delta.x, 0.3f * delta.y);
        if (ImGui::IsMouseDown(ImGuiMouseButton_Right) || ImGui::IsMouseDown(ImGuiMouseButton_Middle)) {
          camera.pan(-delta.x / float(height), delta.y / float(height));
        }
        if (io.MouseWheel != 0.0f) camera.zoom(std::pow(0.9f, io.MouseWheel));
      }
      bool take_screenshot = false, toggle_recording = false, restart_now = false;
      std::optional<ExecutionMode> switch_to;
      if (options.switch_after_frames > 0 && frame == options.switch_after_frames)
        switch_to = parse_mode(options.switch_to_mode);
      if (!io.WantCaptureKeyboard) {
        auto pressed = [&](int key) {
          return std::find(key_presses.keys.begin(), key_presses.keys.end(), key) != key_presses.keys.end();
        };
        if (pressed(GLFW_KEY_SPACE)) paused = !paused;
        if (pressed(GLFW_KEY_N)) paused = true, single_step = true;
        if (pressed(GLFW_KEY_BACKSPACE)) restart_now = true;
        if (pressed(GLFW_KEY_EQUAL) || pressed(GLFW_KEY_KP_ADD))
          steps_per_frame = std::min(steps_per_frame * 2, 64);
        if (pressed(GLFW_KEY_MINUS) || pressed(GLFW_KEY_KP_SUBTRACT))
          steps_per_frame = std::max(steps_per_frame / 2, 1);
        for (int k = 0; k < 4; ++k) {
          if (pressed(GLFW_KEY_1 + k)) camera = reset_camera(render::CameraPreset(k));
        }
        if (pressed(GLFW_KEY_C)) camera = reset_camera(first_preset);
        if (pressed(GLFW_KEY_B)) {
          settings.show_boundary = !settings.show_boundary;
          if (settings.show_boundary && renderer.boundary().count() == 0) {
            upload_boundary(simulation, renderer.boundary(), simulation.ledger());
          }
        }
        if (pressed(GLFW_KEY_E)) toggle_emitter(simulation);
        if (pressed(GLFW_KEY_P)) take_screenshot = true;
        if (pressed(GLFW_KEY_R)) toggle_recording = true;
        if (pressed(GLFW_KEY_F11)) toggle_fullscreen();
        if (pressed(GLFW_KEY_TAB)) show_panels = !show_panels;
        if (pressed(GLFW_KEY_H) || pressed(GLFW_KEY_F1)) show_help = !show_help;
        if (pressed(GLFW_KEY_ESCAPE)) glfwSetWindowShouldClose(window, GLFW_TRUE);
      }
      key_presses.keys.clear();  // typed into an ImGui field, or handled above

      // ---- [Panels]
      if (show_panels) {
        ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
        ImGui::SetNextWindowSize(ImVec2(420, 0), ImGuiCond_FirstUseEver);
        ImGui::Begin("Surge");
        // Tab is the viewer's show/hide-panels key; as ImGui's tab stop it would move into the first field
        // and take every following key.
        ImGui::PushAllowKeyboardFocus(false);
        // Fields leave 12 em for their labels: the live parameters are named as the scene file names them
        // ("speed_of_sound_m_per_s"), which ImGui's default two-thirds width would cut.
        ImGui::PushItemWidth(-12.0f * ImGui::GetFontSize());
        ImGui::TextUnformatted(session->backend().description.c_str());
        ImGui::Text("%zu fluid + %zu wall particles", simulation.fluid_count(), simulation.boundary_count());
        ImGui::Text("t = %.4f s, step %ld, dt = %.2e s", session->status().time_s, session->status().step,
                    double(session->status().dt_s));
        ImGui::Text("%.1f fps, %.3g particle-steps/s", fps, particle_steps_per_s);
        ImGui::Text("bus: %.0f bytes/frame (%s)", bus_bytes_per_frame,
                    session->feed().using_interop() ? "interop" : "host upload");

        if (ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) {
          if (ImGui::Button(paused ? "Run" : "Pause")) paused = !paused;
          ImGui::SameLine();
          if (ImGui::Button("Step")) paused = true, single_step = true;
          ImGui::SameLine();
          if (ImGui::Button("Restart")) restart_now = true;
          ImGui::SliderInt("steps/frame", &steps_per_frame, 1, 64);
          ImGui::DragFloat("hand radius", &hand_radius, 0.001f, 0.001f, 10.0f, "%.3f m");
          // A scene without [[emitter]] has no nozzle to switch: greyed, with the reason.
          bool emitting = simulation.emitter_enabled();
          ImGui::BeginDisabled(!simulation.has_emitter());
          if (ImGui::Checkbox("Emitter (E)", &emitting)) toggle_emitter(simulation);
          ImGui::EndDisabled();
          ImGui::SameLine();
          if (!simulation.has_emitter())
            ImGui::TextDisabled("this scene has no [[emitter]]");
          else if (session->status().emitter_full)
            ImGui::TextDisabled("full: %zu of %zu particles", simulation.fluid_count(),
                                simulation.capacity());
          else
            ImGui::TextDisabled("%zu of %zu particles", simulation.fluid_count(), simulation.capacity());
          ImGui::TextDisabled("Shift + drag: stir the fluid");
          if (ImGui::Button("Screenshot")) take_screenshot = true;
          ImGui::SameLine();
          if (ImGui::Button(recording ? "Stop recording" : "Record")) toggle_recording = true;
          if (recording) ImGui::Text("recording: %d frames", recording->frames);
        }
        if (ImGui::CollapsingHeader("Scene", ImGuiTreeNodeFlags_DefaultOpen)) {
          const std::string current = scene.path.filename().string();
          if (ImGui::BeginCombo("scene", current.c_str())) {
            for (const auto& file : scene_files) {
              if (ImGui::Selectable(file.filename().string().c_str(),
                                    file.filename() == scene.path.filename())) {
                try {
                  live.forget();
                  restart(load_scene(file), 0);
                  camera = reset_camera(first_preset);
                } catch (const std::exception& e) {
                  last_message = e.what();
                }
              }
            }
            ImGui::EndCombo();
          }
          ImGui::DragInt("particles", &particles_edit, 1000.0f, 1000, 50'000'000);
          ImGui::SameLine();
          ImGui::TextDisabled("(on restart)");
          if (ImGui::Button("Restart to apply")) {
            try {
              restart(scene, particles_edit);
            } catch (const std::exception& e) {
              last_message = e.what();
            }
          }
          // Through the session: a scene picked above has replaced the simulation this frame began with.
          if (std::string refused = live.draw(session->simulation()); !refused.empty())
            last_message = refused;
        }
        if (ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen) && last_stages.steps > 0) {
          const double total = std::max(last_stages.total_ms(), 1e-9);
          for (int s = 0; s < kStageCount; ++s) {
            const double ms = last_stages.ms[std::size_t(s)] / double(last_stages.steps);
            char label[64];
            std::snprintf(label, sizeof label, "%s %.3f ms", kStageNames[std::size_t(s)], ms);
            ImGui::ProgressBar(float(last_stages.ms[std::size_t(s)] / total), ImVec2(-1, 0), label);
          }
          ImGui::PlotLines("step ms", history.step_ms.data(), TimingHistory::kLength, history.next, nullptr,
                           0.0f, FLT_MAX, ImVec2(0, 60));
        }
        if (ImGui::CollapsingHeader("Lessons", first_mode ? ImGuiTreeNodeFlags_DefaultOpen : 0)) {
          if (const auto picked = lessons.draw(session->mode(), scene.solver)) switch_to = picked;
        }
        if (ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) {
          int color_by = int(settings.color_by);
          const char* names[] = {"speed", "density", "pressure", "fixed"};
          if (ImGui::Combo("colour by", &color_by, names, 4)) {
            settings.color_by = render::ColorBy(color_by);
            reset_colors();
          }
          ImGui::DragFloatRange2("range", &settings.color_min, &settings.color_max,
                                 0.01f * std::max(1.0f, std::abs(settings.color_max)));
          ImGui::DragFloat("radius", &settings.particle_radius, 1e-4f, 1e-5f, 1.0f, "%.4f m");
          ImGui::Checkbox("lighting", &settings.lighting);
          ImGui::SameLine();
          ImGui::Checkbox("colour bar", &settings.show_color_bar);
          if (ImGui::Checkbox("walls", &settings.show_boundary) && settings.show_boundary &&
              renderer.boundary().count() == 0) {
            upload_boundary(simulation, renderer.boundary(), simulation.ledger());
          }
          for (int k = 0; k < 4; ++k) {
            if (k > 0) ImGui::SameLine();
            if (ImGui::Button(render::kCameraPresetNames[std::size_t(k)].c_str())) {
              camera = reset_camera(render::CameraPreset(k));
            }
          }
          if (ImGui::Button("Fullscreen (F11)")) toggle_fullscreen();
          ImGui::SameLine();
          if (ImGui::Button("Help (H)")) show_help = !show_help;
        }
        if (!last_message.empty()) ImGui::TextWrapped("%s", last_message.c_str());
        ImGui::PopItemWidth();
        ImGui::PopAllowKeyboardFocus();
        ImGui::End();
      }
      if (show_help) {
        ImGui::SetNextWindowPos(ImVec2(float(width) * 0.5f, float(height) * 0.5f), ImGuiCond_Always,
                                ImVec2(0.5f, 0.5f));
        ImGui::Begin("Help", &show_help, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
        ImGui::TextUnformatted(kHelpText);
        ImGui::End();
      }
      ImGui::Render();
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

      // ---- [Capture] (the panels are in the back buffer now; screenshots taken here include them)
      if (take_screenshot) screenshot(unused_name("surge-" + timestamp(), ".png"), width, height);
      if (options.frames > 0 && frame >= options.frames) {
        if (!options.screenshot.empty()) screenshot(options.screenshot, width, height);
        glfwSetWindowShouldClose(window, GLFW_TRUE);
      }
      if (toggle_recording) {
        if (recording) {
          if (recording->video) recording->video->finish();
          last_message =
              "recorded " + std::to_string(recording->frames) + " frames in " + recording->directory.string();
          recording.reset();
          std::cout << last_message << '\n';
        } else {
          recording.emplace();
          recording->directory = "surge-recording-" + timestamp();
          recording->width = width;
          recording->height = height;
          std::filesystem::create_directories(recording->directory);
          if (find_ffmpeg()) {
            recording->video.emplace(recording->directory / "video.mp4", width, height, 60);
            last_message = "recording PNG frames and video.mp4 to " + recording->directory.string();
          } else {
            last_message =
                "recording PNG frames to " + recording->directory.string() + " (no ffmpeg: no MP4)";
          }
          std::cout << last_message << '\n';
        }
      }
      if (switch_to) {
        try {
          switch_mode(*switch_to);
        } catch (const std::exception& e) {
          last_message = std::string("mode switch failed: ") + e.what();
          std::cerr << last_message << '\n';
        }
      }
      if (restart_now) {
        try {
          restart(scene, particles_now);
        } catch (const std::exception& e) {
          last_message = e.what();
        }
      }
      glfwSwapBuffers(window);
    }
    const StepStatus last = session->simulation().status();
    std::cout << "last frame: mode " << mode_name(session->mode()) << ", step " << last.step
              << ", t = " << last.time_s << " s\n";
    if (recording && recording->video) recording->video->finish();
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace surge::app
