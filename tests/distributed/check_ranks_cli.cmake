# `surge run` and `surge bench` under mpirun -np 2, as the README shows them: the .pvtp series reads back
# (the .pvd names every frame, each .pvtp one piece per rank, the pieces' points add up to the particles of
# a one-process run), a run resumed from its checkpoint leaves the uninterrupted run's files to the byte
# (frames, .pvd, gauges.csv), the checkpoint resumes on 3 ranks and in one process, a missing, foreign or
# damaged checkpoint stops both ranks with exit 2 and the same error, a granular run resumes to the byte too,
# and the bench reports its figures. DFSPH and PBF run and bench on ranks too, with their halo refreshes reported; DEM
# runs and writes its series with the grains' radius; a gauged continuity-density dam break writes one
# process's gauges.csv (header, rows) and frames every T seconds; the SPHERIC Test 2 scene runs with its
# gauges; moving and floating solids run with their body gauges; the fountain's emitter runs; n-body is
# refused by name. Built without MPI: a launcher's environment with 2 ranks gets "this build has no MPI".
# -DSURGE=... -DMPIEXEC=... (empty without MPI) -DSOURCE_DIR=... -DWORK=...
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(scene ${SOURCE_DIR}/scenes/dam_break.toml)

function(expect_contains text part what)
  string(FIND "${text}" "${part}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: '${part}' not in:\n${text}")
  endif()
endfunction()

if(NOT MPIEXEC)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMPI_COMM_WORLD_SIZE=2 ${SURGE} run ${scene} --steps 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "2 ranks in a build without MPI: exit ${rc}, expected 2\n${out}\n${err}")
  endif()
  expect_contains("${err}" "this build of surge has no MPI" "2 ranks in a build without MPI")
  return()
endif()

set(mpirun ${MPIEXEC} -np 2 --oversubscribe)

