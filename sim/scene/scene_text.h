// The bytes of a scene file, checked before toml++ reads them.
//
// toml++ 3.3.0, the version Debian ships and CI builds with, has undefined behaviour on text it should
// simply reject: it asks is_non_ascii_horizontal_whitespace() about the character after a value or key,
// and for most non-ASCII code points that function reaches TOML_UNREACHABLE (__builtin_unreachable in a
// release build), so `spacing = 0.01 µm` or a key `tïny = 1` do whatever the optimiser made of it
// (marzer/tomlplusplus#295, fixed upstream by PR #305, not in any Debian release yet). The same function
// is asked about the first character after a line-ending backslash in a multi-line string
// (marzer/tomlplusplus#190), and a NUL byte trips an assertion in builds without NDEBUG. So does a table
// header whose '[' is not followed by a name (`[!x]`, a '[' alone on its line): toml++ hands it to its key
// parser, which asserts (and, built with clang in release, assumes) that a key character comes first.
//
// TOML allows non-ASCII characters only inside strings and comments, so rejecting them everywhere else
// rejects nothing valid; this check follows the strings and comments to know where it is. The one valid
// text it refuses is a non-ASCII character right after a line-ending backslash in a """ string, with a
// message that says so. Invalid UTF-8 and NUL bytes are refused too, with the line and column, and so is a
// header's '[' before anything but a key, a quote or what toml++ reports itself (']', '[ [').
#pragma once

#include <filesystem>
#include <string_view>

namespace surge {

// Throws SceneError::at_position ("FILE:LINE:COLUMN: ...") at the first byte toml++ must not see.
void check_scene_text(std::string_view text, const std::filesystem::path& file);

}  // namespace surge
