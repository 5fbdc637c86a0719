# What the golden tests read from `tl summary --json`, through python3's json (a reader tl does
# not share), never by cutting the text with sed:
#
#   rows DOC            each step's six StepTraceTime numbers, one step a line:
#                       "step computing communication overlapped comm_not_overlapped free
#                       preparing" (DOC a summary, its ranks in order, or {"steps":[...]})
#   six DOC RANK WANT   exit 0 when RANK's steps have exactly the six numbers of WANT (the text
#                       `"steps":[{...}]` of tests/golden/fixture/overlap.sql), else say both
#   truth DOC FRAGS     each line of FRAGS (tlgen --truth: `tl summary --json` objects, perhaps
#                       cut after a member's comma) must match an object of DOC: every member
#                       it has, equal (arrays element by element, objects member by member).
#                       Prints "N MISSING" and then the first fragments not found
import json
import sys

SIX = ("computing_ns", "communication_ns", "overlapped_ns", "communication_not_overlapped_ns",
       "free_ns", "preparing_ns")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def step_lists(doc):
    if "ranks" in doc:
        return [(r["rank"], r["steps"]) for r in doc["ranks"]]
    return [(None, doc["steps"])]


def six_of(steps):
    return [[s["step"]] + [s[k] for k in SIX] for s in steps]


def fragment(line):
    """A truth line as an object: cut after a comma, or whole."""
    line = line.strip()
    if line.endswith(","):
        line = line[:-1] + "}"
    return json.loads(line)


def within(want, got):
    """want's members all in got, equal; arrays of the same length, element by element."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and within(v, got[k])
                                             for k, v in want.items())
    if isinstance(want, list):
        return (isinstance(got, list) and len(want) == len(got)
                and all(within(a, b) for a, b in zip(want, got)))
    return type(want) is type(got) and want == got


def objects(x):
    if isinstance(x, dict):
        yield x
        for v in x.values():
            yield from objects(v)
    elif isinstance(x, list):
        for v in x:
            yield from objects(v)


def main(argv):
    what = argv[1]
    if what == "rows":
        for _, steps in step_lists(load(argv[2])):
            for row in six_of(steps):
                print(" ".join(map(str, row)))
        return 0
    if what == "six":
        doc, rank, want = load(argv[2]), int(argv[3]), json.loads("{" + argv[4] + "}")
        got = [s for r, s in step_lists(doc) if r == rank]
        if len(got) == 1 and six_of(got[0]) == six_of(want["steps"]):
            return 0
        print("# want: %s" % six_of(want["steps"]))
        print("# got:  %s" % (six_of(got[0]) if len(got) == 1 else "%d ranks %d" % (len(got), rank)))
        return 1
    if what == "truth":
        objs = list(objects(load(argv[2])))
        with open(argv[3], encoding="utf-8") as f:
            frags = [l for l in f if l.strip()]
        missing = [l.strip() for l in frags if not any(within(fragment(l), o) for o in objs)]
        print(len(frags), len(missing))
        for l in missing[:5]:
            print("# not found: %s" % l[:200])
        return 0
    print("summary_json.py: rows DOC | six DOC RANK WANT | truth DOC FRAGS", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
