/* t-malloc-policy.c — malloc's thresholds under a resolve (runtime/runpolicy.h runpolicy_malloc):
 * without --memory a matrix below 32 MB comes from malloc's heap and, freed, stays there for the
 * next one (no fresh pages to fault in); under an explicit --memory one of 4 MB or more comes
 * from mmap and goes back when freed; EXTFLOW_MMAP_THRESHOLD=0 sets nothing. The placement is
 * read from mallinfo2 (hblkhd: bytes in mmapped blocks). Each case runs in a child process,
 * since glibc's thresholds cannot be unset. */
#include "runtime/runpolicy.h"
#include "tests/tap.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: set the policy, then allocate, touch and free a block of `bytes`. Exit status:
 * bit 0 = it came from mmap, bit 1 = once freed, it is still free heap memory (kept for the next
 * allocation, not trimmed); 8 when the threshold returned was not `expect`. */
static int placement(int explicit_budget, const char *env, size_t bytes, uint64_t expect)
{
    pid_t pid = fork();
    if (pid < 0) bail("fork");
    if (pid == 0) {
        uint64_t got = runpolicy_malloc(explicit_budget, env);
        if (got != expect) _exit(8);
        size_t before = mallinfo2().hblkhd;
        char *p = malloc(bytes);
        if (!p) _exit(4);
        memset(p, 1, bytes);
        size_t during = mallinfo2().hblkhd;
        free(p);
        _exit((during > before) | (mallinfo2().fordblks >= bytes) << 1);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) bail("child");
    return WEXITSTATUS(st);
}

int main(void)
{
#if defined(__SANITIZE_ADDRESS__)
    skip_all("AddressSanitizer replaces malloc: glibc's thresholds do not apply");
#endif
    plan(6);
    ok(placement(0, NULL, 20u << 20, RUNPOLICY_MMAP_SPEED) == 2, "no --memory: a 20 MB matrix from the heap, kept there once freed");
    ok(placement(0, NULL, 40u << 20, RUNPOLICY_MMAP_SPEED) == 1, "no --memory: a 40 MB one from mmap");
    ok(placement(1, NULL, 20u << 20, 4u << 20) == 1, "--memory: a 20 MB matrix from mmap");
    ok(placement(1, NULL, 1u << 20, 4u << 20) == 0, "--memory: a 1 MB one from the heap, given back once freed");
    ok(placement(0, "8M", 12u << 20, 8u << 20) == 1, "EXTFLOW_MMAP_THRESHOLD=8M: a 12 MB matrix from mmap");
    ok(placement(0, "0", 1u << 20, 0) == 1, "EXTFLOW_MMAP_THRESHOLD=0: nothing set, glibc's first threshold (128 KB) mmaps 1 MB");
    return done_testing();
}
