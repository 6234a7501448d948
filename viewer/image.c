/* SPDX-License-Identifier: MIT */
/* Screenshots and frame sequences: read the renderer's pixels, write PNG with stb_image_write. */
#define _POSIX_C_SOURCE 200809L
#include "cfview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

bool cfv_write_png(SDL_Renderer *r, const char *path, cfError *err)
{
    int w = 0, h = 0;
    if (SDL_GetRendererOutputSize(r, &w, &h) != 0 || w <= 0 || h <= 0) {
        cf_error_set(err, CF_IO_ERROR, "cannot read the image size: %s", SDL_GetError());
        return false;
    }
    unsigned char *px = malloc((size_t)w * (size_t)h * 3);
    if (!px) {
        cf_error_set(err, CF_NO_MEMORY, "out of memory for a %dx%d screenshot", w, h);
        return false;
    }
    bool ok = false;
    /* zlib level 2 and the "sub" filter on every row instead of stb's level 8 trying all five
       filters: 2.5 times fewer instructions per shot (make demos-check writes one per demo), files
       about 15 % larger */
    stbi_write_png_compression_level = 2;
    stbi_write_force_png_filter = 1;
    if (SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGB24, px, w * 3) != 0) {
        cf_error_set(err, CF_IO_ERROR, "cannot read the pixels: %s", SDL_GetError());
    } else {
        errno = 0;
        if (stbi_write_png(path, w, h, 3, px, w * 3)) ok = true;
        else
            cf_error_set(err, CF_IO_ERROR, "cannot write %s: %s", path, errno ? strerror(errno) : "write failed");
    }
    free(px);
    return ok;
}

/* folder part of a path ("." when there is none) */
static void folder_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

bool cfv_path_writable(const char *path, cfError *err)
{
    if (!path || !*path) {
        cf_error_set(err, CF_BAD_INPUT, "empty file name");
        return false;
    }
    char dir[1024];
    folder_of(path, dir, sizeof dir);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cf_error_set(err, CF_IO_ERROR, "cannot write %s: folder %s does not exist", path, dir);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cf_error_set(err, CF_IO_ERROR, "cannot write %s: folder %s is not writable", path, dir);
        return false;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cf_error_set(err, CF_IO_ERROR, "cannot write %s: it is a folder", path);
            return false;
        }
        if (access(path, W_OK) != 0) {
            cf_error_set(err, CF_IO_ERROR, "cannot write %s: %s", path, strerror(errno));
            return false;
        }
    }
    return true;
}

bool cfv_dir_ready(const char *dir, cfError *err)
{
    char buf[1024];
    if (!dir || !*dir || strlen(dir) >= sizeof buf) {
        cf_error_set(err, CF_BAD_INPUT, "bad folder name");
        return false;
    }
    snprintf(buf, sizeof buf, "%s", dir);
    /* mkdir -p */
    for (char *p = buf + 1;; ++p) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                cf_error_set(err, CF_IO_ERROR, "cannot create folder %s: %s", buf, strerror(errno));
                return false;
            }
            *p = c;
            if (c == 0) break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cf_error_set(err, CF_IO_ERROR, "%s is not a folder", dir);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cf_error_set(err, CF_IO_ERROR, "folder %s is not writable", dir);
        return false;
    }
    return true;
}
