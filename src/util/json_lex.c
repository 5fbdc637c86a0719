/* The JSON lexer's byte tables (the lexer itself is inline in json_lex.h: the trace loader's
 * scanner spends most of its time in it). */
#include "config.h"
#include "util/json_lex.h"

#include <pthread.h>

unsigned char json_str_plain[256], json_nest_special[256], json_scalar_end[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void
tables_init(void)
{
	for (int i = 0x20; i < 0x80; i++)
		json_str_plain[i] = i != '"' && i != '\\';
	json_nest_special['"'] = json_nest_special['{'] = json_nest_special['}'] = 1;
	json_nest_special['['] = json_nest_special[']'] = 1;
	for (const char *p = " \t\r\n,]}\"{[:"; *p; p++)
		json_scalar_end[(unsigned char)*p] = 1;
}

void
json_tables_init(void)
{
	pthread_once(&tables_once, tables_init);
}
