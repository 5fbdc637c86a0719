/* tlgen kineto: a PyTorch profiler (Kineto) trace of one GPU rank (src/gen/gen_kineto.c). */
#include "config.h"
#include "tlgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_kineto.h"

int
tlgen_kineto(const char *file, int argc, char **argv)
{
	gen_kineto_opts o;
	gen_kineto_default(&o);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--comm") == 0) {
			o.comm = 1;
			continue;
		}
		if (strcmp(a, "--no-flows") == 0) {
			o.no_flows = 1;
			continue;
		}
		if (strcmp(a, "--inference") == 0) {
			o.inference = 1;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "tlgen kineto: unknown option or missing value: %s\n", a);
			return -1;
		}
		const char *v = argv[++i];
		if (strcmp(a, "--version") == 0) {
			if (strcmp(v, "2021") == 0)
				o.version = GEN_KINETO_2021;
			else if (strcmp(v, "2024") == 0)
				o.version = GEN_KINETO_2024;
			else {
				fprintf(stderr, "tlgen kineto: --version: 2021 or 2024, not '%s'\n",
				        v);
				return -1;
			}
			continue;
		}
		char *end;
		errno = 0;
		long long x = strtoll(v, &end, 10);
		if (errno != 0 || end == v || *end != '\0' || x < -1 || x > 1000000) {
			fprintf(stderr, "tlgen kineto: %s: bad value '%s'\n", a, v);
			return -1;
		}
		if (strcmp(a, "--steps") == 0 && x >= 1)
			o.nsteps = (int)x;
		else if (strcmp(a, "--launches") == 0 && x >= 0)
			o.launches = (int)x;
		else if (strcmp(a, "--precapture") == 0 && x >= 0)
			o.precapture = (int)x;
		else if (strcmp(a, "--after") == 0 && x >= 0)
			o.after = (int)x;
		else if (strcmp(a, "--rank") == 0)
			o.rank = (int)x;
		else if (strcmp(a, "--seed") == 0 && x >= 0)
			o.seed = (uint64_t)x;
		else {
			fprintf(stderr, "tlgen kineto: unknown option %s %s\n", a, v);
			return -1;
		}
	}
	return gen_kineto(&o, file);
}
