# `cmake --install build [--prefix DIR]`: PREFIX/bin/surge and, where it looks for them
# (app/data_files.h, render/shader_program.cpp), PREFIX/share/surge/{scenes,assets,shaders,docs}; the README
# in PREFIX/share/doc/surge. `cpack --config build/CPackConfig.cmake` (run from build/) makes a .deb of the same.
install(TARGETS surge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(SURGE_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/surge)
install(DIRECTORY scenes assets shaders DESTINATION ${SURGE_INSTALL_DATADIR})
# docs/ holds the scene keys' page and its template (`surge params --markdown` reads it), the lessons and
# the benchmark records.
install(DIRECTORY docs DESTINATION ${SURGE_INSTALL_DATADIR})
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME surge)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "Surge maintainers")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The shared libraries surge links (libgomp, GLFW, EGL, assimp) become the package's dependencies.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# EGL is loaded at run time (glad), so dpkg-shlibdeps cannot see it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libegl1")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "ffmpeg, librsvg2-bin")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
include(CPack)
