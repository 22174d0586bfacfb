/* extflow serve DIR: the spectral sequence's editor in a browser (docs/ss.md, "The editor").
 * libmicrohttpd serves DIR's chart with the editor script (ss/editor.js) and takes actions
 * over HTTP; every action goes through the session (tools/sssession.h), which checks it
 * against the model, and an accepted one is written to DIR/ss/history.jsonl durably before
 * the answer. One thread serves every request, so requests never run side by side. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools/sssession.h"

enum { PORT, BIND, PRODUCTS, MEMORY, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [PORT] = { "port", "P", "the TCP port (default 8040; 0: any free one, printed)", NULL, NULL },
    [BIND] = { "bind", "ADDR", "the IPv4 address to listen on (default 127.0.0.1: this machine only; any other "
               "is said loudly: every request still needs the token)", NULL, NULL },
    [PRODUCTS] = { "products", "LIST", "as for ss: the default product types", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for ss (the lifts of the product types)", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no line per accepted or refused action", NULL, NULL },
};

#ifdef EXTFLOW_SERVE
#include <arpa/inet.h>
#include <dirent.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <sys/random.h>
#include "algebra/clock.h"
#include "stages/out/chart.h"
#include "stages/out/manifest.h"
#include "stages/store/stagefile.h"

#define BODY_MAX (1u << 20)     /* the largest request body taken: a history of ~5000 lines */

extern const char ss_editor_js[];

typedef struct server {
    ss_session S;
    char token[33];
    ss_action *redo;            /* undone actions, the last undone last */
    int nredo, capredo;
    /* "resolve further": a thread runs resolve (and d2, when DIR had it) on DIR, then the
     * session is taken again; meanwhile requests that need the session get 503 */
    pthread_mutex_t lock;       /* held by a request, and by the thread when it takes DIR back */
    pthread_t worker;
    int resolving, have_worker, resolve_stem;
    char resolve_alg[32];       /* DIR's algorithm, for resolve's --algorithm */
    double resolve_began;
    char resolve_msg[600];
} server;

typedef struct request {        /* a POST body being received */
    char *body;
    size_t len;
    int too_big;
} request;

static int token_ok(const server *sv, struct MHD_Connection *c)
{
    const char *t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    if (!t) t = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Extflow-Token");
    if (!t || strlen(t) != strlen(sv->token)) return 0;
    unsigned diff = 0;          /* the same time whatever the first wrong character */
    for (size_t i = 0; t[i]; i++) diff |= (unsigned)(t[i] ^ sv->token[i]);
    return diff == 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *text, size_t len)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* The object o (taken: freed here) as the JSON answer. */
static enum MHD_Result reply_object(struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    enum MHD_Result rc = reply(c, status, "application/json", s ? s : "{}", s ? strlen(s) : 2);
    free(s);
    return rc;
}

/* {"ok": true} (key NULL) or {key: text} with status. */
static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, const char *key, const char *text)
{
    json_t *o = json_object();
    if (o && key) json_object_set_new(o, key, json_string(text));
    else if (o) json_object_set_new(o, "ok", json_true());
    return reply_object(c, status, o);
}

/* The chart of DIR with the editor script before </body>. */
static enum MHD_Result page(server *sv, struct MHD_Connection *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? chart_write_html(f, &sv->S.d.res) : -1;
    if (f) fclose(f);
    if (rc) {
        free(buf);
        return reply_json(c, 500, "error", "cannot render the chart");
    }
    char *end = strstr(buf, "</body>"), *icon = strstr(buf, "<head>");
    size_t head = end ? (size_t)(end - buf) : len, at = icon ? (size_t)(icon - buf) + 6 : 0;
    char *out = NULL;
    size_t olen = 0;
    FILE *o = open_memstream(&out, &olen);
    if (!o) {
        free(buf);
        return MHD_NO;
    }
    fwrite(buf, 1, at, o);         /* no icon to ask for (a request without the token) */
    fputs("\n<link rel=\"icon\" href=\"data:,\">", o);
    fwrite(buf + at, 1, head - at, o);
    fprintf(o, "<script>\n%s</script>\n", ss_editor_js);
    fputs(buf + head, o);
    fclose(o);
    free(buf);
    enum MHD_Result r = reply(c, 200, "text/html; charset=utf-8", out, olen);
    free(out);
    return r;
}

/* The stage files DIR/stages/differential holds: resolve's progress as the editor shows it. */
static long stage_files(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/stages/differential", dir);
    DIR *d = opendir(path);
    long n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".zst") && !strstr(e->d_name, ".tmp");
    closedir(d);
    return n;
}

