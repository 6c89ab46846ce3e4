#ifndef BLEINSPECT_CCAPTURESHIMS_H
#define BLEINSPECT_CCAPTURESHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/// Reads up to `size` bytes for the stream into `buf`: the count read, 0 at the end, -1 on error
/// (with errno set).
typedef ssize_t (*bleinspect_read_fn)(void *context, char *buf, size_t size);

/// Opens a read-only stdio stream whose bytes come from `read(context, …)`.
///
/// Used to hand libpcap a stream that the caller feeds: the bytes already read for format
/// detection first, then the rest of a file, pipe, socket or live source, with the caller's own
/// waiting and stopping. `ftell` on the stream reports `start_offset` plus the bytes read, so it
/// works on pipes too. The caller keeps `context` alive until the stream is closed. Returns NULL
/// with errno set on failure.
FILE *bleinspect_fopen_reader(void *context, bleinspect_read_fn read, long long start_offset);

/// Receives one datagram from `fd` into `buf` with recvmsg, and the kernel's receive timestamp
/// (SO_TIMESTAMP) when one came with it. Returns the datagram's length as recvmsg does (with
/// MSG_TRUNC: the full length even when `buf` was too small), or -1 with errno set.
/// `*has_time` is set to 1 when `*seconds` and `*microseconds` hold a timestamp.
ssize_t bleinspect_recv_stamped(int fd, void *buf, size_t len, int flags, int64_t *seconds, int64_t *microseconds,
                                int *has_time);

/// Installs `handler` for `signo` with sigaction: no SA_RESTART (blocking calls return EINTR),
/// and SA_RESETHAND (a second signal has its default effect); and unblocks `signo` in case the
/// parent started the process with it blocked. Returns 0, or -1 with errno set.
int bleinspect_install_signal(int signo, void (*handler)(int));

/// A process-wide count of stop requests (signals and requests), bumped after the request's byte
/// is written to its pipe. Lock-free and async-signal-safe, so that a capture can see that no
/// stop is pending without a system call per frame.
void bleinspect_stop_hint_bump(void);
unsigned bleinspect_stop_hint(void);

/// The bytes the C heap has handed out and not taken back (glibc's mallinfo2 `uordblks`), or -1
/// where the C library does not say.
long long bleinspect_heap_in_use(void);

#endif
