# `cmake --install` and the .deb, used as a user would: install into a fresh prefix, run the installed surge
# from an empty directory (so no scenes/ of the working directory can stand in), and check that it reads
# the installed data; then make the .deb with CPack and list what it holds.
# Run as: cmake -DBUILD_DIR=build -DSOURCE_DIR=repo -DWORK=scratch -P check_install.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/empty)
set(prefix ${WORK}/prefix)

function(run_or_fail)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK}/empty RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "${command} failed (exit ${status}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_or_fail(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file bin/surge share/surge/scenes/dam_break.toml share/surge/shaders/particle_sphere.vert
             share/surge/assets/validation share/surge/docs/scenes.template.md share/doc/surge/README.md)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "cmake --install did not install ${file} under ${prefix}")
  endif()
endforeach()

# The installed binary names its data directory, and the page of scene keys it writes from the installed
# template is the committed one.
run_or_fail(${prefix}/bin/surge --version)
file(REAL_PATH ${prefix}/share/surge installed_data)
string(FIND "${out}" "data: ${installed_data} (installed)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "installed surge --version does not name ${installed_data}:\n${out}")
endif()
run_or_fail(${prefix}/bin/surge params --markdown)
file(READ ${SOURCE_DIR}/docs/scenes.md committed)
if(NOT out STREQUAL committed)
  message(FATAL_ERROR "installed surge params --markdown differs from docs/scenes.md")
endif()
# And it runs a shipped scene by its installed path.
run_or_fail(${prefix}/bin/surge run ${prefix}/share/surge/scenes/drop.toml --backend cpu --steps 3 --quiet
            --export vtk --every 1 --out ${WORK}/frames)
if(NOT EXISTS ${WORK}/frames/drop.pvd)
  message(FATAL_ERROR "the installed surge wrote no frames:\n${out}")
endif()

# The .deb: CPack from the build directory, into WORK.
run_or_fail(cpack --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK}/package)
file(GLOB debs ${WORK}/package/*.deb)
if(NOT debs)
  message(FATAL_ERROR "cpack made no .deb in ${WORK}/package:\n${out}")
endif()
list(GET debs 0 deb)
run_or_fail(dpkg-deb --contents ${deb})
foreach(file ./usr/bin/surge ./usr/share/surge/scenes/dam_break.toml ./usr/share/surge/shaders/)
  string(FIND "${out}" "${file}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${deb} does not hold ${file}:\n${out}")
  endif()
endforeach()
run_or_fail(dpkg-deb --field ${deb} Depends)
string(FIND "${out}" "libgomp1" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${deb} does not depend on libgomp1 (dpkg-shlibdeps): Depends: ${out}")
endif()
message(STATUS "installed into ${prefix}; ${deb}")
