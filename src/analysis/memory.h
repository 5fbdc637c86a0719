/* Memory peaks from the counters (load_counters): per allocator component (MEMORY_RECORD) the
 * highest allocated, reserved and active totals and when allocated first reached its peak; per
 * NPU_MEM type the highest HBM and DDR use. Bytes; ns. */
#ifndef TL_MEMORY_H
#define TL_MEMORY_H
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

typedef struct tl_mem_peak {
	const char *component; /* borrowed from the rank's pool */
	int have[3];           /* allocated, reserved, active: the component has such samples */
	int64_t allocated, reserved, active; /* peaks */
	int64_t allocated_ns;                /* the first sample at the allocated peak */
} tl_mem_peak;

/* By component name. Counters of several sources with one component name are one component. */
size_t memory_peaks(const tl_rank *, tl_mem_peak **out);

typedef struct tl_npu_mem_peak {
	const char *type; /* "app", "device" (borrowed) */
	int have_hbm, have_ddr;
	int64_t hbm, ddr;
} tl_npu_mem_peak;

/* By type name. */
size_t npu_memory_peaks(const tl_rank *, tl_npu_mem_peak **out);

#endif
