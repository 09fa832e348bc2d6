# docs/compat.md against itself and the built objects: each kernel column
# follows from the "since" column, and the helper and kfunc rows are exactly
# what the BPF objects call.  The kernel's own answers (`dcbpf status`) are
# tests/loader/compat.sh.  Read-only.
# kernel-independent: reads the doc and the object files only
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/compattable.sh

# Each documented column must itself follow from "since" (the doc is consistent).
bad=""
while read -r key since c61 c618; do
	for pair in "6.1:$c61" "6.18:$c618"; do
		k=${pair%%:*} v=${pair#*:}
		if ver_ge "$k" "$since"; then want=yes; else want=no; fi
		[ "$v" = "$want" ] || bad="$bad $key@$k=$v(since $since)"
	done
done <<<"$rows"
[ -z "$bad" ] && t_pass "compat: $DOC columns follow the since column" ||
	t_fail "compat: $DOC columns follow the since column" "mismatch:$bad"

# ---- the helper rows are the helpers the objects call ------------------------------
# A call instruction is opcode 0x85; with src_reg 0 (byte 2 = 00) it calls
# the helper whose id is the immediate.
defs=/usr/include/bpf/bpf_helper_defs.h
objs=$(ls "$BUILD"/*.bpf.o 2>/dev/null)
if [ -z "$objs" ] || ! command -v llvm-objdump >/dev/null || [ ! -r "$defs" ]; then
	t_fail "compat: helper rows match the objects" "need $BUILD/*.bpf.o (make), llvm-objdump (llvm) and $defs (libbpf-dev)"
	exit 0
fi
ids=$(for o in $objs; do llvm-objdump -d "$o"; done |
	awk '$2 == "85" && $3 == "00" { print $9 $8 $7 $6 }' | sort -u |
	while read -r hex; do echo $((16#$hex)); done)
used=$(for id in $ids; do
	sed -nE "s/^static .*\(\*(bpf_[a-z0-9_]+)\)\(.*= \(void \*\) $id;$/helper:\1/p" "$defs"
done
for o in $objs; do
	# kfunc calls reach the object as calls relocated against an undefined
	# (extern __ksym) symbol; calls between our own functions resolve locally.
	und=" $(llvm-objdump -t "$o" | awk '/\*UND\*/ { printf "%s ", $NF }')"
	llvm-objdump -dr "$o" | awk -v und="$und" \
		'/R_BPF_64_32/ && prev ~ /call/ && index(und, " " $NF " ") { print "kfunc:" $NF } { prev = $0 }'
done)
used=$(echo "$used" | grep . | sort -u)
doc=$(echo "$rows" | awk '$1 ~ /^(helper|kfunc):/ { print $1 }' | sort -u)
if [ -n "$used" ] && [ "$used" = "$doc" ]; then
	t_pass "compat: helper rows match the objects ($(echo "$used" | wc -l) helpers/kfuncs called)"
else
	t_fail "compat: helper rows match the objects" \
		"called but not in $DOC and loader/lib/features.c: $(comm -23 <(echo "$used") <(echo "$doc") | tr '\n' ' '); listed but not called: $(comm -13 <(echo "$used") <(echo "$doc") | tr '\n' ' ')"
fi
exit 0
