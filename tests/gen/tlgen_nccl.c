/* `tlgen nccl OUTDIR [options]`: Kineto traces of an NCCL job (src/gen/gen_nccl.h), one per
 * rank, plain or gzip-compressed. Prints nothing; the tests compute what they expect from the
 * traces themselves. */
#include "config.h"
#include "tlgen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_nccl.h"

static int
num(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "tlgen nccl: %s: bad value '%s' (expected %ld..%ld)\n", opt, s, lo,
		        hi);
		return -1;
	}
	*out = v;
	return 0;
}

int
tlgen_nccl(const char *outdir, int argc, char **argv)
{
	gen_nccl_opts o;
	gen_nccl_opts_default(&o);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		long v;
		if (strcmp(a, "--gzip") == 0) {
			o.gzip = 1;
			continue;
		}
		if (strcmp(a, "--host-clock") == 0) { /* --host-clock H OFF_NS PPM */
			long h, off;
			char *end;
			double ppm = i + 3 < argc ? strtod(argv[i + 3], &end) : 0;
			if (i + 3 >= argc ||
			    num(a, argv[i + 1], 0, GEN_NCCL_MAX_HOSTS - 1, &h) != 0 ||
			    num(a, argv[i + 2], -3600000000000L, 3600000000000L, &off) != 0 ||
			    end == argv[i + 3] || *end != '\0' || ppm < -1000 || ppm > 1000) {
				fprintf(stderr, "tlgen nccl: --host-clock H OFF_NS PPM\n");
				return 2;
			}
			o.clock_off[h] = off;
			o.clock_ppm[h] = ppm;
			i += 3;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "tlgen nccl: unknown option or missing value: %s\n", a);
			return 2;
		}
		const char *val = argv[++i];
		if (strcmp(a, "--ranks") == 0 && num(a, val, 1, 4096, &v) == 0)
			o.nranks = (int)v;
		else if (strcmp(a, "--steps") == 0 && num(a, val, 1, 100000, &v) == 0)
			o.nsteps = (int)v;
		else if (strcmp(a, "--kernels") == 0 && num(a, val, 0, 1000, &v) == 0)
			o.kernels = (int)v;
		else if (strcmp(a, "--rounds") == 0 && num(a, val, 1, 1000000, &v) == 0)
			o.rounds = (int)v;
		else if (strcmp(a, "--slow") == 0 && num(a, val, -1, 4095, &v) == 0)
			o.slow_rank = (int)v;
		else if (strcmp(a, "--hosts") == 0 && num(a, val, 1, GEN_NCCL_MAX_HOSTS, &v) == 0)
			o.hosts = (int)v;
		else if (strcmp(a, "--seed") == 0 && num(a, val, 0, 2147483647, &v) == 0)
			o.seed = (uint64_t)v;
		else {
			fprintf(stderr, "tlgen nccl: bad option: %s %s\n", a, val);
			return 2;
		}
	}
	return gen_nccl(outdir, &o) == 0 ? 0 : 1;
}
