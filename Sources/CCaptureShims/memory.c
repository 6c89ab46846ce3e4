#include <malloc.h>

#include "CCaptureShims.h"

long long bleinspect_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long long)info.uordblks;
#else
    return -1;
#endif
}
