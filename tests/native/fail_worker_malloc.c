/* LD_PRELOAD library for test_thread_safety: from a chosen moment on, malloc, calloc and realloc
 * fail on every thread but the process's main thread, as when memory runs out while worker
 * threads search. glibc's lazy allocation of a thread's block of a dlopen()ed library's
 * thread-locals goes through the same malloc, so a worker thread that first touches them after
 * that moment makes glibc abort the process ("cannot allocate memory for thread-local data"). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_llong fail_from_ns; /* 0: never fail */

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int failing(void) {
    long long from = atomic_load_explicit(&fail_from_ns, memory_order_relaxed);
    return from != 0 && now_ns() >= from && syscall(SYS_gettid) != getpid();
}

/* Called by the test (ctypes): worker-thread allocations fail from `seconds` from now on, or
 * never again for a negative `seconds`. */
void fail_worker_mallocs_after(double seconds) {
    atomic_store(&fail_from_ns, seconds < 0 ? 0 : now_ns() + (long long)(seconds * 1e9));
}

void *malloc(size_t n) { return failing() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t size) { return failing() ? NULL : __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return (failing() && n != 0) ? NULL : __libc_realloc(p, n); }
