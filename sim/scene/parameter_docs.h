// docs/scenes.md written from the parameter tables (sim/core/parameter_spec.h), so the page cannot drift
// from what the loader accepts: `surge params --markdown` prints it (README, "Scene files").
#pragma once

#include <string>
#include <string_view>

namespace surge {

// Fills a Markdown template: each line "<!-- parameters: TABLE -->" (TABLE one of resolution, fluid, time,
// dfsph, pbf, dem, nbody) becomes the rows of that table's keys, and the line "<!-- live parameters -->" the
// table of what each solver takes while running. Throws std::invalid_argument for an unknown marker.
std::string fill_parameter_docs(std::string_view template_text);

}  // namespace surge
