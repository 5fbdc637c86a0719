#!/bin/sh
# Kineto (PyTorch profiler) traces against answers tl did not compute: kineto_ref.py reads each
# trace itself and applies HolisticTraceAnalysis' and the TensorBoard plugin's definitions
# (device work belongs to the step of its launch call, by args.correlation; memory is the
# union of memcpy / memset). Generated traces (tlgen kineto: 2021 and today's categories, work
# launched before the capture, a device running behind its launches, with and without ac2g
# flows, a single-GPU inference job) and the real samples (../shared/samples/kineto, skipped
# when absent); on all of them the invariant that every part of a step lies in its device
# window.
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null; then
	skip "python3 missing"
	t_done
	exit 0
fi
REF="$TL_SRCDIR/tests/golden/kineto_ref.py"

# ref MODE TRACE JSON: kineto_ref.py's PASS / FAIL lines as TAP
ref() {
	python3 "$REF" "$@" > "$t_tmp/ref.out" 2>&1 || { not_ok "kineto_ref.py $1 $2"; cat "$t_tmp/ref.out"; return; }
	[ -s "$t_tmp/ref.out" ] || not_ok "kineto_ref.py $1 $2: no check made"
	while IFS= read -r line; do
		case $line in
		PASS\ *) ok "${2##*/}: ${line#PASS }" ;;
		*) not_ok "${2##*/}: ${line#FAIL }" ;;
		esac
	done < "$t_tmp/ref.out"
}

# summary NAME TRACE: tl summary --json of it into $t_tmp/NAME.json, its warnings NAME.err
summary() {
	"$TL_BIN" summary --no-cache --json "$2" > "$t_tmp/$1.json" 2> "$t_tmp/$1.err" ||
		not_ok "tl summary --json $2"
}

gen() {
	name=$1
	shift
	"$TLGEN" kineto "$t_tmp/$name.trace.json" "$@" > "$t_tmp/gen.log" 2>&1 ||
		{ cat "$t_tmp/gen.log"; not_ok "tlgen kineto $*"; }
}

# 1. the Kineto of 2021 (Kernel, Memcpy, Memset, Runtime, Operator): per step the
#    TensorBoard plugin's Kernel (the kernels launched in the step, and as the plugin's
#    overview computes it), and every HTA number; 10 kernels launched before the capture
gen k2021 --version 2021 --steps 3 --launches 150 --precapture 10 --seed 3
summary k2021 "$t_tmp/k2021.trace.json"
ref tb "$t_tmp/k2021.trace.json" "$t_tmp/k2021.json"
ref tbplugin "$t_tmp/k2021.trace.json" "$t_tmp/k2021.json"
ref compare "$t_tmp/k2021.trace.json" "$t_tmp/k2021.json"
check "2021: device activity and computing on every step" python3 -c "
import json, sys
d = json.load(open('$t_tmp/k2021.json'))
r = d['ranks'][0]
sys.exit(not (r['device_activity'] and all(s['computing_ns'] > 0 for s in r['steps'])))"
check "2021: bubbles found (the device idles between its kernels)" python3 -c "
import json, sys
sys.exit(not json.load(open('$t_tmp/k2021.json'))['bubbles'])"

# 2, 3. today's categories with NCCL kernels, with and without ac2g flows: the work of a step
#    runs into the next step's host range, so only the launch gives its step
for flows in flows no-flows; do
	if [ $flows = flows ]; then extra=; else extra=--no-flows; fi
	gen "k$flows" --comm --steps 4 --launches 200 --precapture 10 --after 7 --seed 5 $extra
	summary "k$flows" "$t_tmp/k$flows.trace.json"
	ref compare "$t_tmp/k$flows.trace.json" "$t_tmp/k$flows.json"
	ref tb "$t_tmp/k$flows.trace.json" "$t_tmp/k$flows.json"
	python3 "$REF" count "$t_tmp/k$flows.trace.json" "$t_tmp/k$flows.json" > "$t_tmp/count"
	read -r _ n ms < "$t_tmp/count"
	check "$flows: one warning line gives the $n events launched before the capture and their $ms ms" \
		sh -c "[ \$(grep -c 'launched before the capture' '$t_tmp/k$flows.err') -eq 1 ] &&
		       grep -q ': $n device events ($ms ms) launched before the capture' '$t_tmp/k$flows.err'"
	check "$flows: one more gives the 7 kernels launched after the last step" \
		sh -c "[ \$(grep -c 'launched outside every ProfilerStep' '$t_tmp/k$flows.err') -eq 1 ] &&
		       grep -q ': 7 device events (0.070 ms) launched outside every ProfilerStep' '$t_tmp/k$flows.err'"
	check "$flows: memory is measured (HTA's memcpy / memset union)" python3 -c "
import json, sys
sys.exit(not all(s['memory_ns'] > 0 for s in json.load(open('$t_tmp/k$flows.json'))['ranks'][0]['steps']))"
done
# one step: the work launched before the capture is still in no step
gen one --comm --steps 1 --launches 120 --precapture 5
summary one "$t_tmp/one.trace.json"
ref compare "$t_tmp/one.trace.json" "$t_tmp/one.json"
gen nopre --steps 2 --launches 50
summary nopre "$t_tmp/nopre.trace.json"
check "no warning when every launch call is in the trace" test ! -s "$t_tmp/nopre.err"

# 9. a single-GPU inference job: no communication anywhere, so no gap is a collective's wait,
#    though its host thread waits in Python (threading.py wait) while the device idles
gen infer --inference --steps 3 --launches 100
summary infer "$t_tmp/infer.trace.json"
ref compare "$t_tmp/infer.trace.json" "$t_tmp/infer.json"
check "inference: the host's Python wait is no collective wait" python3 -c "
import json, sys
b = json.load(open('$t_tmp/infer.json'))['bubbles']
sys.exit(not (b and all(x['reason'] != 'collective_wait' for x in b)))"
check "inference: the 2 ms waits are the longest bubbles" python3 -c "
import json, sys
b = json.load(open('$t_tmp/infer.json'))['bubbles']
sys.exit(not (len(b) >= 2 and b[0]['duration_ns'] >= 2000000 and b[1]['duration_ns'] >= 2000000))"
"$TL_BIN" summary --no-cache "$t_tmp/infer.trace.json" > "$t_tmp/infer.txt" 2>&1
check "inference: the text summary names no collective_wait" sh -c "! grep -q collective_wait '$t_tmp/infer.txt'"

# the invariant, on every generated trace
for n in k2021 kflows kno-flows one nopre infer; do
	ref invariant "$t_tmp/$n.trace.json" "$t_tmp/$n.json"
done

# the real samples: HTA's numbers, and the invariant
found=0
for f in "$SAMPLES"/kineto/*.json; do
	[ -f "$f" ] || continue
	found=1
	b=${f##*/}
	summary "s_$b" "$f"
	ref compare "$f" "$t_tmp/s_$b.json"
	ref invariant "$f" "$t_tmp/s_$b.json"
done
[ $found = 1 ] || skip "no Kineto samples in $SAMPLES/kineto"
t_done
