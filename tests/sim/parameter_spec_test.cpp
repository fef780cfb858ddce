// The parameter tables (sim/core/parameter_spec.h) are read by the loader, the live parameters and the docs;
// these checks catch a table entry that one of them could not use.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/dem/dem_parameter_specs.h"
#include "sim/nbody/nbody_parameter_specs.h"
#include "sim/scene/parameter_docs.h"
#include "sim/sph/fluid_parameter_specs.h"
#include "sim/sph/solver_parameter_specs.h"

namespace surge {
namespace {

template <typename Owner, typename Runtime>
bool has_runtime_member(const ParameterSpec<Owner, Runtime>& spec) {
  return std::visit([](auto member) { return member != nullptr; }, spec.runtime_member);
}

// A live entry without a member to write or a setter would have set_parameter write through a null pointer.
template <typename Owner, typename Runtime>
void expect_live_entries_can_be_set(std::span<const ParameterSpec<Owner, Runtime>> specs) {
  std::set<std::string_view> keys, names;
  for (const auto& spec : specs) {
    SCOPED_TRACE(std::string(spec.key));
    EXPECT_TRUE(keys.insert(spec.key).second) << "a key listed twice";
    EXPECT_TRUE(names.insert(spec.name()).second) << "a reported name listed twice";
    if (spec.live()) {
      EXPECT_TRUE(spec.apply != nullptr || has_runtime_member(spec)) << "live, but nothing applies it";
    } else {
      // A restart-only entry may say where the run keeps it (for the reports), but nothing sets it.
      EXPECT_TRUE(spec.apply == nullptr) << "a setter for a restart-only entry";
      EXPECT_TRUE(spec.available == nullptr || has_runtime_member(spec) || (std::is_same_v<Owner, Runtime>))
          << "an availability test for an entry the run does not keep";
    }
    EXPECT_FALSE(spec.description.empty());
  }
}

TEST(ParameterSpecs, EveryLiveEntryCanBeSetAndNamesAreUnique) {
  expect_live_entries_can_be_set(resolution_parameter_specs());
  expect_live_entries_can_be_set(fluid_parameter_specs());
  expect_live_entries_can_be_set(time_parameter_specs());
  expect_live_entries_can_be_set(dfsph_parameter_specs());
  expect_live_entries_can_be_set(pbf_parameter_specs());
  expect_live_entries_can_be_set(dem_parameter_specs());
  expect_live_entries_can_be_set(nbody_parameter_specs());
}

// The live set each solver reports is the tables' entries marked live for it, with the table's range and
// unit.
TEST(ParameterSpecs, LiveParametersComeFromTheTables) {
  const std::vector<LiveParameter> wcsph = live_parameters(SphParameters{});
  ASSERT_EQ(wcsph.size(), 7u);
  const auto alpha = std::find_if(wcsph.begin(), wcsph.end(),
                                  [](const LiveParameter& p) { return p.name == "viscosity_alpha"; });
  ASSERT_NE(alpha, wcsph.end());
  EXPECT_EQ(alpha->min, 0.0);
  EXPECT_EQ(alpha->max, 1.0);
  const auto c0 = std::find_if(wcsph.begin(), wcsph.end(),
                               [](const LiveParameter& p) { return p.name == "speed_of_sound_m_per_s"; });
  ASSERT_NE(c0, wcsph.end());
  EXPECT_TRUE(c0->min_open) << "a running fluid needs a speed of sound; 0 means automatic only at load";
  EXPECT_EQ(c0->unit, "m/s");
  EXPECT_EQ(live_incompressible_parameters().size(), 3u);
}

TEST(ParameterDocs, MarkersBecomeRowsAndUnknownOnesAreRefused) {
  const std::string page = fill_parameter_docs("# t\n<!-- parameters: pbf -->\n<!-- live parameters -->\n");
  EXPECT_NE(page.find("| `scorr_dq` | number | — | 0.2 | (0, 1] | live: `scorr_dq` (pbf) |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("| `nbody` | `softening`, `theta` (`barnes_hut` only), `dt` |"), std::string::npos)
      << page;
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_THROW(fill_parameter_docs("<!-- parameters: nosuch -->\n"), std::invalid_argument);
}

}  // namespace
}  // namespace surge