static enum MHD_Result state(server *sv, struct MHD_Connection *c)
{
    int counts[6] = { 0 };
    if (!sv->resolving) ss_session_counts(&sv->S, counts);
    json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "actions", sv->S.nactions, "redo", sv->nredo, "given", counts[0],
                          "propagated", counts[1], "computed", counts[2], "settled", counts[4]);
    if (o && sv->resolving)
        json_object_set_new(o, "resolving", json_pack("{s:i,s:I,s:f}", "stem", sv->resolve_stem, "stage_files",
                                                      (json_int_t)stage_files(sv->S.dir), "seconds",
                                                      clock_now() - sv->resolve_began));
    if (o && sv->resolve_msg[0]) json_object_set_new(o, "resolved", json_string(sv->resolve_msg));
    return reply_object(c, 200, o);
}

static enum MHD_Result history(server *sv, struct MHD_Connection *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return MHD_NO;
    for (int i = 0; i < sv->S.nactions; i++) ss_history_write(f, &sv->S.actions[i]);
    fclose(f);
    enum MHD_Result rc = reply(c, 200, "application/x-ndjson", buf ? buf : "", len);
    free(buf);
    return rc;
}

/* The session's tables and history written (durably) after a change: 0, or 500 sent. */
static int persist(server *sv, char *err, size_t errlen)
{
    if (ss_session_write(&sv->S, err, errlen) == 0) return 0;
    fprintf(stderr, "extflow: serve: %s\n", err);
    return -1;
}

static void say(const char *what, const char *text)
{
    if (!opts[QUIET].arg) fprintf(stderr, "extflow: serve: %s%s%s\n", what, text ? ": " : "", text ? text : "");
}

static enum MHD_Result post_action(server *sv, struct MHD_Connection *c, const char *body)
{
    ss_action a;
    char err[4600];
    int line = sv->S.nactions + 1;
    int prc = ss_history_parse(body, line, &a, err, sizeof err);
    if (prc) {
        say("refused (400)", prc > 0 ? "an empty action" : err);
        return reply_json(c, 400, "error", prc > 0 ? "an empty action" : err);
    }
    if (a.type == SS_CONSTRUCT || a.type == SS_RESOLVE)
        return reply_json(c, 400, "error", "Construct and Resolve belong to a history's start; load a history instead");
    int rc = ss_session_add(&sv->S, &a, err, sizeof err);
    if (rc == CLI_USAGE) {
        say("refused (409)", err);
        return reply_json(c, 409, "error", err);
    }
    if (rc || persist(sv, err, sizeof err)) return reply_json(c, 500, "error", err);
    sv->nredo = 0;
    say("accepted", ss_action_name(a.type));
    return reply_json(c, 200, NULL, NULL);
}

static enum MHD_Result post_undo(server *sv, struct MHD_Connection *c)
{
    char err[4600];
    if (!sv->S.nactions) return reply_json(c, 409, "error", "nothing to undo");
    if (sv->nredo == sv->capredo) {
        int cap = sv->capredo ? 2 * sv->capredo : 16;
        ss_action *r = realloc(sv->redo, sizeof *r * (size_t)cap);
        if (!r) return reply_json(c, 500, "error", "out of memory");
        sv->redo = r;
        sv->capredo = cap;
    }
    ss_action last = sv->S.actions[sv->S.nactions - 1];
    if (ss_session_drop_last(&sv->S, err, sizeof err) || persist(sv, err, sizeof err))
        return reply_json(c, 500, "error", err);
    sv->redo[sv->nredo++] = last;
    say("undone", ss_action_name(last.type));
    return reply_json(c, 200, NULL, NULL);
}

static enum MHD_Result post_redo(server *sv, struct MHD_Connection *c)
{
    char err[4600];
    if (!sv->nredo) return reply_json(c, 409, "error", "nothing to redo");
    ss_action a = sv->redo[sv->nredo - 1];
    int rc = ss_session_add(&sv->S, &a, err, sizeof err);
    if (rc == CLI_USAGE) return reply_json(c, 409, "error", err);
    if (rc || persist(sv, err, sizeof err)) return reply_json(c, 500, "error", err);
    sv->nredo--;
    say("redone", ss_action_name(a.type));
    return reply_json(c, 200, NULL, NULL);
}

