// fopencookie is a glibc extension; it must be requested before any system header.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "CCaptureShims.h"

typedef struct {
    void *context;
    bleinspect_read_fn read;
    long long offset;
} reader_cookie;

static ssize_t reader_read(void *raw, char *buf, size_t size) {
    reader_cookie *c = raw;
    ssize_t n = c->read(c->context, buf, size);
    if (n > 0) c->offset += n;
    return n;
}

// Only "where am I" is supported, so that ftell works on pipes too.
static int reader_seek(void *raw, off64_t *pos, int whence) {
    reader_cookie *c = raw;
    if (whence == SEEK_CUR && *pos == 0) {
        *pos = (off64_t)c->offset;
        return 0;
    }
    errno = ESPIPE;
    return -1;
}

static int reader_close(void *raw) {
    free(raw);
    return 0;
}

FILE *bleinspect_fopen_reader(void *context, bleinspect_read_fn read, long long start_offset) {
    reader_cookie *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->context = context;
    c->read = read;
    c->offset = start_offset;
    cookie_io_functions_t io = {.read = reader_read, .write = NULL, .seek = reader_seek, .close = reader_close};
    FILE *f = fopencookie(c, "r", io);
    if (f == NULL) {
        free(c);
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    return f;
}

ssize_t bleinspect_recv_stamped(int fd, void *buf, size_t len, int flags, int64_t *seconds, int64_t *microseconds,
                                int *has_time) {
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    union {
        char bytes[CMSG_SPACE(sizeof(struct timeval)) + 64];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof control.bytes;
    *has_time = 0;
    ssize_t n = recvmsg(fd, &msg, flags | MSG_TRUNC);
    if (n < 0) return n;
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
        if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_TIMESTAMP &&
            cmsg->cmsg_len >= CMSG_LEN(sizeof(struct timeval))) {
            struct timeval tv;
            memcpy(&tv, CMSG_DATA(cmsg), sizeof tv);
            *seconds = (int64_t)tv.tv_sec;
            *microseconds = (int64_t)tv.tv_usec;
            *has_time = 1;
        }
    }
    return n;
}

static atomic_uint stop_hint;

void bleinspect_stop_hint_bump(void) { atomic_fetch_add_explicit(&stop_hint, 1, memory_order_release); }

unsigned bleinspect_stop_hint(void) { return atomic_load_explicit(&stop_hint, memory_order_acquire); }

int bleinspect_install_signal(int signo, void (*handler)(int)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    if (sigaction(signo, &sa, NULL) != 0) return -1;
    // A parent may have started us with the signal blocked (some test runners do).
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signo);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0 ? 0 : -1;
}
