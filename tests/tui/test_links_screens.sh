#!/bin/sh
# The link keys in script mode: u (the launch call, then the operator), v (the kernels, one
# after another), y (forward <-> backward operator), the link markers and the call-stack lines
# of the detail pane; on a generated profile and on the real samples (skipped without them).
. "$(dirname "$0")/lib_tui.sh"
VIEW_OPTS=--no-cache

if ! fixture two --ranks 2 --tasks 3000 --seed 7; then
	not_ok "generate the 2-rank fixture"
	t_done
	exit 1
fi
P=$t_tmp/two
msg() { tail -1 "$t_tmp/screen.txt"; }

# ---- a generated DB: every kernel has its CANN launch ----------------------------------------
view "$P" 120x40 ":goto 30ms" + + + + + + + + j j j j j "." u
check "u from a kernel selects its CANN launch call and says how long before" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Launch call launch, [0-9.]+ us before the task started *\$'"
check "... the host lanes are turned on for it" has "host CANN"
check "... and the call is selected" sh -c "sed -n 39p '$t_tmp/screen.txt' | grep -q 'sel launch'"
check "both ends on screen: each has a link marker" sh -c "[ \$(grep -o J '$t_tmp/screen.attr' | wc -l) -ge 2 ]"
golden link-launcher
view "$P" 120x40 ":goto 30ms" + + + + + + + + j j j j j "." u v
check "v from the launch call goes back to its kernel" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Kernel 1 of 1: aclnn'"
view "$P" 120x40 ":goto 30ms" + + + + + + + + j j j j j "." v
check "v on a kernel says it wants a host call" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Not a host call'"
view "$P" 120x40 ":goto 30ms" + + + + + + + + j j j j j "." y
check "y on a kernel says why there is no partner" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^No forward/backward partner: not a host operator'"
view "$P" 120x40 ":mark 10ms 60ms"
check "the range statistics have a host-bound column with a time per rank" sh -c "grep -q 'host-bound' '$t_tmp/screen.txt' && grep -Eq '^ rank 0 +([0-9]+\\.[0-9]{3} +){5}[0-9]+\\.[0-9]{3} *\$' '$t_tmp/screen.txt'"
view "$P" 120x40 u
check "u without a selection asks for one" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Select a slice first'"
view "$P" 120x40 ":goto 30ms" + + + + + + + + j j j j j "." "<Enter>"
check "the detail pane has the launch line of a kernel" sh -c "grep -Eq '^ launched by +launch \\(CANN\\)' '$t_tmp/screen.txt'"
check "... and its launch delay" sh -c "grep -Eq '^ launch delay +[0-9.]+ us' '$t_tmp/screen.txt'"

# ---- the real samples ------------------------------------------------------------------------
DB=$SAMPLES/ascend-db/level0/rank0_ascend_pt
if [ ! -d "$DB" ]; then
	skip "samples absent: $DB"
else
	view "$DB" 140x40 ":goto 20ms" j j "." u u
	check "u twice: the PyTorch operator behind the launch" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Operator aclnnMaxPool2dWithMask launched it'"
	golden link-operator
	view "$DB" 140x40 ":goto 20ms" j j "." u u v v
	check "v twice from the operator: its second kernel of three" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Kernel 2 of 3 of aclnnMaxPool2dWithMask: '"
	view "$DB" 140x40 H "/^ConvolutionBackward0" y
	check "y from a backward operator: its forward one" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Forward operator aten::conv2d'"
	view "$DB" 140x40 H "/^ConvolutionBackward0" y y
	check "y again: back to the backward one" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Backward operator ConvolutionBackward0'"
	view "$DB" 140x40 H "/^ConvolutionBackward0" y v
	check "v on an operator that launched nothing itself: the kernels of those inside it" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Kernel 1 of [0-9]+: '"
	view "$DB" 140x50 ":goto 20ms" j j "." u u "<Enter>"
	check "the operator's kernels in the detail pane" sh -c "grep -Eq '^ kernels +3, the first [0-9.]+ us after' '$t_tmp/screen.txt'"
	check "its call stack, innermost frame first" sh -c "grep -Eq '^ stack +/.*/torch/nn/functional.py\\([0-9]+\\): _max_pool2d' '$t_tmp/screen.txt'"
	golden link-stack
