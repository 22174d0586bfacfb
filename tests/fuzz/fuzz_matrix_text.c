/* libFuzzer harness: arbitrary bytes as the text that `extflow pack` reads (the one text
 * input extflow parses). stage_parse_matrix_text must return a status and never crash. */
#include <stdio.h>
#include "stages/store/stagefile.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in) return 0;
    stage_header h = { .kind = STAGE_MATRIX };
    f2mat m;
    char err[512];
    if (stage_parse_matrix_text(in, &h, &m, err, sizeof err) == STAGE_OK) f2mat_clear(&m);
    fclose(in);
    return 0;
}
