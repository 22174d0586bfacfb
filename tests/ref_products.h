/* ref_products.h — reading a reference output of tests/ref/products/ (EXTFLOW_TEST_REF
 * overrides tests/ref): the text after its first line, which is the command that made it.
 * The buffer is static (64 KB, enough for every file there); a missing file bails out. */
#ifndef EXTFLOW_TESTS_REF_PRODUCTS_H
#define EXTFLOW_TESTS_REF_PRODUCTS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/tap.h"

static char *read_ref(const char *name)
{
    const char *dir = getenv("EXTFLOW_TEST_REF") ? getenv("EXTFLOW_TEST_REF") : "tests/ref";
    char path[512];
    snprintf(path, sizeof path, "%s/products/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) bail(path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *body = strchr(buf, '\n');    /* line 1 is the command that made it */
    return body ? body + 1 : buf;
}

#endif