static void *resolve_worker(void *arg)
{
    server *sv = arg;
    const char *dir = sv->S.dir;
    char stem[32], module[4400], err[4600];
    snprintf(stem, sizeof stem, "%d", sv->resolve_stem);
    snprintf(module, sizeof module, "%s/%s", dir, MODULE_COPY_NAME);
    int have_d2 = 0;
    snprintf(err, sizeof err, "%s/d2.csv", dir);
    have_d2 = access(err, F_OK) == 0;
    char *argv[16];
    int argc = 0;
    argv[argc++] = "resolve";
    argv[argc++] = "--stem";
    argv[argc++] = stem;
    argv[argc++] = "--out";
    argv[argc++] = (char *)dir;
    argv[argc++] = "--algorithm";
    argv[argc++] = sv->resolve_alg;
    if (access(module, F_OK) == 0) {
        argv[argc++] = "--module";
        argv[argc++] = module;
    }
    argv[argc++] = "--quiet";
    argv[argc] = NULL;
    int rc = cli_run(&cmd_resolve, argc, argv);
    if (!rc && have_d2) {
        char *d2[] = { "d2", (char *)dir, "--quiet", NULL };
        rc = cli_run(&cmd_d2, 3, d2);
    }
    pthread_mutex_lock(&sv->lock);
    int back = ss_session_reopen(&sv->S, err, sizeof err);
    if (!back) back = ss_session_write(&sv->S, err, sizeof err);
    if (rc) snprintf(sv->resolve_msg, sizeof sv->resolve_msg, "resolve to stem %d stopped (exit %d); DIR is as far as it got",
                     sv->resolve_stem, rc);
    else if (back) snprintf(sv->resolve_msg, sizeof sv->resolve_msg, "%.590s", err);
    else snprintf(sv->resolve_msg, sizeof sv->resolve_msg, "resolved to stem %d%s", sv->resolve_stem,
                  have_d2 ? ", d2 computed" : "");
    sv->resolving = 0;
    pthread_mutex_unlock(&sv->lock);
    say("resolve further", sv->resolve_msg);
    return NULL;
}

/* {"stem": N}: resolve DIR further in the background (202); the editor polls /state. */
static enum MHD_Result post_resolve(server *sv, struct MHD_Connection *c, const char *body)
{
    json_error_t je;
    json_t *o = json_loads(body, 0, &je), *st = o ? json_object_get(o, "stem") : NULL;
    long stem = st && json_is_integer(st) ? (long)json_integer_value(st) : -1;
    json_decref(o);
    if (stem < 0 || stem > 1000) return reply_json(c, 400, "error", "expected {\"stem\": N}, N from 0 to 1000");
    if (stem <= sv->S.m.nmax) return reply_json(c, 409, "error", "DIR already goes to that stem");
    if (sv->have_worker) pthread_join(sv->worker, NULL);
    sv->have_worker = 0;
    char err[4600];
    sv->resolve_stem = (int)stem;
    sv->resolve_began = clock_now();
    sv->resolve_msg[0] = 0;
    snprintf(sv->resolve_alg, sizeof sv->resolve_alg, "%s", stage_algorithm_name(sv->S.d.man.algorithm));
    ss_session_suspend(&sv->S);             /* DIR given back to resolve */
    sv->resolving = 1;
    if (pthread_create(&sv->worker, NULL, resolve_worker, sv)) {
        sv->resolving = 0;
        int back = ss_session_reopen(&sv->S, err, sizeof err);
        return reply_json(c, 500, "error", back ? err : "cannot start a thread");
    }
    sv->have_worker = 1;
    say("resolve further", "started");
    return reply_json(c, 202, NULL, NULL);
}

