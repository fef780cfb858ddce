// cuda_gl_interop.h includes <GL/gl.h>; Surge loads GL through glad, whose header must be the only GL
// header (BUILD-NOTES.md). This directory is on the include path of render/ only.
#pragma once
#include <glad/gl.h>
