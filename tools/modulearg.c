/* modulearg.c — the --module argument read into a module (tools/modulearg.h). */
#include "tools/modulearg.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "algebra/modops.h"
#include "stages/resolve/cofiber.h"
#include "tools/cli.h"

/* The folders searched for --module NAME: beside the binary ($ORIGIN/../modules in the source
 * tree, $ORIGIN/../share/extflow/modules once installed), then the source tree's modules/ as
 * the build saw it (EXTFLOW_MODULES_DIR: other build folders, such as build-san/bin). */
static int find_module_file(const char *name, char *path, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && !strchr(name, '/')) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        static const char *dirs[] = { "../modules", "../share/extflow/modules" };
        for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
            snprintf(path, size, "%s/%s/%s.json", exe, dirs[i], name);
            if (access(path, R_OK) == 0) return 0;
        }
    }
#ifdef EXTFLOW_MODULES_DIR
    if (!strchr(name, '/')) {
        snprintf(path, size, "%s/%s.json", EXTFLOW_MODULES_DIR, name);
        if (access(path, R_OK) == 0) return 0;
    }
#endif
    snprintf(path, size, "%s", name);
    return access(path, R_OK) == 0 ? 0 : -1;
}

/* One factor of --module: NAME|FILE|NAME[k], read and checked (exit 2 with one line when it
 * cannot be used); *name gets its short name (the file's base name without .json). */
static int load_one_module(const char *arg, fd_module *m, char *name, size_t nsize)
{
    char path[PATH_MAX + 1100], err[600], file[1024];
    long shift = 0;
    const char *open_br = strrchr(arg, '[');
    size_t alen = strlen(arg);
    snprintf(file, sizeof file, "%s", arg);
    if (open_br && alen > 0 && arg[alen - 1] == ']') {     /* NAME[k]: Σ^k of the module NAME */
        char *end;
        shift = strtol(open_br + 1, &end, 10);
        if (end == open_br + 1 || *end != ']' || shift < -FDM_MAX_SHIFT || shift > FDM_MAX_SHIFT)
            return cli_usage_error("--module '%s': the shift in NAME[k] must be an integer in -%d..%d", arg,
                                   FDM_MAX_SHIFT, FDM_MAX_SHIFT);
        file[open_br - arg] = 0;
    }
    if (find_module_file(file, path, sizeof path) != 0)
        return cli_usage_error("unknown module '%s' (not in the modules folder, and no such file)", file);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (f) {
        for (;;) {
            if (len + 4096 > cap) {
                char *nb = realloc(buf, cap = cap * 2 + 4096);
                if (!nb) break;
                buf = nb;
            }
            size_t got = fread(buf + len, 1, cap - len, f);
            len += got;
            if (got == 0 || len > (1u << 24)) break;
        }
    }
    if (!f || ferror(f) || !buf) {
        int rc = cli_usage_error("%s: cannot read: %s", path, strerror(errno));
        if (f) fclose(f);
        free(buf);
        return rc;
    }
    fclose(f);
    int rc = fdm_parse(buf, len, m, err, sizeof err);
    free(buf);
    if (rc == 0 && fdm_shift(m, (deg_t)shift, err, sizeof err) != 0) rc = -1;    /* m is cleared then */
    if (rc == 0 && cofiber_prepare(m, err, sizeof err) != 0) {
        fdm_clear(m);
        rc = -1;
    }
    if (rc != 0) return cli_usage_error("%s: %s", path, err);
    const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
    size_t k = 0;
    for (; base[k] && k + 1 < nsize && k < 31; k++)
        name[k] = isalnum((unsigned char)base[k]) || strchr("_-.[]", base[k]) ? base[k] : '_';
    name[k] = 0;
    if (k > 5 && !strcmp(name + k - 5, ".json")) name[k - 5] = 0;
    char *dot = strstr(name, ".json[");     /* FILE.json[k]: keep the [k] */
    if (dot) memmove(dot, dot + 5, strlen(dot + 5) + 1);
    if (!name[0]) snprintf(name, nsize, "module");
    return 0;
}

/* A factor of --module: NAME|FILE|NAME[k], or D(that): its dual (algebra/modops.h), named D_NAME. */
static int load_factor(const char *arg, fd_module *m, char *name, size_t nsize)
{
    size_t len = strlen(arg);
    if (len < 4 || strncmp(arg, "D(", 2) || arg[len - 1] != ')') return load_one_module(arg, m, name, nsize);
    char inner[1024], iname[64], err[600];
    if (len - 3 >= sizeof inner) return cli_usage_error("--module '%.80s...': too long", arg);
    memcpy(inner, arg + 2, len - 3);
    inner[len - 3] = 0;
    fd_module n;
    int rc = load_one_module(inner, &n, iname, sizeof iname);
    if (rc) return rc;
    rc = modops_dual(&n, m, err, sizeof err);
    fdm_clear(&n);
    if (rc) return cli_usage_error("--module '%s': %s", arg, err);
    snprintf(name, nsize, "D_%.40s", iname);
    return 0;
}

/* --module M or M*N*...: a tensor product of finite modules, taken left to right
 * (algebra/modops.h); its name joins the factors' with "_sm_" (sseq's C2_sm_Ceta). */
int modulearg_load(const char *arg, fd_module *m, char *name, size_t nsize)
{
    const char *star = strchr(arg, '*');
    if (!star) return load_factor(arg, m, name, nsize);
    char factor[1024], fname[64], err[600];
    fd_module acc = { 0 }, next, prod;
    int rc = 0;
    name[0] = 0;
    for (const char *p = arg; !rc; p = star + 1) {
        star = strchr(p, '*');
        size_t len = star ? (size_t)(star - p) : strlen(p);
        if (!len || len >= sizeof factor) {
            rc = cli_usage_error("--module '%s': a tensor product is M*N with a module on each side of '*'", arg);
            break;
        }
        memcpy(factor, p, len);
        factor[len] = 0;
        if ((rc = load_factor(factor, p == arg ? &acc : &next, fname, sizeof fname)) != 0) break;
        if (strlen(name) + strlen(fname) + 5 < nsize) snprintf(name + strlen(name), nsize - strlen(name), "%s%s",
                                                                  p == arg ? "" : "_sm_", fname);
        if (p != arg) {
            int tr = modops_tensor(&acc, &next, &prod, err, sizeof err);
            fdm_clear(&next);
            fdm_clear(&acc);
            if (tr != 0) return cli_usage_error("--module '%s': %s", arg, err);
            acc = prod;
        }
        if (!star) break;
    }
    if (rc) {
        fdm_clear(&acc);
        return rc;
    }
    *m = acc;
    return 0;
}
