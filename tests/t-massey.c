/* t-massey.c — Massey products (stages/products/massey.h) on the resolution of S_2 through stem 26,
 * s <= 12, both algorithms, against independent answers:
 *   - <h3, h0^4, c> for every c (Adams periodicity) equals sseq's massey-S_2-P byte for byte;
 *   - the brackets of the sphere in the reference's products §7: <h0, h1, h0> = h1^2,
 *     <h1, h0, h1> = h0 h2, <h1, h2, h1> = h2^2, <h2, h1, h2> = h1 h3, <h2, h3, h2> = h3^2,
 *     <h3, h2, h3> = h2 h4, <h1, h0, h2^2> = c0 (all in one-dimensional groups, zero
 *     indeterminacy) and <h0, h1, h2^2> = 0;
 *   - a·b != 0 is refused (<h0, h0, c>);
 *   - the StarPU DAG (rt_chain_runner over lift_chain_set) gives the serial run's table, also with every lift step's
 *     products in multiply tasks (EXTFLOW_LIFT_INLINE_PAIRS=0);
 *   - shared among 3 threads as ranks (massey_share), rank 0 gets the serial table, the others
 *     none, all with the same count of chain maps. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/products/massey.h"
#include "stages/resolve/step.h"
#include "tests/ref_products.h"
#include "tests/tap.h"

#define STEM 26
#define MAXS 12


static product_class h(int j)
{
    product_class c;
    char arg[8], err[200];
    snprintf(arg, sizeof arg, "h%d", j);
    if (products_parse_class(arg, &c, err, sizeof err) != 0) bail(err);
    return c;
}

static product_class cls(const char *arg)
{
    product_class c;
    char err[200];
    if (products_parse_class(arg, &c, err, sizeof err) != 0) bail(err);
    return c;
}

static char *sseq_text(const massey_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f || massey_write_sseq(f, t) != 0) bail("massey_write_sseq");
    fclose(f);
    return buf;
}

/* The bracket <a, b, c> for the basis class c = [1] at (n, s) of a one-dimensional group. */
static const massey_bracket *find(const massey_table *t, int n, int s)
{
    for (size_t k = 0; k < t->n; k++)
        if (t->b[k].cn == n && t->b[k].cs == s && t->b[k].clen == 1 && t->b[k].c[0]) return &t->b[k];
    return NULL;
}

/* <a, b, c> at c = (cn, cs) is the generator of the one-dimensional group at (n, s), with
 * zero indeterminacy (want = 1), or contains 0 (want = 0). */
static void bracket_is(const resolution *res, const char *alg, product_class a, product_class b, int cn, int cs, int n,
                       int s, int want, const char *what)
{
    massey_table t;
    char err[700];
    int rc = massey_compute(res, res, &a, &b, "", &chain_serial, NULL, &t, err, sizeof err);
    const massey_bracket *br = rc == 0 ? find(&t, cn, cs) : NULL;
    int good = br && br->n == n && br->s == s && br->dim == 1 && br->nindet == 0 && br->rep[0] == want;
    ok(good, "%s: %s", alg, what);
    if (!good) diag("rc %d (%s), bracket %s, at (%d, %d) dim %u indet %u", rc, rc ? err : "", br ? "found" : "missing",
                    br ? br->n : -1, br ? br->s : -1, br ? br->dim : 0, br ? br->nindet : 0);
    massey_table_clear(&t);
}

static int same_table(const massey_table *a, const massey_table *b)
{
    int same = a->n == b->n;
    for (size_t k = 0; same && k < a->n; k++) {
        const massey_bracket *x = &a->b[k], *y = &b->b[k];
        same = x->cn == y->cn && x->cs == y->cs && x->dim == y->dim && x->nindet == y->nindet &&
               !memcmp(x->c, y->c, x->clen) && !memcmp(x->rep, y->rep, x->dim) &&
               !memcmp(x->indet, y->indet, (size_t)x->nindet * x->dim);
    }
    return same;
}

/* Threads as ranks (massey_share): allgather through a barrier. */
#define RANKS 3
static pthread_barrier_t gate;
static const void *gathered[RANKS];
static size_t gathered_len[RANKS];
static _Thread_local int thread_rank;

static int thread_allgather(const void *mine, size_t len, void **all, size_t *alllen)
{
    gathered[thread_rank] = mine, gathered_len[thread_rank] = len;
    pthread_barrier_wait(&gate);
    size_t total = 0;
    for (int r = 0; r < RANKS; r++) total += gathered_len[r];
    unsigned char *p = malloc(total + 1);
    for (size_t r = 0, off = 0; p && r < RANKS; off += gathered_len[r++]) memcpy(p + off, gathered[r], gathered_len[r]);
    pthread_barrier_wait(&gate);                 /* every copy made before a buffer is freed */
    *all = p, *alllen = total;
    return p ? 0 : -1;
}

typedef struct rank_job {
    const resolution *res;
    product_class a, b;
    massey_share share;
    massey_table t;
    int rc;
} rank_job;