/* A whole history replaces the session's: every line parsed and replayed, else nothing changes. */
static enum MHD_Result post_load(server *sv, struct MHD_Connection *c, const char *body)
{
    char err[4600], why[4000];
    ss_action *acts = NULL;
    int n = 0, cap = 0, line = 0;
    for (const char *p = body; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *text = strndup(p, len);
        ss_action a;
        int prc = text ? ss_history_parse(text, ++line, &a, why, sizeof why) : -1;
        free(text);
        if (prc < 0) {
            free(acts);
            snprintf(err, sizeof err, "line %d: %s", line, why);
            return reply_json(c, 400, "error", err);
        }
        if (prc == 0) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                ss_action *na = realloc(acts, sizeof *na * (size_t)cap);
                if (!na) {
                    free(acts);
                    return reply_json(c, 500, "error", "out of memory");
                }
                acts = na;
            }
            acts[n++] = a;
        }
        p += len + (e != NULL);
    }
    /* the old history kept, the session emptied, then each new action in turn */
    int old_n = sv->S.nactions;
    ss_action *old = malloc(sizeof *old * (size_t)(old_n ? old_n : 1));
    if (!old) {
        free(acts);
        return reply_json(c, 500, "error", "out of memory");
    }
    memcpy(old, sv->S.actions, sizeof *old * (size_t)old_n);
    int rc = 0;
    while (sv->S.nactions && !rc) rc = ss_session_drop_last(&sv->S, err, sizeof err);
    int failed = -1;
    for (int i = 0; i < n && !rc; i++)
        if (acts[i].type != SS_CONSTRUCT && acts[i].type != SS_RESOLVE) {
            rc = ss_session_add(&sv->S, &acts[i], why, sizeof why);
            if (rc) failed = i;
        }
    if (rc) {                   /* back to the old history */
        snprintf(err, sizeof err, "line %d: %s", failed >= 0 ? acts[failed].line : 0, why);
        while (sv->S.nactions) ss_session_drop_last(&sv->S, why, sizeof why);
        for (int i = 0; i < old_n; i++) ss_session_add(&sv->S, &old[i], why, sizeof why);
    }
    free(old);
    free(acts);
    if (rc) return reply_json(c, rc == CLI_USAGE ? 409 : 500, "error", err);
    if (persist(sv, err, sizeof err)) return reply_json(c, 500, "error", err);
    sv->nredo = 0;
    say("loaded", NULL);
    return reply_json(c, 200, NULL, NULL);
}

static enum MHD_Result route(server *sv, struct MHD_Connection *c, const char *url, const char *method, request *r);

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **con_cls)
{
    (void)version;
    server *sv = cls;
    int post = !strcmp(method, "POST");
    if (post && !*con_cls) {    /* the first call of a POST: its state, the body comes next */
        request *r = calloc(1, sizeof *r);
        if (!r) return MHD_NO;
        *con_cls = r;
        return MHD_YES;
    }
    if (post) {
        request *r = *con_cls;
        if (*size) {
            if (r->too_big || r->len + *size > BODY_MAX) r->too_big = 1;
            else {
                char *nb = realloc(r->body, r->len + *size + 1);
                if (!nb) return MHD_NO;
                memcpy(nb + r->len, data, *size);
                r->body = nb;
                r->len += *size;
                r->body[r->len] = 0;
            }
            *size = 0;
            return MHD_YES;
        }
    }
    if (!token_ok(sv, c)) return reply_json(c, 403, "error", "a valid token is required (printed when serve started)");
    pthread_mutex_lock(&sv->lock);
    enum MHD_Result rc = route(sv, c, url, method, post ? *con_cls : NULL);
    pthread_mutex_unlock(&sv->lock);
    return rc;
}

static enum MHD_Result route(server *sv, struct MHD_Connection *c, const char *url, const char *method, request *r)
{
    int post = r != NULL;
    if (!sv->S.dir) return reply_json(c, 500, "error", "the session lost its directory (see serve's messages): restart serve");
    if (sv->resolving && strcmp(url, "/state"))
        return reply_json(c, 503, "error", "resolving further: wait until /state no longer says so, then reload");
    if (!post && strcmp(method, "GET") && strcmp(method, "HEAD")) return reply_json(c, 405, "error", "GET or POST only");
    if (!post) {
        if (!strcmp(url, "/")) return page(sv, c);
        if (!strcmp(url, "/state")) return state(sv, c);
        if (!strcmp(url, "/history")) return history(sv, c);
        return reply_json(c, 404, "error", "no such page");
    }
    if (r->too_big) return reply_json(c, 413, "error", "the request body is larger than 1 MiB");
    const char *body = r->body ? r->body : "";
    if (strlen(body) != r->len) return reply_json(c, 400, "error", "a NUL byte in the body");
    if (!strcmp(url, "/action")) return post_action(sv, c, body);
    if (!strcmp(url, "/undo")) return post_undo(sv, c);
    if (!strcmp(url, "/redo")) return post_redo(sv, c);
    if (!strcmp(url, "/load")) return post_load(sv, c, body);
    if (!strcmp(url, "/resolve")) return post_resolve(sv, c, body);
    return reply_json(c, 404, "error", "no such action");
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)c;
    (void)why;
    request *r = *con_cls;
    if (r) {
        free(r->body);
        free(r);
    }
    *con_cls = NULL;
}

