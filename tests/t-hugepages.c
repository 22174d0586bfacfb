/* t-hugepages.c — large matrices are advised onto transparent huge pages (algebra/f2mat.c): the
 * 2 MB-aligned interior of an f2mat of F2MAT_HUGE_MIN bytes or more lies in a mapping flagged
 * "hg" (MADV_HUGEPAGE, /proc/self/smaps VmFlags), whether the kernel then finds huge pages or
 * not; a smaller one is not advised, nor any under EXTFLOW_HUGEPAGES=0. Each case runs in a
 * child process (the switch is read once). Skipped where the kernel has no THP. */
#include "algebra/f2mat.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* 1 when the mapping holding address a has the "hg" flag, 0 when not, -1 when not found. */
static int flagged_huge(uintptr_t a)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, r = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = a >= lo && a < hi;
            continue;
        }
        if (in && strncmp(line, "VmFlags:", 8) == 0) {
            r = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return r;
}

/* In a child: EXTFLOW_HUGEPAGES as given (NULL: unset), then a rows x cols matrix; exit status
 * is flagged_huge of its first 2 MB-aligned address (+ 1, so 0 means not found). */
static int child(const char *env, uint32_t rows, uint32_t cols)
{
    pid_t pid = fork();
    if (pid < 0) bail("fork");
    if (pid == 0) {
        if (env) setenv("EXTFLOW_HUGEPAGES", env, 1);
        else unsetenv("EXTFLOW_HUGEPAGES");
        f2mat m;
        if (f2mat_init(&m, rows, cols) != 0) _exit(9);
        const uintptr_t huge = (uintptr_t)2 << 20;
        uintptr_t lo = ((uintptr_t)m.data + huge - 1) & ~(huge - 1);
        if (lo + huge > (uintptr_t)m.data + f2mat_bytes(&m)) lo = (uintptr_t)m.data;   /* too small for one */
        _exit(flagged_huge(lo) + 1);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) bail("child");
    return WEXITSTATUS(st) - 1;
}

int main(void)
{
#if defined(__SANITIZE_ADDRESS__)
    skip_all("AddressSanitizer's allocator: its blocks are not malloc's");
#endif
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) != 0) skip_all("no transparent huge pages");
    plan(4);
    ok(child(NULL, 4096, 8192) == 1, "a 4096 x 8192 matrix (4 MB): advised onto huge pages");
    ok(child(NULL, 16384, 16384) == 1, "a 16384 x 16384 matrix (32 MB): advised onto huge pages");
    ok(child(NULL, 1024, 1024) == 0, "a 1024 x 1024 matrix (128 KB): left alone");
    ok(child("0", 16384, 16384) == 0, "EXTFLOW_HUGEPAGES=0: a 32 MB matrix left alone");
    return done_testing();
}
