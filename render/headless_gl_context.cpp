#include "render/headless_gl_context.h"

#include <glad/egl.h>
#include <glad/gl.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace surge::render {
namespace {

GLADapiproc egl_proc_address(const char* name) {
  return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name));
}

std::string egl_error_text() {
  char text[32];
  std::snprintf(text, sizeof text, "EGL error 0x%04X", unsigned(eglGetError()));
  return text;
}

std::vector<EGLDeviceEXT> egl_devices() {
  // EGL_EXT_device_base is enumeration + query in one extension; drivers advertise either form.
  if (!eglQueryDevicesEXT || !eglQueryDeviceStringEXT || !eglQueryDeviceAttribEXT ||
      !GLAD_EGL_EXT_platform_device) {
    return {};
  }
  EGLint count = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &count) || count <= 0) return {};
  std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count));
  if (!eglQueryDevicesEXT(count, devices.data(), &count)) return {};
  devices.resize(std::size_t(count));
  return devices;
}

// The CUDA ordinal of an EGL device, or -1 when it is not a CUDA device.
int cuda_ordinal_of(EGLDeviceEXT device) {
  const char* extensions = eglQueryDeviceStringEXT(device, EGL_EXTENSIONS);
  if (!extensions || !std::strstr(extensions, "EGL_NV_device_cuda")) return -1;
  EGLAttrib ordinal = -1;
  if (!eglQueryDeviceAttribEXT(device, EGL_CUDA_DEVICE_NV, &ordinal)) return -1;
  return int(ordinal);
}

EGLDisplay initialized_display(EGLenum platform, void* native) {
  EGLDisplay display = eglGetPlatformDisplayEXT(platform, native, nullptr);
  if (display == EGL_NO_DISPLAY) return EGL_NO_DISPLAY;
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) return EGL_NO_DISPLAY;
  return display;
}

}  // namespace

HeadlessGlContext::HeadlessGlContext(int cuda_device) {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
    throw std::runtime_error(
        "offscreen rendering needs the EGL loader libEGL.so.1, which was not found (Debian/Ubuntu: "
        "libegl1, plus libegl-mesa0 and libgl1-mesa-dri without an NVIDIA driver)");
  }
  if (!GLAD_EGL_EXT_platform_base || !eglGetPlatformDisplayEXT) {
    throw std::runtime_error("this EGL has no EGL_EXT_platform_base: it cannot open a display without X");
  }

  EGLDisplay display = EGL_NO_DISPLAY;
  std::string platform;
  const std::vector<EGLDeviceEXT> devices = egl_devices();
  // 1. The EGL device that is our CUDA device: the renderer and the simulation share one GPU.
  if (cuda_device >= 0) {
    for (EGLDeviceEXT device : devices) {
      if (cuda_ordinal_of(device) != cuda_device) continue;
      display = initialized_display(EGL_PLATFORM_DEVICE_EXT, device);
      if (display != EGL_NO_DISPLAY) {
        platform = "EGL device platform (CUDA device " + std::to_string(cuda_device) + ")";
        on_cuda_device_ = true;
        break;
      }
    }
  }
  // 2. Mesa without a display server.
  if (display == EGL_NO_DISPLAY && GLAD_EGL_MESA_platform_surfaceless) {
    display = initialized_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY);
    if (display != EGL_NO_DISPLAY) platform = "EGL surfaceless platform";
  }
  // 3. Any EGL device (an NVIDIA driver without surfaceless support, a CPU-only run on a GPU machine).
  for (std::size_t k = 0; display == EGL_NO_DISPLAY && k < devices.size(); ++k) {
    display = initialized_display(EGL_PLATFORM_DEVICE_EXT, devices[k]);
    if (display != EGL_NO_DISPLAY) platform = "EGL device platform (device " + std::to_string(k) + ")";
  }
  if (display == EGL_NO_DISPLAY) {
    throw std::runtime_error(
        "no EGL display without X: neither an EGL device nor Mesa's surfaceless "
        "platform could be initialised (" +
        egl_error_text() + ")");
  }
  display_ = display;
  // Now that a display exists, load the display's extensions and EGL 1.5 entry points.
  if (!gladLoaderLoadEGL(display)) throw std::runtime_error("cannot load EGL functions for the display");
  if (!eglBindAPI(EGL_OPENGL_API)) throw std::runtime_error("EGL has no desktop OpenGL: " + egl_error_text());

  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!GLAD_EGL_KHR_no_config_context || !GLAD_EGL_KHR_surfaceless_context) {
    const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                        EGL_OPENGL_BIT, EGL_NONE};
    EGLint count = 0;
    if (!eglChooseConfig(display, config_attributes, &config, 1, &count) || count < 1) {
      throw std::runtime_error("no EGL config for desktop OpenGL with a pbuffer: " + egl_error_text());
    }
  }
  // 4.6 where the driver has it (NVIDIA), else 4.5 (Mesa llvmpipe): the renderer needs 4.5 core.
  for (int minor : {6, 5}) {
    const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                         4,
                                         EGL_CONTEXT_MINOR_VERSION,
                                         minor,
                                         EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                         EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                         EGL_NONE};
    context_ = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context_ != EGL_NO_CONTEXT) break;
  }
  if (context_ == EGL_NO_CONTEXT) {
    context_ = nullptr;
    throw std::runtime_error("EGL cannot create an OpenGL 4.5 core context: " + egl_error_text());
  }
  EGLSurface surface = EGL_NO_SURFACE;
  if (config != EGL_NO_CONFIG_KHR) {
    const EGLint pbuffer_attributes[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface = eglCreatePbufferSurface(display, config, pbuffer_attributes);
    surface_ = surface;
  }
  if (!eglMakeCurrent(display, surface, surface, context_)) {
    throw std::runtime_error("eglMakeCurrent failed: " + egl_error_text());
  }
  if (!gladLoadGL(egl_proc_address)) throw std::runtime_error("cannot load OpenGL functions through EGL");
  description_ = platform + ", OpenGL " + reinterpret_cast<const char*>(glGetString(GL_VERSION)) + ", " +
                 reinterpret_cast<const char*>(glGetString(GL_RENDERER));
}

HeadlessGlContext::~HeadlessGlContext() {
  if (!display_) return;
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (surface_) eglDestroySurface(display_, surface_);
  if (context_) eglDestroyContext(display_, context_);
}

}  // namespace surge::render