static int run(const char **operands, int nops)
{
    if (nops != 1) return cli_usage_error("serve: DIR expected");
    const char *dir = operands[0], *bind = opts[BIND].arg ? opts[BIND].arg : "127.0.0.1";
    long port = 8040;
    if (opts[PORT].arg && cli_parse_count(opts[PORT].arg, 65535, &port))
        return cli_usage_error("serve: --port %s: a port number 0..65535", opts[PORT].arg);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1) return cli_usage_error("serve: --bind %s: an IPv4 address", bind);
    static server sv;
    pthread_mutex_init(&sv.lock, NULL);
    unsigned char raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
        fprintf(stderr, "extflow: serve: no random bytes for the token: %s\n", strerror(errno));
        return CLI_FAILED;
    }
    for (int i = 0; i < 16; i++) snprintf(sv.token + 2 * i, 3, "%02x", raw[i]);
    /* the history DIR already has (a killed server restarts where it was) */
    char hist[4400], err[4600];
    snprintf(hist, sizeof hist, "%s/ss/history.jsonl", dir);
    ss_action *acts = NULL;
    int n = 0;
    if (access(hist, F_OK) == 0 && ss_history_read(hist, &acts, &n, err, sizeof err))
        return cli_usage_error("serve: %s", err);
    ss_session_opts o = { opts[PRODUCTS].arg, opts[MEMORY].arg, NULL, 0, 0, hist };
    int rc = ss_session_open(&sv.S, dir, acts, n, &o, err, sizeof err);
    free(acts);
    if (rc) {
        fprintf(stderr, "extflow: serve: %s\n", err);
        return rc;
    }
    if ((rc = persist(&sv, err, sizeof err)) != 0) {
        ss_session_close(&sv.S);
        return CLI_FAILED;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);      /* the server's thread inherits the mask */
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, &sv, MHD_OPTION_SOCK_ADDR, &addr,
        MHD_OPTION_CONNECTION_LIMIT, 32u, MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(256 * 1024), MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_END);
    if (!daemon) {
        fprintf(stderr, "extflow: serve: cannot listen on %s:%ld: %s\n", bind, port, strerror(errno));
        ss_session_close(&sv.S);
        return CLI_FAILED;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    unsigned shown = info ? info->port : (unsigned)port;
    if (strcmp(bind, "127.0.0.1"))
        fprintf(stderr, "extflow: serve: WARNING: listening on %s, not only on this machine: anyone who can reach it "
                "and has the token can change %s's history\n", bind, dir);
    printf("extflow: serve: %s on http://%s:%u/?token=%s (Ctrl-C stops; every action is kept in %s)\n", dir, bind,
           shown, sv.token, hist);
    fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    MHD_stop_daemon(daemon);
    pthread_mutex_lock(&sv.lock);
    if (sv.resolving) {         /* its finished bidegrees are in the stage files: a rerun resumes */
        fprintf(stderr, "extflow: serve: the resolve to stem %d under way is cut short (its finished bidegrees are "
                "kept: resolve again, or serve's resolve, resumes)\n", sv.resolve_stem);
        return sig == SIGINT ? 130 : 143;   /* the thread ends with the process */
    }
    pthread_mutex_unlock(&sv.lock);
    if (sv.have_worker) pthread_join(sv.worker, NULL);
    fprintf(stderr, "extflow: serve: stopped by %s; %d actions kept in %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
            sv.S.nactions, hist);
    ss_session_close(&sv.S);
    free(sv.redo);
    return sig == SIGINT ? 130 : 143;
}
#else
static int run(const char **operands, int nops)
{
    (void)operands;
    (void)nops;
    fprintf(stderr, "extflow: serve: this binary was built without libmicrohttpd (Debian's libmicrohttpd-dev; "
            "scripts/install-deps installs it)\n");
    return CLI_FAILED;
}
#endif

const cli_command cmd_serve = {
    "serve",
    "DIR: the spectral sequence's editor (docs/ss.md, \"The editor\"): DIR's chart in a browser, where d (then a "
    "target), p and m on a class enter a differential, a permanent class and a product type, checked by the same "
    "model as ss; undo, redo, save and load; every accepted action is written to DIR/ss/history.jsonl (and DIR/ss/'s "
    "tables) before the answer, so a killed server restarted on DIR is where it was. Prints its address with a random "
    "token that every request needs (403 without); requests over 1 MiB get 413, a malformed or unknown action 400, a "
    "contradiction 409 with the facts named, and nothing changes. Holds DIR's lock while it runs",
    opts, 1, CLI_ONE_PROCESS, run,
};
