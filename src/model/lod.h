/* Level of detail of a track: what a screen column (any window [t0, t1) of time) shows of it,
 * exact and without touching every slice in the window. Over the track's slices (sorted by
 * start, not overlapping, so their ends are sorted too) it keeps
 *   - busy[j]: the busy ns of slices [0, j*LOD_B), for every block of LOD_B slices, so the
 *     busy time of any run of slices is two lookups and at most 2 * (LOD_B - 1) slices read;
 *   - an implicit tree of the longest slice (first on ties): a node of level 1 covers LOD_B
 *     slices, a node of level k+1 LOD_B nodes of level k, up to a level of at most LOD_B
 *     nodes; each node holds its longest slice's index and duration, so the longest slice of
 *     any run is found reading at most 2 * (LOD_B - 1) nodes per level, O(LOD_B log n).
 * A window's slices are two binary searches away, the slices strictly inside it are whole, and
 * the first and last are clipped by hand: the column's busy time, count and dominant (longest
 * visible, first on ties) slice are exact at a cost of O(log n) per column, so a zoomed-out
 * frame costs O(lanes x columns) in slices read.
 *
 * About 1.5 bytes per slice (the prefix sums it replaces took 8). The arrays are fixed-width and
 * position-independent, so the model cache stores them and a warm open borrows them from its
 * mapping (lod_wrap). */
#ifndef TL_LOD_H
#define TL_LOD_H
#include <stddef.h>
#include <stdint.h>

struct tl_track;

#define LOD_B 16        /* slices per block, nodes per parent */
#define LOD_MAXLEVEL 16 /* 16^16 > 2^64 */

typedef struct tl_lod_node {
	int64_t dur;  /* the longest slice's duration */
	uint32_t idx; /* its index (the first of equals); node idx >> 32 never: tracks < 2^32 */
	uint32_t zero;
} tl_lod_node;

typedef struct tl_lod {
	size_t n;                /* slices it summarises */
	const int64_t *busy;     /* lod_nbusy(n) sums */
	const tl_lod_node *node; /* lod_nnodes(n): level 1, then level 2, ... */
	int nlevel;              /* levels above the slices */
	size_t off[LOD_MAXLEVEL],
	    size[LOD_MAXLEVEL]; /* level k+1 at node + off[k], size[k] nodes */
	int borrowed;           /* the arrays belong to someone else */
	int checked; /* from a cache file a stamp vouches for: lod_check passed when it was stamped
	              */
} tl_lod;

/* The sizes of the two arrays for n slices. */
size_t lod_nbusy(size_t n);
size_t lod_nnodes(size_t n);
/* Builds the summary of the track's slices (sorted, not overlapping). t->n must be below 2^32. */
tl_lod *lod_build(const struct tl_track *t);
/* A summary over arrays someone else owns (lod_nbusy(n) and lod_nnodes(n) long), checked
 * against the track by the caller (lod_check). */
tl_lod *lod_wrap(size_t n, const int64_t *busy, const tl_lod_node *node);
/* 0 when busy and node are what lod_build would make of the track's slices, -1 otherwise. */
int lod_check(const struct tl_track *t, const int64_t *busy, const tl_lod_node *node);
void lod_free(tl_lod *);
/* Bytes it allocated (0 when borrowed). */
size_t lod_bytes(const tl_lod *);

/* Busy ns of the track's whole slices [a, b). */
int64_t lod_busy(const tl_lod *, const struct tl_track *t, size_t a, size_t b);
/* The longest of slices [a, b) (the first of equals), or SIZE_MAX when a >= b. *dur gets its
 * duration. */
size_t lod_longest(const tl_lod *, const struct tl_track *t, size_t a, size_t b, int64_t *dur);

#endif
