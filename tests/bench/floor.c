/* `make bench-summary`'s floor: the least a load of the same DBs could cost on one core. It
 * opens each DB as tl does (read-only, immutable) and steps through every row of the SELECTs
 * tl runs on it (the file of statements, one a line, that TL_TRACE_SQL=1 printed), reading
 * each column once as tl's loader does (its type, then the integer or the text), nothing else:
 * no model, no strings kept. Prints the rows and cells read and a sum of them (so that no read
 * can be left out by the compiler). Usage: floor STATEMENTS DB... */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: floor STATEMENTS DB...\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	char **sql = NULL, line[4096];
	size_t nsql = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "SELECT ", 7) != 0)
			continue; /* the schema's PRAGMAs: nothing of the data */
		sql = realloc(sql, (nsql + 1) * sizeof *sql);
		sql[nsql++] = strdup(line);
	}
	fclose(f);
	uint64_t rows = 0, cells = 0, sum = 0;
	for (int a = 2; a < argc; a++) {
		char *uri = sqlite3_mprintf("file:%s?immutable=1", argv[a]);
		sqlite3 *db = NULL;
		if (sqlite3_open_v2(uri, &db,
		                    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
		                    NULL) != SQLITE_OK) {
			fprintf(stderr, "%s: %s\n", argv[a], sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_free(uri);
		for (size_t i = 0; i < nsql; i++) {
			sqlite3_stmt *st = NULL;
			if (sqlite3_prepare_v2(db, sql[i], -1, &st, NULL) != SQLITE_OK)
				continue; /* a table this DB does not have: tl skips it too */
			int nc = sqlite3_column_count(st);
			while (sqlite3_step(st) == SQLITE_ROW) {
				rows++;
				for (int c = 0; c < nc; c++) {
					sqlite3_value *v = sqlite3_column_value(st, c);
					int t = sqlite3_value_type(v);
					if (t == SQLITE_INTEGER)
						sum += (uint64_t)sqlite3_value_int64(v);
					else if (t == SQLITE_TEXT)
						sum += (uint64_t)sqlite3_value_bytes(v);
					cells++;
				}
			}
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
	}
	printf("rows=%llu cells=%llu sum=%llu\n", (unsigned long long)rows,
	       (unsigned long long)cells, (unsigned long long)sum);
	for (size_t i = 0; i < nsql; i++)
		free(sql[i]);
	free(sql);
	return 0;
}
