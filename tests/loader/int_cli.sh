# `dcbpf int` and `dcbpf trace` on one scratch namespace and pin dir, no daemon
# (tests/loader/intcfg.sh runs INT with dcbpfd, tests/integ/int.sh and cc.sh
# with traffic):
#  - int attach/detach all or nothing, with a JSON result;
#  - int status and dst list as text and JSON (--json reaches them), dst add
#    and del with a JSON result, bad prefixes and slot counts refused;
#  - every error one JSON object on stdout with --json;
#  - int switch attach of a switch that is not up: named, exit 1;
#  - trace: its options checked by the table, --switch and --cc exclusive,
#    a missing ring buffer a JSON error.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

C=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-intcli$$
NS=dcbpf-ic$$

cleanup() {
	"$C" --pin-dir "$PIN" int detach --netns "$NS" va0 vb0 >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	rm -rf "$PIN"
}
t_cleanup cleanup

[ -x "$C" ] || { t_fail "int cli: dcbpf built" "$C missing (run make)"; exit 1; }
D=("$C" --pin-dir "$PIN")
ip netns add "$NS" || { t_fail "int cli: scratch namespace" "ip netns add failed"; exit 1; }
ip -n "$NS" link add va0 type veth peer name vb0
ip -n "$NS" link set va0 up
ip -n "$NS" link set vb0 up

# ---- nothing attached yet --------------------------------------------------------------------
out=$("${D[@]}" --json int dst list 2>/dev/null)
rc=$?
[ $rc = 1 ] && echo "$out" | jqe '.code == 1 and .command == "dcbpf int dst list" and
	(.error | contains("dc_int_dst not pinned"))' >/dev/null &&
	t_pass "int cli: dst list before any attach: a JSON error" || t_fail "int cli: dst list, nothing pinned" "rc=$rc: $out"
out=$("${D[@]}" --json int status 2>&1)
rc=$?
[ $rc = 0 ] && echo "$out" | jqe '.hosts == null and .switches == [] and .destinations == null' >/dev/null &&
	t_pass "int cli: status --json with nothing attached (destinations null, no text)" ||
	t_fail "int cli: status --json, nothing attached" "rc=$rc: $out"

# ---- hosts: all or nothing ----------------------------------------------------------------------
out=$("${D[@]}" int attach --netns "$NS" va0 nosuch0 2>&1)
rc=$?
[ $rc = 1 ] && [[ $out == "dcbpf int attach: "*"nosuch0"* ]] && [ -z "$(ls "$PIN/int" 2>/dev/null)" ] &&
	t_pass "int cli: attach with one unknown interface: refused, named, nothing left attached" ||
	t_fail "int cli: attach all or nothing" "rc=$rc: $out; $(ls -R "$PIN/int" 2>&1)"
out=$("${D[@]}" --json int attach --netns "$NS" va0 vb0)
rc=$?
[ $rc = 0 ] && echo "$out" | jqe --arg ns "$NS" '.netns == $ns and .attached == ["va0", "vb0"]' >/dev/null &&
	t_pass "int cli: attach two interfaces, JSON result" || t_fail "int cli: attach" "rc=$rc: $out"

out=$("${D[@]}" int dst add 10.1.0.0/16 --slots 2 && "${D[@]}" --json int dst add 10.2.0.0/24)
rc=$?
[ $rc = 0 ] && echo "$out" | jqe '.added == "10.2.0.0/24" and .slots == 4' >/dev/null &&
	t_pass "int cli: dst add (default slots 4 in the JSON result)" || t_fail "int cli: dst add" "rc=$rc: $out"
out=$("${D[@]}" int dst list)
[ "$(echo "$out" | sort)" = "$(printf '10.1.0.0/16 slots 2\n10.2.0.0/24 slots 4')" ] &&
	t_pass "int cli: dst list as text" || t_fail "int cli: dst list as text" "$out"
out=$("${D[@]}" int dst list --json)
echo "$out" | jqe 'sort_by(.prefix) == [{"prefix": "10.1.0.0/16", "slots": 2, "sample_us": 0, "sample_qlen_bytes": 0, "giveup_ms": 0},
	{"prefix": "10.2.0.0/24", "slots": 4, "sample_us": 0, "sample_qlen_bytes": 0, "giveup_ms": 0}]' >/dev/null &&
	t_pass "int cli: dst list --json" || t_fail "int cli: dst list --json" "$out"
