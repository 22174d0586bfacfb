/* t-team.c — a parallel loop whose helpers join while it runs (algebra/team.h), and our M4RM
 * shared with one (f2mat_rref_m4rm_team, f2mat_rref_team, f2mat_rref_augmented_team): every
 * item runs once whoever joins; members that arrive late or after the close do no harm; the
 * shared reduction equals the one alone and plain Gauss-Jordan bit for bit (pivots too) on
 * random matrices of many shapes, densities and ranks, with 2, 3, 5 and 8 threads. */
#include "algebra/f2mat.h"
#include "algebra/team.h"
#include "tests/tap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static uint64_t rs = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)       /* splitmix64 */
{
    uint64_t z = (rs += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* rows x cols, 1/2^dens of the bits set; rank at most `rank` when rank < rows (a product). */
static void make(f2mat *m, uint32_t rows, uint32_t cols, int dens, uint32_t rank)
{
    if (f2mat_init(m, rows, cols)) bail("out of memory");
    if (rank && rank < rows) {
        f2mat f;
        make(&f, rank, cols, dens, 0);
        for (uint32_t i = 0; i < rows; i++)
            for (uint32_t k = 0; k < rank; k++)
                if (rnd() & 1) f2vec_xor(f2mat_row(m, i), f2mat_row(&f, k), f2vec_words(cols));
        f2mat_clear(&f);
        return;
    }
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t c = 0; c < cols; c++) {
            uint64_t x = rnd();
            for (int d = 0; d < dens; d++) x &= rnd();
            if (x & 1) f2mat_flip(m, i, c);
        }
}

static _Atomic uint32_t hits[5000];
static void count_item(void *arg, uint32_t i)
{
    (void)arg;
    hits[i]++;
    if (i % 97 == 0) usleep(200);       /* slow items, so that members take some */
}

/* A member that arrives late: a pthread that sleeps first. */
static void *late_member(void *arg)
{
    usleep(3000);
    team_join(arg);
    team_release(arg);
    return NULL;
}

int main(void)
{
    plan(9);
    /* 1. the loop alone (NULL team) and with members */
    memset(hits, 0, sizeof hits);
    team_for(NULL, 1000, count_item, NULL);
    int once = 1;
    for (int i = 0; i < 1000; i++) once &= hits[i] == 1;
    ok(once, "team_for without a team runs each of 1000 items once");
    team *t = team_with_threads(4);
    int all = t != NULL;
    for (int round = 0; round < 20 && t; round++) {
        memset(hits, 0, sizeof hits);
        uint32_t n = (uint32_t)(round * 250 % 4999) + 1;
        team_for(t, n, count_item, NULL);
        for (uint32_t i = 0; i < n; i++) all &= hits[i] == 1;
        for (uint32_t i = n; i < 5000; i++) all &= hits[i] == 0;
    }
    uint64_t by_members = t ? team_member_items(t) : 0;
    team_stop_threads(t);
    ok(all && by_members > 0, "20 loops of 1 to 4751 items with 3 member threads: each item once (%llu by members)",
       (unsigned long long)by_members);
    /* 2. a member that joins late, and one that arrives after the close */
    t = team_new(2);
    pthread_t late, after;
    int started = pthread_create(&late, NULL, late_member, t) == 0;
    memset(hits, 0, sizeof hits);
    for (int round = 0; round < 10; round++) team_for(t, 500, count_item, NULL);
    int tens = 1;
    for (int i = 0; i < 500; i++) tens &= hits[i] == 10;
    team_close(t);
    int started2 = pthread_create(&after, NULL, late_member, t) == 0;
    team_release(t);
    if (started) pthread_join(late, NULL);
    if (started2) pthread_join(after, NULL);
    ok(started && started2 && tens, "a member joining late and one after the close: every item of 10 loops once, "
       "both return, the team freed by the last release");
    /* 3. our M4RM shared: against alone and against plain Gauss-Jordan */
    static const struct { uint32_t rows, cols; int dens; uint32_t rank; } shapes[] = {
        { 3000, 3000, 0, 0 }, { 5000, 1200, 1, 0 }, { 1200, 6000, 2, 0 }, { 9000, 700, 3, 0 },
        { 4500, 4500, 4, 900 }, { 2100, 3000, 0, 1500 }, { 8200, 2000, 5, 0 }, { 100, 20000, 1, 0 },
    };
    static const uint32_t threads[] = { 2, 3, 5, 8 };
    int same_alone = 1, same_naive = 1, same_aug = 1;
    uint64_t helped = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        f2mat a, ref, own, sh;
        make(&a, shapes[k].rows, shapes[k].cols, shapes[k].dens, shapes[k].rank);
        int32_t *pr = malloc(sizeof *pr * a.cols), *po = malloc(sizeof *po * a.cols), *ps = malloc(sizeof *ps * a.cols);
        if (!pr || !po || !ps || f2mat_copy(&ref, &a) || f2mat_copy(&own, &a)) bail("out of memory");
        int rr = f2mat_rref_naive(&ref, pr), ro = f2mat_rref_m4rm(&own, po);
        same_naive &= rr == ro && f2mat_equal(&ref, &own) && !memcmp(pr, po, sizeof *pr * a.cols);
        for (size_t q = 0; q < sizeof threads / sizeof *threads; q++) {
            team *tm = team_with_threads(threads[q]);
            if (f2mat_copy(&sh, &a)) bail("out of memory");
            int rs2 = f2mat_rref_m4rm_team(&sh, ps, tm);
            if (tm) helped += team_member_items(tm);
            team_stop_threads(tm);
            int same = rs2 == ro && f2mat_equal(&sh, &own) && !memcmp(ps, po, sizeof *ps * a.cols);
            if (!same) diag("differs: %ux%u density 1/2^%d, %u threads", a.rows, a.cols, shapes[k].dens, threads[q]);
            same_alone &= same;
            f2mat_clear(&sh);
        }
        /* [A | 0 | I] through the dispatch, with a team and without */
        if (a.rows <= 5000) {
            f2mat aug1, aug2;
            int32_t *p1, *p2;
            team *tm = team_with_threads(3);
            int r1 = f2mat_rref_augmented(&a, &aug1, &p1), r2 = f2mat_rref_augmented_team(&a, &aug2, &p2, tm);
            team_stop_threads(tm);
            same_aug &= r1 >= 0 && r1 == r2 && f2mat_equal(&aug1, &aug2) && !memcmp(p1, p2, sizeof *p1 * aug1.cols);
            f2mat_clear(&aug1), f2mat_clear(&aug2), free(p1), free(p2);
        }
        f2mat_clear(&a), f2mat_clear(&ref), f2mat_clear(&own);
        free(pr), free(po), free(ps);
    }
    ok(same_naive, "our M4RM alone equals plain Gauss-Jordan on 8 shapes (pivots too)");
    ok(same_alone && helped > 0, "shared with 2, 3, 5 and 8 threads: equal to alone on all 8 shapes, pivots too "
       "(%llu row blocks or scan chunks by members)", (unsigned long long)helped);
    ok(same_aug, "f2mat_rref_augmented_team with 3 threads equals f2mat_rref_augmented on [A | 0 | I]");
    /* 4. the dispatch keeps a small matrix alone, and team_with_threads(1) is no team */
    f2mat s1, s2;
    make(&s1, 40, 50, 1, 0);
    if (f2mat_copy(&s2, &s1)) bail("out of memory");
    team *tm = team_with_threads(4);
    int r1 = f2mat_rref(&s1, NULL), r2 = f2mat_rref_team(&s2, NULL, tm);
    uint64_t small_items = tm ? team_member_items(tm) : 1;
    team_stop_threads(tm);
    ok(r1 == r2 && f2mat_equal(&s1, &s2) && small_items == 0, "a 40 x 50 matrix with a team: reduced alone "
       "(below the naive cutoff), the same result");
    ok(team_with_threads(1) == NULL && team_with_threads(0) == NULL, "team_with_threads(1) and (0): no team");
    f2mat e1 = { 0 };
    ok(f2mat_rref_team(&e1, NULL, NULL) == 0, "an empty matrix: rank 0");
    f2mat_clear(&s1), f2mat_clear(&s2);
    return done_testing();
}
