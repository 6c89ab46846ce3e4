#ifndef BLEINSPECT_CCAPTURESHIMS_H
#define BLEINSPECT_CCAPTURESHIMS_H

#include <stddef.h>
#include <stdio.h>

/// Opens a read-only stdio stream that first yields `prefix` (copied) and then the rest of `fd`.
///
/// Used to hand libpcap a stream whose first bytes were already read for format detection, which
/// works for pipes and standard input as well as files. `ftell` on the stream reports the logical
/// offset from the start of the capture. When `close_fd` is non-zero, closing the stream closes
/// `fd`. Returns NULL with errno set on failure.
FILE *bleinspect_fopen_prefixed(int fd, const unsigned char *prefix, size_t prefix_len, int close_fd);

#endif
