// A frame series written by several ranks that ParaView opens as one: each rank writes its owned particles
// as an ordinary piece (write_vtp, NAME_000000_rank0.vtp), rank 0 writes a .pvtp per frame naming every
// rank's piece (NAME_000000.pvtp) and one .pvd listing the .pvtp files with their times (NAME.pvd). Every
// file is written under a temporary name and renamed when complete, like the one-process series.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace surge {

std::string piece_file_name(const std::string& series, int frame, int rank);
std::string parallel_frame_file_name(const std::string& series, int frame);  // NAME_000000.pvtp

// The .pvtp of one frame: the attributes of write_vtp (velocity, density, pressure, id, and `position_w`
// when the pieces carry it: a grain's "radius"; Points), and one Piece per rank, named relative to the
// .pvtp's directory.
void write_pvtp(const std::filesystem::path& path, const std::vector<std::string>& pieces,
                std::string_view position_w = {});
// The .pvd: one entry per frame, (simulated time [s], .pvtp file name).
void write_parallel_pvd(const std::filesystem::path& path,
                        const std::vector<std::pair<double, std::string>>& frames);
// Removes an earlier run's files of the series `series` from `directory` (its .pvd, .pvtp files and the
// ranks' pieces, and their temporary names), none other; returns how many. From `first_frame` > 0 (a
// resumed run: the frames its checkpoint listed stay) only the frames numbered from it on, which the
// interrupted run wrote past its checkpoint; the .pvd stays, for the caller to rewrite.
std::size_t remove_parallel_series(const std::filesystem::path& directory, const std::string& series,
                                   int first_frame = 0);

}  // namespace surge
