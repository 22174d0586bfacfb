/* memacct.c — the memory account's counters (memacct.h). */
#include "algebra/memacct.h"
#include <stdatomic.h>
#include <sys/resource.h>

static _Atomic int64_t current[MEM_NKINDS], peak[MEM_NKINDS], total, total_peak;

static void raise_peak(_Atomic int64_t *p, int64_t v)
{
    int64_t old = atomic_load_explicit(p, memory_order_relaxed);
    while (v > old && !atomic_compare_exchange_weak_explicit(p, &old, v, memory_order_relaxed, memory_order_relaxed))
        ;
}

void memacct_add(enum mem_kind kind, int64_t bytes)
{
    int64_t now = atomic_fetch_add_explicit(&current[kind], bytes, memory_order_relaxed) + bytes;
    int64_t sum = atomic_fetch_add_explicit(&total, bytes, memory_order_relaxed) + bytes;
    if (bytes > 0) {
        raise_peak(&peak[kind], now);
        raise_peak(&total_peak, sum);
    }
}

void memacct_move(enum mem_kind from, enum mem_kind to, int64_t bytes)
{
    atomic_fetch_sub_explicit(&current[from], bytes, memory_order_relaxed);
    raise_peak(&peak[to], atomic_fetch_add_explicit(&current[to], bytes, memory_order_relaxed) + bytes);
}

int64_t memacct_current(enum mem_kind kind) { return atomic_load_explicit(&current[kind], memory_order_relaxed); }
int64_t memacct_peak(enum mem_kind kind) { return atomic_load_explicit(&peak[kind], memory_order_relaxed); }
int64_t memacct_total(void) { return atomic_load_explicit(&total, memory_order_relaxed); }
int64_t memacct_total_peak(void) { return atomic_load_explicit(&total_peak, memory_order_relaxed); }

const char *memacct_name(enum mem_kind kind)
{
    static const char *const names[MEM_NKINDS] = { "differentials", "kernels", "in_flight",
                                                   "milnor_tables", "starpu", "committer_queue" };
    return kind < MEM_NKINDS ? names[kind] : "?";
}

void memacct_reset(void)
{
    for (int k = 0; k < MEM_NKINDS; k++) {
        atomic_store(&current[k], 0);
        atomic_store(&peak[k], 0);
    }
    atomic_store(&total, 0);
    atomic_store(&total_peak, 0);
}

int64_t memacct_peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (int64_t)ru.ru_maxrss * 1024 : 0;
}

void memacct_print(FILE *f)
{
    static const char *const what[MEM_NKINDS] = {
        "differentials (F_s images)", "kernels in slots", "bidegrees in flight",
        "Milnor tables (+ flat copy)", "StarPU (handles, tasks)", "committer queue" };
    const double mb = 1024.0 * 1024.0;
    int64_t rss = memacct_peak_rss(), sum = memacct_total_peak();
    fprintf(f, "extflow: memory account, MB        at end     peak\n");
    for (int k = 0; k < MEM_NKINDS; k++)
        fprintf(f, "  %-30s %9.1f %9.1f\n", what[k], (double)memacct_current((enum mem_kind)k) / mb,
                (double)memacct_peak((enum mem_kind)k) / mb);
    fprintf(f, "  %-30s %9.1f %9.1f\n", "sum of the kinds", (double)memacct_total() / mb, (double)sum / mb);
    fprintf(f, "  %-30s %9s %9.1f\n", "peak RSS", "", (double)rss / mb);
    fprintf(f, "  %-30s %9s %9.1f\n", "rest (peak RSS - peak sum)", "", (double)(rss - sum) / mb);
}