static void *rank_main(void *v)
{
    rank_job *j = v;
    char err[700];
    thread_rank = j->share.rank;
    j->rc = massey_compute(j->res, j->res, &j->a, &j->b, "", &chain_serial, &j->share, &j->t, err, sizeof err);
    return NULL;
}

/* <a, b, c> shared among RANKS threads: rank 0's table is want's, the others' empty. */
static int shared_is(const resolution *res, product_class a, product_class b, const massey_table *want)
{
    rank_job jobs[RANKS];
    pthread_t th[RANKS];
    pthread_barrier_init(&gate, NULL, RANKS);
    for (int r = 0; r < RANKS; r++) {
        jobs[r] = (rank_job){ res, a, b, { r, RANKS, thread_allgather }, { 0 }, -1 };
        if (pthread_create(&th[r], NULL, rank_main, &jobs[r]) != 0) bail("pthread_create");
    }
    int good = 1;
    for (int r = 0; r < RANKS; r++) {
        pthread_join(th[r], NULL);
        good &= jobs[r].rc == 0 && jobs[r].t.lifts == want->lifts && (r ? jobs[r].t.n == 0 : same_table(&jobs[r].t, want));
        massey_table_clear(&jobs[r].t);
    }
    pthread_barrier_destroy(&gate);
    return good;
}

static void check(int algorithm, const char *alg)
{
    resolution res;
    char err[700];
    if (res_init(&res, REGION_STEM, STEM, MAXS, 0, "", 0, algorithm) != 0) bail("res_init");
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    if (res_run(&res, &rt_chain_runner) != 0) bail("res_run");

    product_class h3 = h(3), h0_4 = cls("h0_4=0,4");
    massey_table serial, dag;
    int rc = massey_compute(&res, &res, &h3, &h0_4, "", &chain_serial, NULL, &serial, err, sizeof err);
    ok(rc == 0 && serial.n > 30, "%s: <h3, h0^4, c> for %zu classes c (%ld chain maps)", alg, serial.n, serial.lifts);
    char *text = sseq_text(&serial);
    ok(!strcmp(text, read_ref("massey-S_2-P")), "%s: equal to sseq's massey-S_2-P byte for byte", alg);
    free(text);
    int rc2 = massey_compute(&res, &res, &h3, &h0_4, "", &rt_chain_runner, NULL, &dag, err, sizeof err);
    ok(rc2 == 0 && same_table(&dag, &serial), "%s: the StarPU DAG gives the serial table", alg);
    massey_table_clear(&dag);
    setenv("EXTFLOW_LIFT_INLINE_PAIRS", "0", 1);     /* every f(d z) through multiply tasks */
    rc2 = massey_compute(&res, &res, &h3, &h0_4, "", &rt_chain_runner, NULL, &dag, err, sizeof err);
    unsetenv("EXTFLOW_LIFT_INLINE_PAIRS");
    ok(rc2 == 0 && same_table(&dag, &serial), "%s: with every lift step's products in multiply tasks too", alg);
    ok(shared_is(&res, h3, h0_4, &serial), "%s: shared among %d threads as ranks, rank 0 gets the serial table", alg,
       RANKS);
    massey_table_clear(&serial);
    massey_table_clear(&dag);

    bracket_is(&res, alg, h(0), h(1), 0, 1, 2, 2, 1, "<h0, h1, h0> = h1^2 at (2, 2)");
    bracket_is(&res, alg, h(1), h(0), 1, 1, 3, 2, 1, "<h1, h0, h1> = h0 h2 at (3, 2)");
    bracket_is(&res, alg, h(1), h(2), 1, 1, 6, 2, 1, "<h1, h2, h1> = h2^2 at (6, 2)");
    bracket_is(&res, alg, h(2), h(1), 3, 1, 8, 2, 1, "<h2, h1, h2> = h1 h3 at (8, 2)");
    bracket_is(&res, alg, h(2), h(3), 3, 1, 14, 2, 1, "<h2, h3, h2> = h3^2 at (14, 2)");
    bracket_is(&res, alg, h(3), h(2), 7, 1, 18, 2, 1, "<h3, h2, h3> = h2 h4 at (18, 2)");
    bracket_is(&res, alg, h(1), h(0), 6, 2, 8, 3, 1, "<h1, h0, h2^2> = c0 at (8, 3)");
    bracket_is(&res, alg, h(0), h(1), 6, 2, 8, 3, 0, "<h0, h1, h2^2> contains 0");

    product_class h0 = h(0);
    massey_table t;
    rc = massey_compute(&res, &res, &h0, &h0, "", &chain_serial, NULL, &t, err, sizeof err);
    ok(rc == 1 && strstr(err, "not zero"), "%s: <h0, h0, c> is refused: %s", alg, err);
    rt_shutdown();
    res_clear(&res);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(2 * 14);
    check(ALG_STANDARD, "standard");
    check(ALG_NASSAU, "nassau");
    return done_testing();
}
