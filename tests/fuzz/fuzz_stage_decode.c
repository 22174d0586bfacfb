/* libFuzzer harness: arbitrary bytes as a stage file. stage_decode must return a status and
 * never crash, leak, or read out of bounds; a file it accepts must re-encode to a file that
 * decodes to the same header and matrix. Build and run: make fuzz FUZZ_SECONDS=600. */
#include <stdlib.h>
#include <string.h>
#include "stages/store/stagefile.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    stage_header h, h2;
    f2mat m, m2;
    char err[512];
    if (stage_decode("fuzz", data, size, &h, &m, err, sizeof err) != STAGE_OK) return 0;
    void *buf = NULL;
    size_t len = 0;
    if (stage_encode(&h, &m, &buf, &len, err, sizeof err) == STAGE_OK) {
        if (stage_decode("re-encoded", buf, len, &h2, &m2, err, sizeof err) != STAGE_OK) abort();
        if (!f2mat_equal(&m, &m2) || h2.s != h.s || h2.t != h.t || h2.kind != h.kind) abort();
        f2mat_clear(&m2);
        free(buf);
    }
    f2mat_clear(&m);
    return 0;
}
