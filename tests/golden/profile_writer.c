/* A profiler still writing its output, for test_writing.sh:
 *   profile_writer rollback DB   opens DB (rollback journal), starts a write transaction,
 *                                inserts a copy of every TASK row: a -journal file lies beside
 *                                it and the database holds the lock
 *   profile_writer wal DB        switches DB to WAL, commits a copy of every TASK row into the
 *                                -wal file (no checkpoint), then holds another write
 *                                transaction open
 *   profile_writer grow SRC DST  writes the first 60% of SRC to DST (cut inside an event), then
 *                                appends the rest in small pieces over about two seconds
 * Prints "ready" on stdout once the state is set up, then keeps it until stdin closes (grow:
 * until the copy is complete). */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "profile_writer: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

static void
ready_and_hold(void)
{
	printf("ready\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0) /* until the test closes our stdin */
		;
}

static const char *const copy_tasks =
    "INSERT INTO TASK SELECT startNs + 1000000000, endNs + 1000000000, deviceId, connectionId, "
    "globalTaskId, globalPid, taskType, contextId, streamId, taskId, modelId FROM TASK;";

static int
grow(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	if (in == NULL || out == NULL) {
		perror(in ? dst : src);
		return 1;
	}
	fseek(in, 0, SEEK_END);
	long n = ftell(in);
	fseek(in, 0, SEEK_SET);
	char *buf = malloc((size_t)n);
	if (buf == NULL || fread(buf, 1, (size_t)n, in) != (size_t)n)
		return 1;
	fclose(in);
	long first = n * 6 / 10;
	fwrite(buf, 1, (size_t)first, out);
	fflush(out);
	printf("ready\n");
	fflush(stdout);
	long step = (n - first) / 40 + 1;
	for (long off = first; off < n; off += step) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
		fwrite(buf + off, 1, (size_t)(off + step <= n ? step : n - off), out);
		fflush(out);
	}
	fclose(out);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "grow") == 0)
		return grow(argv[2], argv[3]);
	if (argc != 3 || (strcmp(argv[1], "rollback") != 0 && strcmp(argv[1], "wal") != 0)) {
		fprintf(stderr, "usage: profile_writer rollback|wal DB | grow SRC DST\n");
		return 2;
	}
	sqlite3 *db;
	if (sqlite3_open(argv[2], &db) != SQLITE_OK) {
		fprintf(stderr, "profile_writer: %s: %s\n", argv[2], sqlite3_errmsg(db));
		return 1;
	}
	if (strcmp(argv[1], "wal") == 0) {
		if (exec(db, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;") != 0 ||
		    exec(db, copy_tasks) != 0)
			return 1;
	} else if (exec(db, "PRAGMA journal_mode = DELETE;") != 0) {
		return 1;
	}
	if (exec(db, "BEGIN IMMEDIATE") != 0 || exec(db, copy_tasks) != 0)
		return 1;
	ready_and_hold();
	exec(db, "ROLLBACK");
	sqlite3_close(db);
	return 0;
}
