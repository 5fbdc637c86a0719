/* Rank selections such as "0-7", "0,2,4", "0-3,8-11". */
#ifndef TL_RANKSPEC_H
#define TL_RANKSPEC_H
#include <stddef.h>

#define TL_RANK_MAX 1000000

typedef struct tl_rankset {
	int all;    /* no spec given: every rank */
	int *ranks; /* sorted, unique */
	size_t n;
} tl_rankset;

/* Parses spec. On error returns -1 and writes a message (without newline) to err. */
int rankspec_parse(const char *spec, tl_rankset *out, char *err, size_t errlen);
/* Sorts the ranks and drops repeats. */
void rankset_normalize(tl_rankset *);
/* "0-3, 8, 10-11" into buf, cut with "and N more" when it does not fit. */
void rankset_format(const tl_rankset *, char *buf, size_t len);
int rankset_has(const tl_rankset *, int rank);
void rankset_free(tl_rankset *);

#endif
