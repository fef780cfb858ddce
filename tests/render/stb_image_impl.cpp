// stb_image's implementation, for the tests that decode the PNGs Surge writes.
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
