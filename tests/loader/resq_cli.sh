# `dcbpf resq` on one scratch namespace, no traffic (the tagger's packets:
# tests/prog/test_resq_prog.c):
#  - set, status and detach before any attach say it is not attached;
#  - attach refuses a missing --dev, an unknown interface (naming it, leaving
#    no pin), a namespace name bpffs cannot hold, and a second attach;
#  - a first attach starts with the documented defaults, shows its links
#    (egress and, with --cgroup, sockops) in status;
#  - set refuses thresholds out of order, more levels than classes and
#    --enable with --disable, keeping the old configuration; accepts PIAS
#    with six;
#  - detach removes every link and pin; again, it says so.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

t_need_root "resq cli"
C=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-resqcli$$
NS=dcbpf-resq$$
CG=""

cleanup() {
	"$C" --pin-dir "$PIN" resq detach --netns "$NS" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	rm -rf "$PIN"
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
}
t_cleanup cleanup

[ -x "$C" ] || { t_fail "resq cli: dcbpf built" "$C missing (run make)"; exit 1; }
D=("$C" --pin-dir "$PIN")
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cgroot" ]; then
	CG=$cgroot/dcbpf-resqcli$$
	mkdir "$CG" || { t_fail "resq cli: scratch cgroup" "mkdir $CG failed"; exit 1; }
fi
ip netns add "$NS" || { t_fail "resq cli: scratch namespace" "ip netns add failed"; exit 1; }
ip -n "$NS" link add va0 type veth peer name vb0
ip -n "$NS" link set va0 up

expect "resq cli: status before attach: not attached" 1 "ResQueue is not attached" \
	"${D[@]}" resq status --netns "$NS"
expect "resq cli: set before attach: not attached" 1 "ResQueue is not attached" \
	"${D[@]}" resq set --netns "$NS" --promote off
expect "resq cli: detach before attach: not attached" 1 "not attached in $NS" \
	"${D[@]}" resq detach --netns "$NS"
jqs "resq cli: --json status before attach: one error object, code 1" \
	'.code == 1 and (.error | test("not attached"))' "${D[@]}" --json resq status --netns "$NS"
expect "resq cli: attach needs --dev" 2 "dev" "${D[@]}" resq attach --netns "$NS"
expect "resq cli: attach to an unknown interface names it" 1 "nosuch0" \
	"${D[@]}" resq attach --netns "$NS" --dev nosuch0
[ ! -e "$PIN/resq" ] && t_pass "resq cli: the refused attach left no pin" ||
	t_fail "resq cli: the refused attach left no pin" "$(ls -R "$PIN" 2>&1 | tr '\n' ' ')"
expect "resq cli: a namespace name with a dot is refused" 2 "pin directory name" \
	"${D[@]}" resq attach --netns a.b --dev va0

cg_opt=()
[ -n "$CG" ] && cg_opt=(--cgroup "$CG")
# The tagger attaches through tcx links only (docs/resqueue.md): on a kernel
# without them (6.1) the attach is refused, named, and leaves nothing.
tcx=$("${D[@]}" --json status | jq -r '.features.tcx.present')
if [ "$tcx" != true ]; then
	expect "resq cli: no tcx on $(uname -r): attach refused with the reason" 1 \
		"no tcx links; the ResQueue tagger needs 6.6" "${D[@]}" resq attach --netns "$NS" --dev va0
	left=$(tc -n "$NS" filter show dev va0 egress 2>/dev/null | grep -c bpf)
	[ "$left" = 0 ] && [ ! -e "$PIN/resq" ] && t_pass "resq cli: no tcx: nothing left attached or pinned" ||
		t_fail "resq cli: no tcx: nothing left attached or pinned" "filters $left; $(ls -R "$PIN" 2>&1 | tr '\n' ' ')"
	[ -z "${T_FAILED:-}" ]
	exit
fi
expect "resq cli: attach to va0" 0 "resq: tagging va0 in $NS" \
	"${D[@]}" resq attach --netns "$NS" --dev va0 "${cg_opt[@]}"
