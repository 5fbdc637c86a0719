/* dp_analysis' per-rank numbers (see dp.h). */
#include "config.h"
#include "analysis/dp.h"

#include <cJSON.h>
#include <math.h>
#include <string.h>

#define DP_MARK_MAX 4096 /* longer messages are not a step's four numbers */

static int
dp_number(const cJSON *o, const char *key, double *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
		return 0;
	*out = x->valuedouble;
	return 1;
}

int
dp_mark_parse(const char *msg, size_t len, tl_dp_step *s)
{
	if (msg == NULL || len == 0 || len > DP_MARK_MAX)
		return 0;
	const char *end = NULL;
	cJSON *o = cJSON_ParseWithLengthOpts(msg, len, &end, 0);
	if (o == NULL)
		return 0;
	/* one object and nothing after it but blanks (a message cut and glued to another is not
	 * this step's stats) */
	while (end != NULL && end < msg + len &&
	       (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
		end++;
	if (end == NULL || (end < msg + len && *end != '\0')) {
		cJSON_Delete(o);
		return 0;
	}
	double r, w, c, t;
	int ok = cJSON_IsObject(o) && dp_number(o, "running_reqs", &r) &&
	         dp_number(o, "waiting_reqs", &w) && dp_number(o, "gpu_cache_usage", &c) &&
	         dp_number(o, "out_tokens", &t);
	cJSON_Delete(o);
	if (!ok)
		return 0;
	s->has_stats = 1;
	s->running = r;
	s->waiting = w;
	s->cache_usage = c;
	s->out_tokens = t;
	return 1;
}

void
dp_compute(tl_dp_rank *v, size_t n)
{
	int gmax = -1;
	for (size_t i = 0; i < n; i++) {
		v[i].max_step = v[i].nsteps > 0 ? (int)v[i].nsteps - 1 : -1;
		if (v[i].max_step > gmax)
			gmax = v[i].max_step;
	}
	for (size_t i = 0; i < n; i++) {
		tl_dp_rank *x = &v[i];
		/* a rank without a step sat idle through all of them: (gmax - -1) would exceed
		 * 100 %, dp_analysis has no such rank (its MaxStep comes from its rows) */
		int own = x->max_step < 0 ? 0 : x->max_step;
		x->bubble_rate_pct = gmax > 0 ? (double)(gmax - own) / gmax * 100.0 : TL_DP_NONE;
		x->has_stats = x->nsteps > 0;
		for (size_t k = 0; k < x->nsteps; k++)
			x->has_stats &= x->steps[k].has_stats;
		x->out_tokens = x->throughput = x->mean_running = x->mean_waiting =
		    x->peak_cache_usage = TL_DP_NONE;
		if (!x->has_stats)
			continue;
		double tok = 0, run = 0, wait = 0, peak = 0;
		for (size_t k = 0; k < x->nsteps; k++) {
			const tl_dp_step *s = &x->steps[k];
			tok += s->out_tokens;
			run += s->running;
			wait += s->waiting;
			if (s->cache_usage > peak)
				peak = s->cache_usage;
		}
		int64_t span = x->steps[x->nsteps - 1].end - x->steps[0].start;
		x->out_tokens = tok;
		x->throughput = span > 0 ? tok / ((double)span / 1e9) : TL_DP_NONE;
		x->mean_running = run / (double)x->nsteps;
		x->mean_waiting = wait / (double)x->nsteps;
		x->peak_cache_usage = peak;
	}
}

const char *
dp_metric_name(int metric)
{
	static const char *const names[TL_DP__METRICS] = {"out_tokens", "running_reqs",
	                                                  "waiting_reqs", "gpu_cache_usage"};
	return metric >= 0 && metric < TL_DP__METRICS ? names[metric] : "";
}

double
dp_step_value(const tl_dp_step *s, int metric)
{
	if (!s->has_stats)
		return TL_DP_NONE;
	switch (metric) {
	case TL_DP_TOKENS:
		return s->out_tokens;
	case TL_DP_RUNNING:
		return s->running;
	case TL_DP_WAITING:
		return s->waiting;
	case TL_DP_CACHE:
		return s->cache_usage;
	default:
		return TL_DP_NONE;
	}
}

double
dp_metric_max(const tl_dp_rank *v, size_t n, int metric)
{
	double m = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].nsteps; k++) {
			double x = dp_step_value(&v[i].steps[k], metric);
			if (x > m)
				m = x;
		}
	return m;
}

void
dp_end_steps(const tl_dp_rank *v, size_t n, int *earliest, int *latest)
{
	*earliest = -1;
	*latest = -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i].nsteps == 0)
			continue;
		int m = (int)v[i].nsteps - 1;
		if (*earliest < 0 || m < *earliest)
			*earliest = m;
		if (m > *latest)
			*latest = m;
	}
}