# The particle count of a one-process run of `scene_file` (named `name`) with the extra arguments after it,
# into `count`: what the ranks' pieces must add up to.
function(one_process_count scene_file name count)
  execute_process(COMMAND ${SURGE} run ${scene_file} --backend cpu ${ARGN} --steps 1 --every 1
                          --out ${WORK}/one_${name} --quiet
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}, one process: exit ${rc}\n${out}\n${err}")
  endif()
  file(READ ${WORK}/one_${name}/${name}_000000.vtp header LIMIT 4000)
  string(REGEX MATCH "NumberOfPoints=\"([0-9]+)\"" found "${header}")
  set(${count} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

# `surge ARGN` on 2 ranks, which must succeed; its standard output into `output`.
function(surge_on_2_ranks output)
  execute_process(COMMAND ${mpirun} ${SURGE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "mpirun -np 2 surge ${command}: exit ${rc}\n${out}\n${err}")
  endif()
  set(${output} "${out}" PARENT_SCOPE)
endfunction()

one_process_count(${scene} dam_break particles)

surge_on_2_ranks(out run ${scene} --steps 60 --every 30 --out ${WORK}/ranks)
expect_contains("${out}" "MPI (2 ranks)" "run on 2 ranks")
expect_contains("${out}" "imbalance:" "run on 2 ranks")

file(READ ${WORK}/ranks/dam_break.pvd pvd)
string(REGEX MATCHALL "file=\"[^\"]+\"" entries "${pvd}")
list(LENGTH entries frames)
if(NOT frames EQUAL 3)
  message(FATAL_ERROR "the .pvd lists ${frames} frames, expected 3 (steps 0, 30, 60):\n${pvd}")
endif()
foreach(entry IN LISTS entries)
  string(REGEX REPLACE "file=\"([^\"]+)\"" "\\1" pvtp "${entry}")
  file(READ ${WORK}/ranks/${pvtp} parallel)
  string(REGEX MATCHALL "Piece Source=\"[^\"]+\"" pieces "${parallel}")
  list(LENGTH pieces piece_count)
  if(NOT piece_count EQUAL 2)
    message(FATAL_ERROR "${pvtp} names ${piece_count} pieces, expected one per rank:\n${parallel}")
  endif()
  set(total 0)
  foreach(piece IN LISTS pieces)
    string(REGEX REPLACE "Piece Source=\"([^\"]+)\"" "\\1" file "${piece}")
    file(READ ${WORK}/ranks/${file} header LIMIT 4000)
    string(REGEX MATCH "NumberOfPoints=\"([0-9]+)\"" found "${header}")
    if(NOT found OR CMAKE_MATCH_1 EQUAL 0)
      message(FATAL_ERROR "${file}: no particles (each rank owns a slab of the column)")
    endif()
    math(EXPR total "${total} + ${CMAKE_MATCH_1}")
  endforeach()
  if(NOT total EQUAL particles)
    message(FATAL_ERROR "${pvtp}: its pieces hold ${total} particles, one process ${particles}")
  endif()
endforeach()

# The files named after the two directories must hold the same bytes in both (a resumed run's and the
# uninterrupted run's).
function(expect_same_files uninterrupted_dir restarted_dir)
  foreach(file ${ARGN})
    file(READ ${uninterrupted_dir}/${file} uninterrupted HEX)
    file(READ ${restarted_dir}/${file} restarted HEX)
    if(NOT restarted STREQUAL uninterrupted)
      message(FATAL_ERROR "${restarted_dir}/${file}, resumed on 2 ranks, differs from the uninterrupted run's")
    endif()
  endforeach()
endfunction()

# Checkpoints on 2 ranks (docs/checkpoints.md, "On ranks"): the gauged dam break stopped at step 30 by its
# --steps and resumed from its checkpoint to step 60 leaves what the uninterrupted run leaves, to the byte:
# the last frame's pieces, the .pvd and gauges.csv.
set(gauged_scene ${SOURCE_DIR}/tests/distributed/gauged_dam_break.toml)
set(checkpointed --particles 2000 --every 30)
surge_on_2_ranks(out run ${gauged_scene} ${checkpointed} --steps 60 --out ${WORK}/uninterrupted)
surge_on_2_ranks(out run ${gauged_scene} ${checkpointed} --steps 30 --checkpoint-every 20 --out ${WORK}/restarted)
expect_contains("${out}" "checkpoints: ${WORK}/restarted/gauged_dam_break.checkpoint, every 20 steps, at the end"
                "checkpoints on 2 ranks")
expect_contains("${out}" "checkpoint:     ${WORK}/restarted/gauged_dam_break.checkpoint (step 30, 2 written)"
                "checkpoints on 2 ranks")
file(COPY ${WORK}/restarted/gauged_dam_break.checkpoint DESTINATION ${WORK}/saved)
surge_on_2_ranks(out run ${gauged_scene} ${checkpointed} --steps 60 --out ${WORK}/restarted
                 --resume ${WORK}/restarted/gauged_dam_break.checkpoint)
expect_contains("${out}" "resumed: ${WORK}/restarted/gauged_dam_break.checkpoint at step 30" "--resume on 2 ranks")
expect_same_files(${WORK}/uninterrupted ${WORK}/restarted gauged_dam_break_000002_rank0.vtp
                  gauged_dam_break_000002_rank1.vtp gauged_dam_break.pvd gauges.csv)

# The same checkpoint on 3 ranks (the cuts made anew) and in one process (its frames start a new series),
# each in a directory of its own with the gauge rows the checkpoint counted, which the CSV continues.
file(COPY ${WORK}/restarted/gauges.csv DESTINATION ${WORK}/on_three)
file(COPY ${WORK}/restarted/gauges.csv DESTINATION ${WORK}/in_one)
execute_process(COMMAND ${MPIEXEC} -np 3 --oversubscribe ${SURGE} run ${gauged_scene} ${checkpointed} --steps 40
                        --out ${WORK}/on_three --resume ${WORK}/saved/gauged_dam_break.checkpoint
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a 2-rank checkpoint resumed on 3 ranks: exit ${rc}\n${out}\n${err}")
endif()
expect_contains("${out}" "MPI (3 ranks)" "a 2-rank checkpoint on 3 ranks")
execute_process(COMMAND ${SURGE} run ${gauged_scene} --backend cpu ${checkpointed} --steps 40 --out ${WORK}/in_one
                        --resume ${WORK}/saved/gauged_dam_break.checkpoint
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a 2-rank checkpoint resumed in one process: exit ${rc}\n${out}\n${err}")
endif()
expect_contains("${out}" "was written on several ranks" "a 2-rank checkpoint in one process")

# A bad checkpoint: every rank stops with the same error naming the file and the problem, exit 2, and none
# waits for the other (a deadlock would run into the test's timeout). The damaged one is the saved checkpoint
# cut short, as a copy interrupted midway leaves it.
execute_process(COMMAND head -c 3000 ${WORK}/saved/gauged_dam_break.checkpoint
                OUTPUT_FILE ${WORK}/damaged.checkpoint RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not cut the checkpoint short (head -c): exit ${rc}")
endif()
function(expect_bad_checkpoint what scene_file checkpoint problem)
  execute_process(COMMAND ${mpirun} ${SURGE} run ${scene_file} --particles 2000 --steps 40 --out ${WORK}/bad
                          --resume ${checkpoint}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${what} checkpoint on 2 ranks: exit ${rc}, expected 2\n${out}\n${err}")
  endif()
  string(REGEX MATCHALL "error: [^\n]*${problem}" errors "${err}")
  list(LENGTH errors count)
  if(NOT count EQUAL 2)
    message(FATAL_ERROR "${what} checkpoint on 2 ranks: ${count} ranks said '${problem}', expected both:\n${err}")
  endif()
endfunction()
expect_bad_checkpoint("a missing" ${gauged_scene} ${WORK}/missing.checkpoint
                      "cannot open checkpoint '${WORK}/missing.checkpoint'")
expect_bad_checkpoint("another scene's" ${scene} ${WORK}/saved/gauged_dam_break.checkpoint
                      "made from another setup \\(scene 'gauged_dam_break'\\)")
expect_bad_checkpoint("a damaged" ${gauged_scene} ${WORK}/damaged.checkpoint
                      "checkpoint '${WORK}/damaged.checkpoint' is damaged")

# DEM on 2 ranks: the granular column stopped at step 730 (grains in contact) and resumed to 1400 writes the
# uninterrupted run's last frame to the byte (the contact history goes with the checkpoint).
set(grains_run run ${SOURCE_DIR}/scenes/granular_column.toml --particles 1000 --every 700 --quiet)
surge_on_2_ranks(out ${grains_run} --steps 1400 --out ${WORK}/grains_uninterrupted)
surge_on_2_ranks(out ${grains_run} --steps 730 --checkpoint-every 730 --out ${WORK}/grains_restarted)
surge_on_2_ranks(out ${grains_run} --steps 1400 --out ${WORK}/grains_restarted
                 --resume ${WORK}/grains_restarted/granular_column.checkpoint)
expect_same_files(${WORK}/grains_uninterrupted ${WORK}/grains_restarted granular_column_000002_rank0.vtp
                  granular_column_000002_rank1.vtp granular_column.pvd)

surge_on_2_ranks(out bench ${scene} --steps 10 --warmup 2 --particles 2000)
foreach(figure "halo:" "exchange:" "imbalance:" "efficiency:")
  expect_contains("${out}" "${figure}" "bench on 2 ranks")
endforeach()
message(STATUS "${out}")

# DFSPH and PBF (--solver) on 2 ranks: their iterations refresh the halo, and the reports say so.
surge_on_2_ranks(out run ${scene} --solver dfsph --particles 2000 --steps 10 --every 10 --out ${WORK}/dfsph)
foreach(part "dfsph, MPI (2 ranks)" "refresh:" "density_iterations")
  expect_contains("${out}" "${part}" "dfsph on 2 ranks")
endforeach()
if(NOT EXISTS ${WORK}/dfsph/dam_break_000001.pvtp)
  message(FATAL_ERROR "dfsph on 2 ranks wrote no second .pvtp frame")
endif()
surge_on_2_ranks(out bench ${scene} --solver pbf --particles 2000 --steps 5 --warmup 1)
foreach(figure "(pbf)" "halo:" "refresh:" "efficiency:")
  expect_contains("${out}" "${figure}" "pbf bench on 2 ranks")
endforeach()
# DEM on 2 ranks: the granular column writes its series, the grains' radius with it, and every grain is in
# one piece of each frame.
set(grains_scene ${SOURCE_DIR}/scenes/granular_column.toml)
one_process_count(${grains_scene} granular_column grains --particles 1000)
surge_on_2_ranks(out run ${grains_scene} --particles 1000 --steps 200 --every 100 --out ${WORK}/dem)
foreach(part "dem, MPI (2 ranks)" "${grains} grains" "halo:")
  expect_contains("${out}" "${part}" "dem on 2 ranks")
endforeach()
file(READ ${WORK}/dem/granular_column_000002.pvtp parallel)
expect_contains("${parallel}" "Name=\"radius\"" "the dem .pvtp")
string(REGEX MATCHALL "Piece Source=\"[^\"]+\"" pieces "${parallel}")
set(total 0)
foreach(piece IN LISTS pieces)
  string(REGEX REPLACE "Piece Source=\"([^\"]+)\"" "\\1" file "${piece}")
  file(READ ${WORK}/dem/${file} header LIMIT 4000)
  string(REGEX MATCH "NumberOfPoints=\"([0-9]+)\"" found "${header}")
  math(EXPR total "${total} + ${CMAKE_MATCH_1}")
  expect_contains("${header}" "Name=\"radius\"" "${file}")
endforeach()
if(NOT total EQUAL grains)
  message(FATAL_ERROR "the dem's last frame: its pieces hold ${total} grains, one process ${grains}")
endif()

# Gauges on 2 ranks (tests/distributed/gauged_dam_break.toml: pressure, level, velocity and force gauges on a
# continuity-density WCSPH dam break with a fixed box): rank 0 writes the one gauges.csv, with one process's
# header and rows (to t = 0.01 s, a multiple of the gauges' 1 ms, so both end past the same sample), and the
# frames every 5 ms of simulated time (--every-time) are the initial one and two more.
set(gauged_scene ${SOURCE_DIR}/tests/distributed/gauged_dam_break.toml)
execute_process(COMMAND ${SURGE} run ${gauged_scene} --backend cpu --particles 2000 --time 0.01 --every 0
                        --out ${WORK}/gauges_one --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the gauged dam break, one process: exit ${rc}\n${out}\n${err}")
endif()
surge_on_2_ranks(out run ${gauged_scene} --particles 2000 --time 0.01 --every-time 0.005
                 --out ${WORK}/gauges_ranks)
expect_contains("${out}" "gauges: ${WORK}/gauges_ranks/gauges.csv" "gauges on 2 ranks")
file(STRINGS ${WORK}/gauges_one/gauges.csv one_rows)
file(STRINGS ${WORK}/gauges_ranks/gauges.csv ranks_rows)
list(GET one_rows 0 one_header)
list(GET ranks_rows 0 ranks_header)
if(NOT ranks_header STREQUAL one_header)
  message(FATAL_ERROR "gauges.csv on 2 ranks has the header\n${ranks_header}\none process\n${one_header}")
endif()
expect_contains("${one_header}" "f_block_fz" "the gauged dam break's header")
list(LENGTH one_rows one_count)
list(LENGTH ranks_rows ranks_count)
if(NOT ranks_count EQUAL one_count OR one_count LESS 11)
  message(FATAL_ERROR "gauges.csv: ${ranks_count} lines on 2 ranks, ${one_count} in one process (header + 10 "
                      "samples expected)")
endif()
file(READ ${WORK}/gauges_ranks/gauged_dam_break.pvd pvd)
string(REGEX MATCHALL "file=\"[^\"]+\"" entries "${pvd}")
list(LENGTH entries frames)
if(NOT frames EQUAL 3)
  message(FATAL_ERROR "--every-time 0.005 to t = 0.01 s on 2 ranks: ${frames} frames, expected 3:\n${pvd}")
endif()

# The SPHERIC Test 2 scene (continuity density with delta-SPH, a fixed box, level and pressure gauges) runs on 2
# ranks as the README shows it, smaller.
surge_on_2_ranks(out run ${SOURCE_DIR}/scenes/spheric2_dam_break.toml --particles 3000 --steps 20 --every 10
                 --out ${WORK}/spheric2)
foreach(part "wcsph, MPI (2 ranks)" "gauges:" "halo:")
  expect_contains("${out}" "${part}" "spheric2 on 2 ranks")
endforeach()
file(STRINGS ${WORK}/spheric2/gauges.csv spheric2_rows)
list(GET spheric2_rows 0 spheric2_header)
expect_contains("${spheric2_header}" "time_s,H1,H2,H3,H4,P1" "spheric2's gauges.csv on 2 ranks")
if(NOT EXISTS ${WORK}/spheric2/spheric2_dam_break_000002.pvtp)
  message(FATAL_ERROR "spheric2 on 2 ranks wrote no third .pvtp frame")
endif()

# Moving and floating solids on 2 ranks (tests/distributed/solids_tank.toml: a piston oscillating at one end,
# a floating box with body and force gauges): rank 0 writes one process's gauges.csv header and rows (to
# t = 0.02 s, two samples of the gauges' 10 ms), the box's body gauge among them, and the box has moved.
set(solids_scene ${SOURCE_DIR}/tests/distributed/solids_tank.toml)
execute_process(COMMAND ${SURGE} run ${solids_scene} --backend cpu --time 0.02 --every 0 --out ${WORK}/solids_one
                        --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the solids tank, one process: exit ${rc}\n${out}\n${err}")
endif()
surge_on_2_ranks(out run ${solids_scene} --time 0.02 --every 0 --out ${WORK}/solids_ranks)
expect_contains("${out}" "wcsph, MPI (2 ranks)" "moving and floating solids on 2 ranks")
file(STRINGS ${WORK}/solids_one/gauges.csv one_rows)
file(STRINGS ${WORK}/solids_ranks/gauges.csv ranks_rows)
list(GET one_rows 0 one_header)
list(GET ranks_rows 0 ranks_header)
if(NOT ranks_header STREQUAL one_header)
  message(FATAL_ERROR "the solids tank's gauges.csv on 2 ranks has the header\n${ranks_header}\none process\n"
                      "${one_header}")
endif()
expect_contains("${one_header}" "box_z,box_qw" "the solids tank's header")
list(LENGTH one_rows one_count)
list(LENGTH ranks_rows ranks_count)
if(NOT ranks_count EQUAL one_count OR one_count LESS 3)
  message(FATAL_ERROR "the solids tank's gauges.csv: ${ranks_count} lines on 2 ranks, ${one_count} in one "
                      "process (header + 2 samples expected)")
endif()
# The box (its centre at z = 0.18 m at rest) has fallen onto the water by the last sample.
list(GET ranks_rows -1 last_row)
string(REPLACE "," ";" last_values "${last_row}")
string(REPLACE "," ";" columns "${ranks_header}")
list(FIND columns "box_z" z_column)
list(GET last_values ${z_column} box_z)
if(NOT box_z LESS 0.18)
  message(FATAL_ERROR "the floating box on 2 ranks did not fall: box_z = ${box_z} at the last sample")
endif()

# The fountain's emitter on 2 ranks (a few layers): it runs, and every frame's pieces hold one process's
# particles, the emitted ones included.
set(fountain_scene ${SOURCE_DIR}/scenes/fountain.toml)
one_process_count(${fountain_scene} fountain fountain_start)
surge_on_2_ranks(out run ${fountain_scene} --steps 30 --every 30 --out ${WORK}/fountain)
expect_contains("${out}" "wcsph, MPI (2 ranks)" "the fountain on 2 ranks")
file(READ ${WORK}/fountain/fountain_000001.pvtp parallel)
string(REGEX MATCHALL "Piece Source=\"[^\"]+\"" pieces "${parallel}")
set(total 0)
foreach(piece IN LISTS pieces)
  string(REGEX REPLACE "Piece Source=\"([^\"]+)\"" "\\1" file "${piece}")
  file(READ ${WORK}/fountain/${file} header LIMIT 4000)
  string(REGEX MATCH "NumberOfPoints=\"([0-9]+)\"" found "${header}")
  math(EXPR total "${total} + ${CMAKE_MATCH_1}")
endforeach()
if(NOT total GREATER fountain_start)
  message(FATAL_ERROR "the fountain on 2 ranks emitted nothing in 30 steps: ${total} particles, ${fountain_start} "
                      "at the start")
endif()

# n-body is not split (a distributed tree is another project): refused by name.
execute_process(COMMAND ${mpirun} ${SURGE} run ${SOURCE_DIR}/scenes/kepler.toml --steps 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "nbody on 2 ranks: exit ${rc}, expected 2\n${out}\n${err}")
endif()
expect_contains("${err}" "solver nbody" "nbody on 2 ranks")
