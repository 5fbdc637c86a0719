#include "config.h"
#include "util/confpath.h"
#include "util/xalloc.h"

#include <stdlib.h>

char *
config_path(const char *file)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/tl/%s", xdg, file);
	if (home && *home)
		return xasprintf("%s/.config/tl/%s", home, file);
	return NULL;
}
