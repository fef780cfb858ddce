# OpenGL for the renderer (offscreen through EGL) and the viewer (GLFW window + Dear ImGui).
# Both are optional: without glad the app builds with no rendering; without GLFW/ImGui it builds
# without `surge view`. Sets SURGE_HAVE_RENDER and SURGE_HAVE_VIEWER.
option(SURGE_RENDER "Build the OpenGL renderer (needs glad from python3-glad and stb headers)" ON)
option(SURGE_VIEWER "Build `surge view` (needs GLFW and Dear ImGui)" ON)
set(SURGE_HAVE_RENDER OFF)
set(SURGE_HAVE_VIEWER OFF)

if(SURGE_RENDER)
  find_program(GLAD_EXECUTABLE glad)
  find_path(STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
  if(GLAD_EXECUTABLE AND STB_INCLUDE_DIR)
    set(SURGE_HAVE_RENDER ON)
  else()
    message(WARNING "Surge: renderer OFF (glad: ${GLAD_EXECUTABLE}, stb_image_write.h: ${STB_INCLUDE_DIR}); "
                    "install python3-glad and libstb-dev")
  endif()
endif()

if(SURGE_HAVE_RENDER)
  # glad 2 generates the GL 4.6 core and EGL 1.5 loaders at build time (BUILD-NOTES.md). --reproducible
  # makes it use the XML it ships instead of downloading the latest from Khronos.
  set(GLAD_API "gl:core=4.6,egl=1.5" CACHE STRING "glad --api")
  set(GLAD_EXTENSIONS
      "GL_KHR_debug,GL_ARB_debug_output,EGL_EXT_platform_base,EGL_EXT_platform_device,EGL_EXT_device_base,EGL_EXT_device_enumeration,EGL_EXT_device_query,EGL_MESA_platform_surfaceless,EGL_KHR_surfaceless_context,EGL_KHR_create_context,EGL_KHR_no_config_context,EGL_NV_device_cuda,EGL_EXT_device_drm"
      CACHE STRING "glad --extensions")
  set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
  add_custom_command(
    OUTPUT ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/src/egl.c ${GLAD_OUT}/include/glad/gl.h
           ${GLAD_OUT}/include/glad/egl.h ${GLAD_OUT}/include/KHR/khrplatform.h
           ${GLAD_OUT}/include/EGL/eglplatform.h
    COMMAND ${GLAD_EXECUTABLE} --quiet --reproducible --api ${GLAD_API} --extensions ${GLAD_EXTENSIONS}
            --out-path ${GLAD_OUT} c --loader
    COMMENT "Generating the glad 2 loader (${GLAD_API})"
    VERBATIM)
  add_library(surge_glad STATIC ${GLAD_OUT}/src/gl.c ${GLAD_OUT}/src/egl.c)
  target_include_directories(surge_glad SYSTEM PUBLIC ${GLAD_OUT}/include)
  set_target_properties(surge_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(surge_glad PUBLIC ${CMAKE_DL_LIBS})

  add_library(surge_stb INTERFACE)
  target_include_directories(surge_stb SYSTEM INTERFACE ${STB_INCLUDE_DIR})

  if(SURGE_VIEWER)
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(SURGE_IMGUI QUIET IMPORTED_TARGET imgui)
      pkg_check_modules(SURGE_GLFW QUIET IMPORTED_TARGET glfw3)
    endif()
    if(SURGE_IMGUI_FOUND AND SURGE_GLFW_FOUND)
      set(SURGE_HAVE_VIEWER ON)
    else()
      message(WARNING "Surge: `surge view` OFF (GLFW found: ${SURGE_GLFW_FOUND}, ImGui found: "
                      "${SURGE_IMGUI_FOUND}); install libglfw3-dev and libimgui-dev")
    endif()
  endif()
endif()
message(STATUS "Surge: renderer ${SURGE_HAVE_RENDER}, viewer ${SURGE_HAVE_VIEWER}")