fi
TV=$SAMPLES/ascend-text/level1/rank0_ascend_pt
if [ ! -d "$TV" ]; then
	skip "samples absent: $TV"
else
	view "$TV" 140x40 ":goto 20ms" j j "." u
	check "trace_view.json: u follows the HostToDevice flow" sh -c "tail -1 '$t_tmp/screen.txt' | grep -Eq '^Launch call Node@launch, [0-9.]+ us before the task started \\(u again: its operator\\)'"
	view "$TV" 140x40 ":goto 20ms" j j "." u u
	check "... and again the async_npu flow to the operator" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Operator Conv2D launched it'"
	view "$TV" 140x40 ":goto 20ms" j j "." u u v
	check "... whose kernels v walks" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Kernel 1 of 4: '"
	view "$TV" 140x40 H "/^ConvolutionBackward0" y
	check "... and y follows its fwdbwd flows to the forward operator" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Forward operator aten::convolution'"
	# with_stack: an operator's "Call stack" arg frame by frame, innermost first, as the text has it
	view "$TV" 140x90 H "/^aten::empty" "<Enter>"
	ts=$(sed -n 's/^ ts  *\([0-9.]*\) *$/\1/p' "$t_tmp/screen.txt")
	python3 - "$TV/ASCEND_PROFILER_OUTPUT/trace_view.json" "$ts" > "$t_tmp/want" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1])):
    if e.get("ts") == sys.argv[2] and e.get("name") == "aten::empty":
        for f in e["args"]["Call stack"].split(";"):
            if f.strip():
                print(f.strip())
EOF
	sed -n '/^ stack /,$p' "$t_tmp/screen.txt" | sed '/^ slice /,$d; s/^ stack //; s/^ *//; s/ *$//' > "$t_tmp/got"
	check "trace_view.json: the Call stack's frames in the detail pane, innermost first" sh -c "[ -s '$t_tmp/got' ] && head -n \$(wc -l < '$t_tmp/got') '$t_tmp/want' | cmp -s - '$t_tmp/got'"
	check "... not the arg's escaped text" sh -c "! grep -q 'Call stack' '$t_tmp/screen.txt'"
	golden link-stack-json
	# the flows are kept in the model cache: a second, cached load links the same
	XDG_CACHE_HOME=$t_tmp/cache
	export XDG_CACHE_HOME
	VIEW_OPTS=
	view "$TV" 140x40 ":goto 20ms" j j "." u u
	view "$TV" 140x40 ":goto 20ms" j j "." u u
	check "... and so does a load from the model cache" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Operator Conv2D launched it' && [ -n \"\$(find '$t_tmp/cache' -type f | head -1)\" ]"
	view "$TV" 140x40 ":mark 10ms 60ms"
	check "trace_view.json: the host-bound column from its launch flows" sh -c "grep -Eq '^ rank 0 +([0-9]+\\.[0-9]{3} +){5}[0-9]+\\.[0-9]{3} *\$' '$t_tmp/screen.txt'"
fi
KT=$SAMPLES/kineto/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json
if [ ! -f "$KT" ]; then
	skip "samples absent: $KT"
else
	view "$KT" 140x40 ":mark 0ms 10s"
	check "a trace without device launches (CPU only) has no host-bound time: a dash" sh -c "grep -Eq '^ rank [0-9]+ .* - *\$' '$t_tmp/screen.txt'"
	TF=$SAMPLES/kineto/trace_filter__sampled_rank-0.json
	view "$TF" 140x40 "/elementwise" u u
	check "Kineto without ac2g flows: u by the correlation ids, then the operator around the call" sh -c "tail -1 '$t_tmp/screen.txt' | grep -q '^Operator aten::fill_ launched it'"
fi
t_done
