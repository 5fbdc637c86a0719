/* What module statistics are computed from, as a profile records it (read on demand by
 * load_modules, not kept in the trace): the ranges of the "Module" MSTX domain, the framework
 * operators that launched device work with those kernels, and autograd's forward -> backward
 * operator links. Host times for ranges and operators, device times for kernels; ns. */
#ifndef TL_MODULES_DATA_H
#define TL_MODULES_DATA_H
#include <stddef.h>
#include <stdint.h>

#include "util/strpool.h"

typedef struct tl_mod_range { /* one Module-domain range: the message is the module's name */
	int64_t start, end;
	uint32_t name; /* id in the data's pool */
} tl_mod_range;

typedef struct tl_mod_kernel { /* a kernel, or a communication op, an operator launched */
	int64_t start, end;
	uint32_t name;
} tl_mod_kernel;

typedef struct tl_mod_op { /* a framework operator with its kernels k[k0 .. k0 + nk) */
	int64_t start, end;
	uint32_t name;
	size_t k0, nk;
} tl_mod_op;

typedef struct tl_mod_link { /* a forward operator and the backward operator autograd ran */
	int64_t fwd_start, fwd_end, bwd_start, bwd_end;
	uint32_t fwd_name;
} tl_mod_link;

typedef struct tl_module_data {
	tl_strpool *pool;
	tl_mod_range *ranges;
	size_t nranges, rcap;
	tl_mod_op *ops; /* in the order the profile's tables first list them */
	size_t nops, ocap;
	tl_mod_kernel *k;
	size_t nk, kcap;
	tl_mod_link *links;
	size_t nlinks, lcap;
} tl_module_data;

void module_data_init(tl_module_data *);
void module_data_free(tl_module_data *);

#endif
