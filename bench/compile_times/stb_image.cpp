// The peer: stb_image with only its PNM decoder, implementation included, one stbi_load.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNM
#include <stb/stb_image.h>

#include <cstdio>

int main(int argc, char** argv) {
    int w = 0, h = 0, n = 0;
    unsigned char* p = stbi_load(argc > 1 ? argv[1] : "image.ppm", &w, &h, &n, 0);
    std::printf("%u\n", p != nullptr ? unsigned{p[0]} : 0u);
    stbi_image_free(p);
}