out=$("${D[@]}" --json int dst add 10.3.0.0/16 --sample-us 250 --sample-qlen-bytes 8000)
echo "$out" | jqe '.added == "10.3.0.0/16" and .sample_us == 250 and .sample_qlen_bytes == 8000' >/dev/null &&
	"${D[@]}" int dst list | grep -qx '10.3.0.0/16 slots 4 sample_us 250 sample_qlen_bytes 8000' &&
	t_pass "int cli: dst add --sample-us --sample-qlen-bytes, shown by dst list" || t_fail "int cli: sampled dst" "$out"
out=$("${D[@]}" int dst add 10.4.0.0/16 --sample-qlen-bytes 8000 2>&1)
rc=$?
[ $rc = 2 ] && grep -q -- '--sample-qlen-bytes needs --sample-us' <<<"$out" && ! "${D[@]}" int dst list | grep -q '^10.4.0.0/16' &&
	t_pass "int cli: --sample-qlen-bytes without --sample-us refused (exit 2), nothing written" ||
	t_fail "int cli: --sample-qlen-bytes alone" "rc=$rc: $out"
"${D[@]}" int dst del 10.3.0.0/16
out=$("${D[@]}" --json int status)
echo "$out" | jqe '(.hosts.counters | has("src_added") and has("src_tag_grown")) and (.destinations | length == 2)' >/dev/null &&
	t_pass "int cli: status --json: host counters, destinations" || t_fail "int cli: status --json" "$out"
out=$("${D[@]}" int status 2>&1)
[[ $out == "hosts: src_added 0 (gso 0) src_no_room 0"*"destinations:"*"10.1.0.0/16 slots 2"* ]] &&
	t_pass "int cli: status as text" || t_fail "int cli: status as text" "$out"

