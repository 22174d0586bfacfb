/* faultshim.c — an LD_PRELOAD library for the fault-injection tests (tests/t-faults.sh):
 * the Nth allocation made by extflow's own code fails.
 *
 *   EXTFLOW_FAULT_AT=N        make the Nth eligible allocation return NULL (posix_memalign:
 *                             ENOMEM); 0 or unset: none fails, the shim only counts
 *   EXTFLOW_FAULT_REPORT=F    at exit, write "COUNT INJECTED" to F: how many eligible
 *                             allocations were made, and 1 if the Nth one was failed
 *
 * Eligible: malloc, calloc, realloc (size > 0), aligned_alloc and posix_memalign called directly
 * from the main program or from libzstd, the code that promises to handle a failed allocation.
 * Calls from StarPU, M4RI and libc are passed through: StarPU and M4RI abort on a failed
 * allocation by design (StarPU's _STARPU_MALLOC asserts, M4RI's m4ri_mm_malloc calls
 * m4ri_die), and libc's own calls (fopen, strdup) cannot be told apart by caller. The caller is
 * the return address of the wrapper, matched against the executable segments found at start.
 * The counter is atomic: StarPU's workers allocate concurrently.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static struct { uintptr_t lo, hi; } seg[16];
static int nseg;
static unsigned long fail_at;
static atomic_ulong counter;
static atomic_int injected;

static int add_object(struct dl_phdr_info *info, size_t size, void *first)
{
    (void)size;
    int main_program = *(int *)first;
    *(int *)first = 0;
    if (!main_program && !strstr(info->dlpi_name, "libzstd")) return 0;
    for (int i = 0; i < info->dlpi_phnum && nseg < 16; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
        seg[nseg].lo = info->dlpi_addr + p->p_vaddr;
        seg[nseg].hi = seg[nseg].lo + p->p_memsz;
        nseg++;
    }
    return 0;
}

__attribute__((constructor)) static void shim_start(void)
{
    const char *at = getenv("EXTFLOW_FAULT_AT");
    fail_at = at ? strtoul(at, NULL, 10) : 0;
    int first = 1;              /* dl_iterate_phdr lists the main program first */
    dl_iterate_phdr(add_object, &first);
}

__attribute__((destructor)) static void shim_report(void)
{
    const char *path = getenv("EXTFLOW_FAULT_REPORT");
    if (!path) return;
    char line[64];
    int n = snprintf(line, sizeof line, "%lu %d\n", atomic_load(&counter), atomic_load(&injected));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n) { /* the test sees a short report */ }
        close(fd);
    }
}

/* Counts an eligible call; 1 if this one must fail. */
static int should_fail(const void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    int ours = 0;
    for (int i = 0; i < nseg && !ours; i++) ours = a >= seg[i].lo && a < seg[i].hi;
    if (!ours) return 0;
    unsigned long n = atomic_fetch_add(&counter, 1) + 1;
    if (n != fail_at) return 0;
    atomic_store(&injected, 1);
    return 1;
}

void *malloc(size_t size)
{
    if (should_fail(__builtin_return_address(0))) return NULL;
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    if (should_fail(__builtin_return_address(0))) return NULL;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    if (size && should_fail(__builtin_return_address(0))) return NULL;
    return __libc_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    if (should_fail(__builtin_return_address(0))) return NULL;
    return __libc_memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (align % sizeof(void *) || (align & (align - 1))) return EINVAL;
    if (should_fail(__builtin_return_address(0))) return ENOMEM;
    void *p = __libc_memalign(align, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
