/* version.h — extflow's version: the one place it is written. `extflow --version` prints it,
 * DIR/run.json records it (stages/out/manifest.c), the man page (scripts/man-from-help) takes it
 * from there. */
#ifndef EXTFLOW_VERSION_H
#define EXTFLOW_VERSION_H
#define EXTFLOW_VERSION "0.3.0"
#endif