links='[.links[].egress // empty] == ["va0"]'
[ -n "$CG" ] && links="$links and ([.links[].sockops // empty] | length) == 1"
jqs "resq cli: status: defaults (any, 32K,256K, levels 2..4, CS7 for level 1, 20000 B) and the links" \
	".enabled and .promote == \"any\" and .thresholds_bytes == [32768, 262144] and
	 .base_level == 2 and .lowest_level == 4 and .reserved_bytes == 20000 and .cs_top == 7 and $links and
	 (.counters | has(\"tagged\") and has(\"promoted\")) and (.flows | type) == \"array\"" \
	"${D[@]}" --json resq status --netns "$NS"
# the counters in the Prometheus text, labelled with the namespace
m=$("${D[@]}" metrics 2>&1)
grep -q "^dcbpf_resq_tagged_total{netns=\"$NS\"} [0-9]" <<<"$m" &&
	t_pass "resq cli: dcbpf metrics: dcbpf_resq_tagged_total{netns=\"$NS\"}" ||
	t_fail "resq cli: dcbpf metrics: dcbpf_resq_tagged_total{netns=\"$NS\"}" "$(grep -m3 resq <<<"$m")"
# bpftool 7.1 does not list tcx links per device: the program is loaded
# while its link holds it and gone once detach drops the link
bpftool prog show name dc_resq_egress 2>/dev/null | grep -q dc_resq_egress &&
	t_pass "resq cli: dc_resq_egress loaded while attached" ||
	t_fail "resq cli: dc_resq_egress loaded while attached" "$(bpftool prog show name dc_resq_egress 2>&1)"
expect "resq cli: a second attach to va0 is refused" 1 "already attached to va0" \
	"${D[@]}" resq attach --netns "$NS" --dev va0

expect "resq cli: thresholds out of order refused" 2 "above the one before" \
	"${D[@]}" resq set --netns "$NS" --thresholds 64K,32K
expect "resq cli: a threshold that is not a size refused" 2 "'3x' must be" \
	"${D[@]}" resq set --netns "$NS" --thresholds 1K,3x
expect "resq cli: six thresholds from level 2 refused (past CS7)" 2 "reach level 8" \
	"${D[@]}" resq set --netns "$NS" --thresholds 1K,2K,3K,4K,5K,6K
expect "resq cli: --cs-top 2 with levels 2..4 refused (level 4 below CS0)" 2 "below CS0" \
	"${D[@]}" resq set --netns "$NS" --cs-top 2
expect "resq cli: --cs-top 8 refused" 2 "cs-top" "${D[@]}" resq set --netns "$NS" --cs-top 8
expect "resq cli: --enable with --disable refused" 2 "one or the other" \
	"${D[@]}" resq set --netns "$NS" --enable --disable
expect "resq cli: --idle-us not a number refused" 2 "idle-us: want microseconds" \
	"${D[@]}" resq set --netns "$NS" --idle-us 2ms
expect "resq cli: --idle-us past 32 bits refused" 2 "idle-us: want microseconds" \
	"${D[@]}" resq set --netns "$NS" --idle-us 4294967296
jqs "resq cli: refused sets left the configuration as it was" \
	'.promote == "any" and .thresholds_bytes == [32768, 262144] and .enabled and .cs_top == 7 and .idle_us == 0' \
	"${D[@]}" --json resq status --netns "$NS"
expect "resq cli: --idle-us 2000 set" 0 "" "${D[@]}" resq set --netns "$NS" --idle-us 2000
expect "resq cli: status names the restart" 0 "restart after 2000 us idle" "${D[@]}" resq status --netns "$NS"
expect "resq cli: --idle-us 0 turns it off" 0 "" "${D[@]}" resq set --netns "$NS" --idle-us 0
jqs "resq cli: idle_us 0 again, the rest kept" '.idle_us == 0 and .cs_top == 7 and .enabled' \
	"${D[@]}" --json resq status --netns "$NS"
expect "resq cli: PIAS with six thresholds (levels 1..7)" 0 "" \
	"${D[@]}" resq set --netns "$NS" --promote off --thresholds 1K,2K,3K,4K,5K,6M --disable
jqs "resq cli: status shows PIAS, levels 1..7, disabled" \
	'.promote == "off" and .base_level == 1 and .lowest_level == 7 and (.enabled | not) and
	 .thresholds_bytes[5] == 6291456' "${D[@]}" --json resq status --netns "$NS"

nlinks=1
[ -n "$CG" ] && nlinks=2
expect "resq cli: detach takes off $nlinks link(s)" 0 "detached \\($nlinks link" \
	"${D[@]}" resq detach --netns "$NS"
[ ! -e "$PIN/resq" ] && t_pass "resq cli: detach removed every pin" ||
	t_fail "resq cli: detach removed every pin" "$(ls -R "$PIN/resq" 2>&1 | tr '\n' ' ')"
! bpftool prog show name dc_resq_egress 2>/dev/null | grep -q dc_resq_egress &&
	t_pass "resq cli: the tagger is unloaded (no link holds it)" ||
	t_fail "resq cli: the tagger is unloaded (no link holds it)" "$(bpftool prog show name dc_resq_egress)"
expect "resq cli: detach again: not attached" 1 "not attached" "${D[@]}" resq detach --netns "$NS"

[ -z "${T_FAILED:-}" ]
