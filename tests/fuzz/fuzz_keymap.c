/* Keymap files (tl-keymap(5)) and key names, over the built-in default keymap. */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/actions.h"
#include "ui/keymap.h"

FUZZ_ENTRY(keymap)
{
	fuzz_setup();
	char *s = fuzz_cstr(data, size);
	tl_keymap km;
	char err[512];
	keymap_load(&km, NULL, err, sizeof err);
	keymap_parse(&km, s, "fuzz.keys", err, sizeof err);
	/* every binding names itself in a way key_parse reads back */
	for (size_t i = 0; i < km.n; i++) {
		char name[64];
		int back;
		key_to_name(km.v[i].key, name, sizeof name);
		if (key_parse(name, &back) != 0 || back != km.v[i].key)
			abort();
		if (keymap_action(&km, km.v[i].key) == ACT_NONE)
			abort();
	}
	for (int a = 0; a < ACT__COUNT; a++) {
		char buf[64];
		keymap_keys_text(&km, a, buf, sizeof buf);
	}
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		keymap_write_list(&km, null, 0);
		keymap_write_list(&km, null, 1);
		keymap_write_list(&km, null, 2);
		fclose(null);
	}
	/* the input as one key name */
	int k;
	if (size < 64 && key_parse(s, &k) == 0) {
		char name[64];
		key_to_name(k, name, sizeof name);
		key_normalize(k);
	}
	keymap_free(&km);
	free(s);
	return 0;
}
