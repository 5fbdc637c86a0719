#include "config.h"
#include "model/modules.h"

#include <stdlib.h>
#include <string.h>

void
module_data_init(tl_module_data *d)
{
	memset(d, 0, sizeof *d);
	d->pool = strpool_new();
}

void
module_data_free(tl_module_data *d)
{
	if (d->pool != NULL)
		strpool_free(d->pool);
	free(d->ranges);
	free(d->ops);
	free(d->k);
	free(d->links);
	memset(d, 0, sizeof *d);
}
