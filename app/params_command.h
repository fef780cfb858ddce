// `surge params --markdown`: prints docs/scenes.md, its tables of keys written from the parameter tables the
// loader reads (sim/core/parameter_spec.h), so the page is regenerated rather than kept by hand.
#pragma once

#include <filesystem>

namespace CLI {
class App;
}

namespace surge::app {

struct ParamsOptions {
  // The page's prose with markers where the tables go (sim/scene/parameter_docs.h).
  // Empty: data_file("docs/scenes.template.md").
  std::filesystem::path template_path;
  bool markdown = false;
};

CLI::App* add_params_command(CLI::App& parent, ParamsOptions& options);
int run_params(const ParamsOptions& options);

}  // namespace surge::app
