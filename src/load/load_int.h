/* Inside the loaders: what the format files share, and no one outside src/load/ sees. */
#ifndef TL_LOAD_INT_H
#define TL_LOAD_INT_H
#include "load/load.h"

/* Counts one open of a data file (load_source_opens). */
void load_count_open(void);
/* Counts n rows a DB scan read straight from the file's pages (load_page_rows). */
void load_count_page_rows(uint64_t n);

/* 0 when src is still the file tl loaded (same device, inode, size and mtime); else -1 after
 * one "arguments" line to fn saying what happened to it. Read again long after loading, a
 * file may be gone, or not the file it was. */
int load_source_unchanged(const tl_source *src, load_arg_fn fn, void *ctx);

/* The DB loader's arguments hook (ascend_db_args.c). */
int ascend_db_args(const tl_rank *, size_t si, const tl_track *, size_t idx, load_arg_fn fn,
                   void *ctx);

/* The communication hooks: a DB's COMMUNICATION_OP and COMMUNICATION_TASK_INFO
 * (ascend_db_comm.c); a trace_view.json's HCCL Group and Plane lanes and their args
 * (trace_json_comm.c; Kineto traces have none). The operator hook of the DBs (ascend_db_ops.c). */
void ascend_db_comm_hook(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner,
                         size_t *ocap);
void trace_json_comm(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner, size_t *ocap);
void ascend_db_ops(const tl_source *src, tl_op_data *d);
/* The module statistics' inputs of a DB (ascend_db_modules.c). */
void ascend_db_modules(const tl_source *src, tl_module_data *d);

/* The args of many events of JSON source `source` of r at once (ordinals ascending, as the
 * slices' arg), found through the source's event index: one parse per indexed block that holds
 * any of them. fn(ctx, i, key, value) per string or number member of event ordinals[i]'s args,
 * values untrusted. Returns how many were found, -1 when the source has no index or the file
 * cannot be opened. */
typedef void (*load_event_arg_fn)(void *ctx, size_t i, const char *key, const char *value);
int trace_json_events_args(const tl_rank *r, size_t source, const uint64_t *ordinals, size_t n,
                           load_event_arg_fn fn, void *ctx);

#endif
