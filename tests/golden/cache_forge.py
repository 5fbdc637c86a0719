#!/usr/bin/env python3
"""Forges tl's cache files the way a crafted file would: one value changed and the checksum
made right again, computed here from its definition (util/hash.h cache_checksum: the body's
8-byte words round-robin to 8 lanes, each a multiply-xorshift, then the lanes and the word
count folded), not by tl. What test_cache.sh and test_trust.sh check tl refuses anyway.

    cache_forge.py lane FILE     a model file's overlap lane: one interval ends 1 ns early
    cache_forge.py opsum FILE    a model file's operator group: its stored sum off by one
    cache_forge.py steprun FILE  a model file's lane step runs: one names step 0xfffe
    cache_forge.py result FILE   a stored result: its stdout starts with ESC[31m ... BEL
"""
import struct
import sys

M = (1 << 64) - 1
SEED = 0x746C2D6D6F64656C


def word(h, w):
    h = ((h ^ w) * 0x9E3779B97F4A7C15) & M
    return h ^ (h >> 29)


def checksum(body):
    n = (len(body) + 7) // 8
    body = body + bytes(n * 8 - len(body))
    lanes = [SEED + i for i in range(8)]
    for i in range(n):
        lanes[i % 8] = word(lanes[i % 8], struct.unpack_from("<Q", body, 8 * i)[0])
    h = SEED
    for x in lanes:
        h = word(h, x)
    return word(h, n)


def model_reseal(b):
    """A model file (64-byte header, its checksum at 24) with its checksum made right."""
    struct.pack_into("<Q", b, 24, checksum(bytes(b[64:])))


def lane(b):
    # an overlap lane (cache_write.c's put_rank): its header (kind 9 = TL_LANE_OVERLAP, label,
    # key, depth, source, user ranges, flags), its slice count, then its slices (start,
    # duration, name: 16 bytes) named by its label
    def lane_at(o):
        kind, label = struct.unpack_from("<QQ", b, o - 64)
        n = struct.unpack_from("<Q", b, o - 8)[0]
        if kind != 9 or n < 8 or o + 16 * n > len(b):
            return False
        for k in range(8):
            s, d, nm = struct.unpack_from("<qII", b, o + 16 * k)
            if nm != label or d <= 1 or d >= 1 << 31:
                return False
        return True

    o = next(o for o in range(128, len(b) - 16 * 8, 8) if lane_at(o))
    d = struct.unpack_from("<I", b, o + 8)[0]
    struct.pack_into("<I", b, o + 8, d - 1)
    model_reseal(b)


def opsum(b):
    # an operator group (cache_write.c's put_tables): four string ids, the sum, the count, the
    # durations ascending, the count again
    def group_at(o):
        k = struct.unpack_from("<4Q", b, o)
        if any(x >= 1 << 20 for x in k):
            return False
        total, n = struct.unpack_from("<QQ", b, o + 32)
        if not 2 <= n < 1 << 20 or o + 56 + 16 * n > len(b):
            return False
        d = struct.unpack_from("<%dQ" % n, b, o + 48)
        return (total > 0 and total == sum(d) and list(d) == sorted(d)
                and struct.unpack_from("<Q", b, o + 48 + 8 * n)[0] == n)

    o = next(o for o in range(64, len(b) - 64, 8) if group_at(o))
    struct.pack_into("<Q", b, o + 32, struct.unpack_from("<Q", b, o + 32)[0] + 1)
    model_reseal(b)


def steprun(b):
    # a lane's step runs (cache_write.c, TRACK_STEP_RUNS): the count, step_cover, then (u32 at,
    # u16 step, u16 0) each, the first at 0, increasing, below step_cover, a step index or
    # 0xffff, each unlike the one before
    def runs_at(o):
        n, cover = struct.unpack_from("<QQ", b, o)
        if not 2 <= n <= 4096 or not n < cover < 1 << 32 or o + 16 + 8 * n > len(b):
            return False
        v = [struct.unpack_from("<IHH", b, o + 16 + 8 * j) for j in range(n)]
        return (v[0][0] == 0 and all(p == 0 and (s < 64 or s == 0xFFFF) for _, s, p in v)
                and all(v[j - 1][0] < v[j][0] < cover and v[j - 1][1] != v[j][1]
                        for j in range(1, n)))

    o = next(o for o in range(64, len(b) - 32, 8) if runs_at(o))
    struct.pack_into("<H", b, o + 16 + 4, 0xFFFE)
    model_reseal(b)


def result(b):
    # cache_result.c's format: a 40-byte header (its size at 16, checksum at 24, key length at
    # 32), the key, kind, status, stdout, stderr
    kl = struct.unpack_from("<Q", b, 32)[0]
    o = 40 + kl
    kind, status, nout = struct.unpack_from("<QQQ", b, o)
    out = b"\x1b[31mFORGED\x07\n" + bytes(b[o + 24:o + 24 + nout])
    rest = bytes(b[o + 24 + nout:])
    body = bytes(b[40:40 + kl]) + struct.pack("<QQQ", kind, status, len(out)) + out + rest
    head = bytes(b[:16]) + struct.pack("<QQQ", 40 + len(body), checksum(body), kl)
    b[:] = head + body


def main():
    what, path = sys.argv[1], sys.argv[2]
    b = bytearray(open(path, "rb").read())
    {"lane": lane, "opsum": opsum, "steprun": steprun, "result": result}[what](b)
    with open(path, "r+b") as f:  # in place: the file keeps its owner
        f.write(b)
        f.truncate()


main()
