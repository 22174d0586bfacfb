/* blob.h — a StarPU data interface for a byte string whose length is known only once the task
 * that writes it has run (a bidegree's generators for the other ranks, stages/resolve/exchange.h).
 *
 * Layout per memory node: struct blob { id, ptr, size (bytes of content), alloc (bytes of the
 * buffer) }. Only main-memory nodes are used (the codelets that touch blobs are CPU-only).
 * A writer replaces the content with blob_set (reallocating when it grows). StarPU-MPI sends
 * a blob with pack_data: a u64 length, then the bytes (never 0 bytes: StarPU-MPI refuses an
 * empty message); unpack_data resizes the receiver's buffer, so a receiving rank registers
 * the handle empty (blob_register_empty) without knowing the size.
 */
#ifndef EXTFLOW_BLOB_H
#define EXTFLOW_BLOB_H
#include <starpu.h>

struct blob {
    enum starpu_data_interface_id id;
    uintptr_t ptr;
    size_t size, alloc;
};

/* A handle with no buffer on any node yet (home node -1). */
void blob_register_empty(starpu_data_handle_t *h);
/* Inside a codelet: the blob's content becomes bytes[0..n); 0, or -1 out of memory. */
int blob_set(struct blob *b, const void *bytes, size_t n);
static inline const void *blob_bytes(const struct blob *b) { return (const void *)b->ptr; }
static inline size_t blob_size(const struct blob *b) { return b->size; }

#endif
