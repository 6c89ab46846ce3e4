// fopencookie is a glibc extension; it must be requested before any system header.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "CCaptureShims.h"

typedef struct {
    int fd;
    int close_fd;
    unsigned char *prefix;
    size_t prefix_len;
    size_t prefix_pos;
    long long offset;
} prefixed_cookie;

static ssize_t prefixed_read(void *raw, char *buf, size_t size) {
    prefixed_cookie *c = raw;
    if (c->prefix_pos < c->prefix_len) {
        size_t left = c->prefix_len - c->prefix_pos;
        size_t n = left < size ? left : size;
        memcpy(buf, c->prefix + c->prefix_pos, n);
        c->prefix_pos += n;
        c->offset += (long long)n;
        return (ssize_t)n;
    }
    for (;;) {
        ssize_t n = read(c->fd, buf, size);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) c->offset += n;
        return n;
    }
}

// Only "where am I" is supported, so that ftell works on pipes too.
static int prefixed_seek(void *raw, off64_t *pos, int whence) {
    prefixed_cookie *c = raw;
    if (whence == SEEK_CUR && *pos == 0) {
        *pos = (off64_t)c->offset;
        return 0;
    }
    errno = ESPIPE;
    return -1;
}

static int prefixed_close(void *raw) {
    prefixed_cookie *c = raw;
    int rc = 0;
    if (c->close_fd) rc = close(c->fd);
    free(c->prefix);
    free(c);
    return rc;
}

FILE *bleinspect_fopen_prefixed(int fd, const unsigned char *prefix, size_t prefix_len, int close_fd) {
    prefixed_cookie *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    if (prefix_len > 0) {
        c->prefix = malloc(prefix_len);
        if (c->prefix == NULL) {
            free(c);
            return NULL;
        }
        memcpy(c->prefix, prefix, prefix_len);
    }
    c->fd = fd;
    c->close_fd = close_fd;
    c->prefix_len = prefix_len;
    cookie_io_functions_t io = {.read = prefixed_read, .write = NULL, .seek = prefixed_seek, .close = prefixed_close};
    FILE *f = fopencookie(c, "r", io);
    if (f == NULL) {
        free(c->prefix);
        free(c);
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}
