#include "app/params_command.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/data_files.h"
#include "app/exit_codes.h"
#include "sim/scene/parameter_docs.h"

namespace surge::app {

CLI::App* add_params_command(CLI::App& parent, ParamsOptions& options) {
  CLI::App* params = parent.add_subcommand(
      "params", "Print the scene file reference: every key, its unit, default, range and whether it is live");
  params
      ->add_flag("--markdown", options.markdown,
                 "As Markdown: the text of docs/scenes.md (surge params --markdown > docs/scenes.md)")
      ->required();
  params->add_option("--template", options.template_path, "The page's prose, with markers where tables go")
      ->capture_default_str();
  return params;
}

int run_params(const ParamsOptions& options) {
  const std::filesystem::path template_path =
      options.template_path.empty() ? data_file(std::filesystem::path("docs") / "scenes.template.md")
                                    : options.template_path;
  std::ifstream in(template_path, std::ios::binary);
  if (!in) throw InputError("cannot read the docs template " + template_path.string());
  std::ostringstream text;
  text << in.rdbuf();
  std::cout << fill_parameter_docs(text.str());
  return kExitSuccess;
}

}  // namespace surge::app
