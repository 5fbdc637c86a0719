#include "config.h"
#include "query/host.h"
#include "load/load.h"

#include <stdlib.h>

void
tlq_host_lanes(tl_trace *tr)
{
	for (size_t i = 0; i < tr->nranks; i++)
		load_host(tr->ranks[i]);
}

size_t
tlq_launch_steps(const tl_rank *r, tl_launch_step **out)
{
	tl_launch *v;
	size_t n = load_launches(r, &v);
	size_t m = launch_steps(r, v, n, out);
	free(v);
	return m;
}
