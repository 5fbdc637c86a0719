/* A frame's lane columns remembered for the next frame. Drawing a lane costs a search per
 * column edge in its slices (query/window.c); most keys (a lane or rank move, the next slice,
 * a toggle) leave the column edges as they were, and then each lane's columns are those of the
 * frame before. The memo keeps them per track while the edges stay the same, and a track is
 * taken as unchanged while its slice array and count are (a session never frees a track: ranks
 * it replaces are retired, host lanes only add slices). */
#ifndef TL_UI_COLMEMO_H
#define TL_UI_COLMEMO_H
#include <stdint.h>

#include "query/query.h"

typedef struct col_memo col_memo;

col_memo *colmemo_new(void);
void colmemo_free(col_memo *);
/* A frame over edges[0 .. ncols]: what was kept for other edges is dropped. */
void colmemo_frame(col_memo *, const int64_t *edges, int ncols);
/* tlq_columns_draw (tlq_columns_edges when longest is set: the dominant of every column is
 * its longest slice) and tlq_busy_columns over the frame's edges, from the memo when it has
 * them (t may be NULL for the busy columns: all 0). */
void colmemo_cells(col_memo *, const tl_track *t, int longest, tl_cell *out);
void colmemo_busy(col_memo *, const tl_track *t, int64_t *out);
/* Drops everything (the model changed: ranks came in, host lanes were read). */
void colmemo_clear(col_memo *);

#endif
