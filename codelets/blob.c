/* blob.c — the variable-size byte-string data interface (see blob.h). */
#include "codelets/blob.h"
#include <string.h>

static struct starpu_data_interface_ops blob_ops;

static void blob_register_handle(starpu_data_handle_t h, unsigned home, void *iface)
{
    struct blob *src = iface;
    for (unsigned node = 0; node < STARPU_MAXNODES; node++) {
        struct blob *b = starpu_data_get_interface_on_node(h, node);
        b->id = src->id;
        b->size = src->size;
        b->ptr = node == home ? src->ptr : 0;
        b->alloc = node == home ? src->alloc : 0;
    }
}

static starpu_ssize_t blob_allocate(void *iface, unsigned node)
{
    struct blob *b = iface;
    size_t n = b->size ? b->size : 1;
    uintptr_t p = starpu_malloc_on_node_flags(node, n, 0);
    if (!p) return -ENOMEM;
    b->ptr = p;
    b->alloc = n;
    return (starpu_ssize_t)n;
}

static void blob_free(void *iface, unsigned node)
{
    struct blob *b = iface;
    if (b->ptr) starpu_free_on_node_flags(node, b->ptr, b->alloc, 0);
    b->ptr = 0;
    b->alloc = 0;
}

/* Resizes b on node to n bytes of content (reallocating when it does not fit). */
static int blob_resize(struct blob *b, unsigned node, size_t n)
{
    if (b->alloc < (n ? n : 1)) {
        uintptr_t p = starpu_malloc_on_node_flags(node, n ? n : 1, 0);
        if (!p) return -1;
        if (b->ptr) starpu_free_on_node_flags(node, b->ptr, b->alloc, 0);
        b->ptr = p;
        b->alloc = n ? n : 1;
    }
    b->size = n;
    return 0;
}

static int blob_copy(void *src_iface, unsigned src_node, void *dst_iface, unsigned dst_node, void *async)
{
    struct blob *src = src_iface, *dst = dst_iface;
    if (blob_resize(dst, dst_node, src->size) != 0) return -ENOMEM;
    if (!src->size) return 0;
    return starpu_interface_copy(src->ptr, 0, src_node, dst->ptr, 0, dst_node, src->size, async);
}

static const struct starpu_data_copy_methods blob_copy_methods = { .any_to_any = blob_copy };

static size_t blob_get_size(starpu_data_handle_t h)
{
    const struct blob *b = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
    return b->size;
}

static uint32_t blob_footprint(starpu_data_handle_t h) { return starpu_hash_crc32c_be((uint32_t)blob_get_size(h), 0); }

static int blob_compare(void *a, void *b) { return ((struct blob *)a)->size == ((struct blob *)b)->size; }

static int blob_pack(starpu_data_handle_t h, unsigned node, void **ptr, starpu_ssize_t *count)
{
    const struct blob *b = starpu_data_get_interface_on_node(h, node);
    uint64_t n = b->size;
    *count = (starpu_ssize_t)(sizeof n + n);
    if (ptr) {
        unsigned char *p = (unsigned char *)starpu_malloc_on_node_flags(node, (size_t)*count, 0);
        if (!p) return -ENOMEM;
        memcpy(p, &n, sizeof n);
        if (n) memcpy(p + sizeof n, (const void *)b->ptr, n);
        *ptr = p;
    }
    return 0;
}

static int blob_unpack(starpu_data_handle_t h, unsigned node, void *ptr, size_t count)
{
    struct blob *b = starpu_data_get_interface_on_node(h, node);
    uint64_t n;
    STARPU_ASSERT(count >= sizeof n);
    memcpy(&n, ptr, sizeof n);
    STARPU_ASSERT(count == sizeof n + n);
    if (blob_resize(b, node, n) != 0) return -ENOMEM;
    if (n) memcpy((void *)b->ptr, (const unsigned char *)ptr + sizeof n, n);
    starpu_free_on_node_flags(node, (uintptr_t)ptr, count, 0);   /* StarPU-MPI hands it over */
    return 0;
}

static void *blob_to_pointer(void *iface, unsigned node)
{
    (void)node;
    return (void *)((struct blob *)iface)->ptr;
}

static struct starpu_data_interface_ops blob_ops = {
    .register_data_handle = blob_register_handle,
    .allocate_data_on_node = blob_allocate,
    .free_data_on_node = blob_free,
    .copy_methods = &blob_copy_methods,
    .to_pointer = blob_to_pointer,
    .get_size = blob_get_size,
    .footprint = blob_footprint,
    .compare = blob_compare,
    .interfaceid = STARPU_UNKNOWN_INTERFACE_ID,
    .interface_size = sizeof(struct blob),
    .dontcache = 1,
    .pack_data = blob_pack,
    .unpack_data = blob_unpack,
    .name = "extflow_blob",
};

void blob_register_empty(starpu_data_handle_t *h)
{
    if (blob_ops.interfaceid == STARPU_UNKNOWN_INTERFACE_ID)
        blob_ops.interfaceid = starpu_data_interface_get_next_id();
    struct blob b = { .id = blob_ops.interfaceid };
    starpu_data_register(h, -1, &b, &blob_ops);
}

int blob_set(struct blob *b, const void *bytes, size_t n)
{
    if (blob_resize(b, STARPU_MAIN_RAM, n) != 0) return -1;
    if (n) memcpy((void *)b->ptr, bytes, n);
    return 0;
}
