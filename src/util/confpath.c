#include "config.h"
#include "util/confpath.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

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

char *
config_next_line(const char **p)
{
	if (**p == '\0')
		return NULL;
	const char *nl = strchr(*p, '\n');
	size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
	char *line = xstrndup(*p, len);
	*p += len + (nl ? 1 : 0);
	return line;
}

int
config_words(char *line, char **tok, int max, const char *seps)
{
	int n = 0;
	char *p = line;
	while (*p && n < max) {
		while (*p && strchr(seps, *p) != NULL)
			p++;
		if (*p == '\0' || *p == '#')
			break;
		tok[n++] = p;
		while (*p && strchr(seps, *p) == NULL)
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}