bad() {	# bad WHAT EXPECTED ARGS...: exit 2 and the reason
	local what=$1 want=$2 out rc
	shift 2
	out=$("${D[@]}" "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] && [[ $out == *"$want"* ]] && t_pass "int cli: $what" || t_fail "int cli: $what" "rc=$rc: $out"
}
bad "dst add of a prefix longer than 32" "'10.1.0.0/33': prefix length must be 0-32" int dst add 10.1.0.0/33
bad "dst add of a non-address" "'10.1.0/16': '10.1.0' is not an IPv4 address" int dst add 10.1.0/16
bad "dst add --slots 5" "--slots: 5 is above the maximum 4" int dst add 10.3.0.0/16 --slots 5
bad "dst add --slots 2x" "--slots: '2x' is not an unsigned integer" int dst add 10.3.0.0/16 --slots 2x
bad "dst del takes no --slots" "unknown option '--slots'" int dst del 10.1.0.0/16 --slots 2
bad "switch detach takes no --no-links" "unknown option '--no-links'" int switch detach --no-links s1
bad "attach needs an interface" "missing IFACE" int attach --netns "$NS"
bad "an unknown int subcommand" "unknown command 'stat' (did you mean 'status'?)" int stat
out=$("${D[@]}" --json int dst add 10.1.0.0/33 2>/dev/null)
rc=$?
[ $rc = 2 ] && echo "$out" | jqe '.code == 2 and (.error | contains("prefix length must be 0-32"))' >/dev/null &&
	t_pass "int cli: a bad prefix in JSON mode: one JSON error, exit 2" || t_fail "int cli: bad prefix in JSON" "rc=$rc: $out"
out=$("${D[@]}" int switch attach "nosw$$" 2>&1)
rc=$?
[ $rc = 1 ] && [[ $out == *"no switch at $PIN/sw/nosw$$"* ]] &&
	t_pass "int cli: switch attach of a switch that is not up: named, exit 1" || t_fail "int cli: switch attach" "rc=$rc: $out"

out=$("${D[@]}" --json int dst del 10.1.0.0/16)
[ "$(echo "$out" | jq -c .)" = '{"deleted":"10.1.0.0/16"}' ] && [ "$("${D[@]}" int dst list)" = "10.2.0.0/24 slots 4" ] &&
	t_pass "int cli: dst del" || t_fail "int cli: dst del" "$out"
out=$("${D[@]}" --json int detach --netns "$NS" va0 vb0)
rc=$?
[ $rc = 0 ] && echo "$out" | jqe '.detached == ["va0", "vb0"]' >/dev/null && [ ! -e "$PIN/int" ] &&
	[ ! -e "$PIN/dc_int_dst" ] && t_pass "int cli: detach: JSON result, the host pins and host-only maps gone" ||
	t_fail "int cli: detach" "rc=$rc: $out; $(ls "$PIN" 2>&1)"

# ---- trace ----------------------------------------------------------------------------------------
tbad() {
	local what=$1 want=$2 out rc
	shift 2
	out=$("${D[@]}" "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] && [[ $out == *"$want"* ]] && t_pass "trace cli: $what" || t_fail "trace cli: $what" "rc=$rc: $out"
}
tbad "--count 0" "--count: 0 is below the minimum 1" trace --count 0
tbad "--duration 0" "--duration: 0 is not above the minimum 0" trace --duration 0
tbad "--cc of another CC" "--cc: 'dctcp' is not one of powertcp, theta_powertcp" trace --cc dctcp
tbad "--switch with --cc" "--switch and --cc exclude each other" trace --switch s1 --cc powertcp
tbad "an extra argument" "unexpected argument 'extra'" trace extra
out=$("$C" --pin-dir "$PIN-none" trace --json --count 1 2>/dev/null)
rc=$?
[ $rc = 1 ] && echo "$out" | jqe '.command == "dcbpf trace" and (.error | contains("dc_cc_tr")) and (.error | contains("is dcbpfd running"))' >/dev/null &&
	t_pass "trace cli: no ring buffer pinned: a JSON error (--json after the command)" ||
	t_fail "trace cli: JSON error" "rc=$rc: $out"
# the INT object pinned the CC's trace ring and switch with its maps: a trace
# without traffic is an empty array, closed when --duration ends it
out=$(timeout 10 "${D[@]}" --json trace --duration 0.3 2>&1)
rc=$?
tron=$(bpftool map dump pinned "$PIN/dc_cc_tron" -j 2>/dev/null | jq '.[0].formatted.value // .[0].value')
[ $rc = 0 ] && [ "$out" = "[]" ] && [ "$tron" = 0 ] &&
	t_pass "trace cli: --json --duration with no events: [] and tracing off again" ||
	t_fail "trace cli: empty JSON trace" "rc=$rc tron=$tron: $out"
# tracing is a lease the reader renews while it polls: one killed with -9
# leaves a lease nobody renews, which runs out (include/dcbpf/types.h)
tron_v() { bpftool map dump pinned "$PIN/dc_cc_tron" -j 2>/dev/null | jq '.[0].formatted.value // .[0].value'; }
"${D[@]}" trace --duration 30 >/dev/null 2>&1 &
tpid=$!
l1=0
for _ in $(seq 50); do l1=$(tron_v); [ "$l1" != 0 ] && break; sleep 0.1; done
sleep 0.5
l2=$(tron_v)
kill -9 $tpid 2>/dev/null
wait $tpid 2>/dev/null
l3=$(tron_v)
sleep 0.5
l4=$(tron_v)
[ "$l1" != 0 ] && [ "$l2" -gt "$l1" ] && [ "$l3" != 0 ] && [ "$l4" = "$l3" ] &&
	t_pass "trace cli: a running trace renews its lease; killed with -9, nothing renews it ($l1 -> $l2 -> $l4 ms)" ||
	t_fail "trace cli: tracing lease" "running $l1 then $l2, after kill -9 $l3 then $l4"
out=$(timeout 10 "${D[@]}" --json trace --duration 0.2 2>&1)
rc=$?
[ $rc = 0 ] && [ "$out" = "[]" ] && [ "$(tron_v)" = 0 ] &&
	t_pass "trace cli: the next trace after a killed one runs and switches tracing off" ||
	t_fail "trace cli: trace after kill -9" "rc=$rc tron=$(tron_v): $out"
out=$("${D[@]}" --json trace --switch "nosw$$" 2>/dev/null)
rc=$?
[ $rc = 2 ] && echo "$out" | jqe '.error | contains("--switch")' >/dev/null &&
	t_pass "trace cli: --switch has no JSON form: said so in JSON" || t_fail "trace cli: --switch --json" "rc=$rc: $out"
