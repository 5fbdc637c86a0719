/* Formatting and parsing of nanosecond times and durations. */
#ifndef TL_TIMEFMT_H
#define TL_TIMEFMT_H
#include <stddef.h>
#include <stdint.h>

/* "980 ns", "12.35 us", "8.844 ms", "1.250 s" (significant digits adapt to size). */
char *timefmt_dur(int64_t ns, char *buf, size_t len);
/* Duration in microseconds with exactly three decimals: "8843.910". Exact for integer ns. */
char *timefmt_us3(int64_t ns, char *buf, size_t len);
/* Milliseconds with exactly `decimals` (0-6) digits, truncated: "8.843910" (6), "8.843" (3).
 * Exact for integer ns, INT64_MIN included. */
char *timefmt_ms(int64_t ns, int decimals, char *buf, size_t len);
/* Wall-clock time of an epoch-ns timestamp, local time: "2025-01-09 15:31:07.933660740". */
char *timefmt_epoch(int64_t ns, char *buf, size_t len);
/* Parses "12.5ms", "3s", "250us", "250µs", "40ns", "1.5" (unit defaults to def_unit_ns).
 * Returns 0 on success. Exact to the nanosecond for up to 9 decimals. */
int timefmt_parse(const char *s, int64_t def_unit_ns, int64_t *out);
/* The monotonic clock (CLOCK_MONOTONIC) in ns: for intervals, never for dates. */
int64_t timefmt_mono_ns(void);

#endif
