/* stagecommit.h — group commit of stage files: durability in batches.
 *
 * Writing one stage file durably costs two fsyncs (file, directory); a resolution writes
 * thousands of small files, and on a disk those syncs and the file creations, not the
 * mathematics, set the pace (docs/perf.md). So finished steps encode their file in memory
 * (stage_encode) and hand the bytes to a committer thread, which every `delay` seconds or
 * `batch` files: writes each to a temporary, waits until all of them are on disk (durable.h's
 * batch: one syncfs of the file system, or a fdatasync each for fewer than 16), renames every
 * temporary of the batch to its final name, and fsyncs the directories. Workers never wait
 * on the disk. The invariant of stage files is kept: a file under its final name was synced
 * before it got that name, so a kill or a power failure loses at most the last batch, whose
 * temporaries the next run removes and whose bidegrees it recomputes.
 */
#ifndef EXTFLOW_STAGECOMMIT_H
#define EXTFLOW_STAGECOMMIT_H
#include <stddef.h>

typedef struct stage_committer stage_committer;

stage_committer *stage_committer_start(double delay_seconds, size_t batch);
/* Queues the bytes buf[0..len) (malloc'ed; ownership passes) to become the file final. */
int stage_committer_add(stage_committer *sc, const char *final, void *buf, size_t len);
/* Queues a journal record, appended to journal (then fdatasync'ed) after the batch's files. */
int stage_committer_add_record(stage_committer *sc, const char *journal, const void *rec, size_t len);
/* Commits everything queued now; returns 0, or -1 with the first error in err. */
int stage_committer_flush(stage_committer *sc, char *err, size_t errlen);
/* 1 once a commit has failed (the message comes with flush or stop); cheap, lock-free. */
int stage_committer_failed(stage_committer *sc);
/* Flushes, stops the thread and frees; same return as flush. NULL is a no-op. */
int stage_committer_stop(stage_committer *sc, char *err, size_t errlen);

#endif
