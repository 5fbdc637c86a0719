#!/usr/bin/env python3
"""Checks a screen dump of `tl view` against spans tl printed in JSON, from the screen alone:
the ruler's time per column, the status line's window, the lane area's left edge.

marks_check.py SCREEN ATTR ORIGIN_NS GLYPH SLOT SPANS_JSON
  SPANS_JSON: {"RANK": [[start_ns, end_ns], ...], ...} (absolute ns; ORIGIN_NS is the profile
  start the screen's times count from). Every header row `rank R` must show GLYPH in slot SLOT
  on each column its spans cover whole, and on no column none of them touches (the columns at a
  span's ends may go either way: the ruler and status line round). A rank not in SPANS_JSON
  must show none. Prints TAP lines without numbers ("ok - ..").
"""
import json
import re
import sys

screen_p, attr_p, origin, glyph, slot, spans_p = sys.argv[1:7]
origin = int(origin)
spans = {int(k): v for k, v in json.load(open(spans_p)).items()}
rows = open(screen_p, encoding="utf-8").read().split("\n")
attrs = open(attr_p, encoding="utf-8").read().split("\n")
UNIT = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def dur(text):
    m = re.match(r"^(-?[0-9.]+)\s*(ns|us|µs|ms|s)$", text.strip())
    return float(m.group(1)) * UNIT[m.group(2)]


def ok(cond, what):
    print(("ok - " if cond else "not ok - ") + what)


colw = dur(rows[0].split("/col")[0])
status = next(r for r in rows if "cursor " in r and "\u2013" in r)
t0 = origin + dur(status.split("\u2013")[0])
lanes_x = rows[1].index("\u2502") + 1
checked = 0
for y, r in enumerate(rows):
    m = re.match(r"^[\u25be\u25b8] rank (\d+)", r)
    if not m:
        continue
    rank = int(m.group(1))
    cells = r[lanes_x:]
    marked = {c for c, ch in enumerate(cells) if ch == glyph and attrs[y][lanes_x + c] == slot}
    bad_need, bad_extra = [], []
    for c in range(len(cells)):
        a, b = t0 + c * colw, t0 + (c + 1) * colw
        whole = any(s <= a + 0.02 * colw and e >= b - 0.02 * colw for s, e in spans.get(rank, []))
        touch = any(s < b + 0.02 * colw and e > a - 0.02 * colw for s, e in spans.get(rank, []))
        if whole and c not in marked:
            bad_need.append(c)
        if not touch and c in marked:
            bad_extra.append(c)
    ok(not bad_need, "rank %d: every column its spans cover is marked %s (missing %s)" %
       (rank, glyph, bad_need[:8]))
    ok(not bad_extra, "rank %d: no column outside its spans is marked (extra %s)" %
       (rank, bad_extra[:8]))
    checked += 1
ok(checked > 0, "%d rank header rows checked" % checked)
