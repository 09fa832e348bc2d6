# `dcbpf ethereal` on one scratch namespace, no fabric (tests/integ/ethereal.sh
# runs the traffic):
#  - host attach, status and flows as text and JSON; the namespace's name has a
#    quote and a backslash and comes back intact from every JSON output;
#  - host set changes only what it names;
#  - every error is one JSON object on stdout with --json (usage and runtime);
#  - each subcommand takes only its own options (detach has no --no-links, set
#    no --leaf, status no --paths...);
#  - leaf attach and detach; detach removes every pin.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.  SC2317: cleanup
# runs from the EXIT trap.
# shellcheck disable=SC2015,SC2317
source "$(dirname "$0")/../lib/test.sh"

C=$BUILD/dcbpf
PIN=/sys/fs/bpf/dcbpf-ethcli$$
NS="dcbpf-e\"q\\b$$"
CG=""

cleanup() {
	"$C" --pin-dir "$PIN" ethereal host detach --netns "$NS" va0 >/dev/null 2>&1
	"$C" --pin-dir "$PIN" ethereal leaf detach --netns "$NS" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	rm -rf "$PIN"
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
}
t_cleanup cleanup

[ -x "$C" ] || { t_fail "eth cli: dcbpf built" "$C missing (run make)"; exit 1; }
D=("$C" --pin-dir "$PIN")
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cgroot" ] || { t_skip "eth cli" "no cgroup2 mount (the RTO re-path needs one)"; exit 0; }
CG=$cgroot/dcbpf-ethcli$$
mkdir "$CG" || { t_fail "eth cli: scratch cgroup" "mkdir $CG failed"; exit 1; }
ip netns add "$NS" || { t_fail "eth cli: a namespace named with a quote and a backslash" "ip netns add failed"; exit 1; }
ip -n "$NS" link add va0 type veth peer name vb0
ip -n "$NS" link set va0 up
ip -n "$NS" link set vb0 up

# ---- host ----------------------------------------------------------------------------
out=$("${D[@]}" ethereal host attach --netns "$NS" --mode ethereal --paths 4 --leaf 10.78.1.0/24=1 \
	--leaf 10.78.2.0/24=2,10.78.3.0/24=3 --cgroup "$CG" va0 2>&1)
rc=$?
[ $rc = 0 ] && [ -z "$out" ] && t_pass "eth cli: host attach (two --leaf, one with a list)" ||
	{ t_fail "eth cli: host attach" "rc=$rc: $out"; exit 1; }

st=$("${D[@]}" --json ethereal status)
echo "$st" | jq -e --arg ns "$NS" '.hosts | length == 1 and .[0].netns == $ns and .[0].mode == "ethereal"
	and .[0].paths == 4 and .[0].idle_ms == 2000 and .[0].avoid_ms == 1000 and .[0].flows == 0
	and (.[0].counters | has("pkts_seen") and has("flows_over_cap"))' >/dev/null &&
	t_pass "eth cli: status --json names the namespace exactly (quote and backslash escaped)" ||
	t_fail "eth cli: status --json" "$st"
st=$("${D[@]}" ethereal status --json --netns "$NS")
echo "$st" | jq -e --arg ns "$NS" '.hosts[0].netns == $ns and .leaves == []' >/dev/null &&
	t_pass "eth cli: status --netns NS --json (the global flag after the command)" ||
	t_fail "eth cli: status --netns --json" "$st"
st=$("${D[@]}" --json ethereal status --netns "nosuch$$")
[ "$st" = '{"hosts":[],"leaves":[]}' ] && t_pass "eth cli: status of a namespace with nothing attached: empty lists" ||
	t_fail "eth cli: status of an empty namespace" "$st"
st=$("${D[@]}" ethereal status)
[[ $st == *"host $NS: mode ethereal, paths 4, idle 2000 ms, avoid 1000 ms, flows 0"* ]] &&
	[[ $st == *"pkts_seen 0"* ]] && t_pass "eth cli: status as text" || t_fail "eth cli: status as text" "$st"
fl=$("${D[@]}" --json ethereal flows --netns "$NS")
[ "$fl" = "[]" ] && t_pass "eth cli: flows --json of an idle host: []" || t_fail "eth cli: flows --json" "$fl"
fl=$("${D[@]}" ethereal flows --netns "$NS")
[[ $fl == "source "*"idle_ms" ]] && t_pass "eth cli: flows as text: the heading only" || t_fail "eth cli: flows as text" "$fl"

out=$("${D[@]}" ethereal host set --netns "$NS" --mode spray --paths 3 2>&1)
rc=$?
st=$("${D[@]}" --json ethereal status --netns "$NS")
[ $rc = 0 ] && echo "$st" | jq -e '.hosts[0] | .mode == "spray" and .paths == 3 and .idle_ms == 2000 and
	.avoid_ms == 1000' >/dev/null && t_pass "eth cli: host set changes mode and paths, keeps the timers" ||
	t_fail "eth cli: host set" "rc=$rc: $out $st"
out=$("${D[@]}" --json ethereal host set --netns "$NS" --avoid-ms 0 --mode off 2>&1)
st=$("${D[@]}" --json ethereal status --netns "$NS")
echo "$st" | jq -e '.hosts[0] | .mode == "ecmp" and .paths == 3 and .avoid_ms == 0' >/dev/null &&
	echo "$out" | jq -e --arg ns "$NS" '. == {"netns": $ns, "mode": "ecmp", "paths": 3, "idle_ms": 2000, "avoid_ms": 0}' >/dev/null &&
	t_pass "eth cli: host set --mode off is ecmp, --avoid-ms 0 is 0 (not 'unchanged'); --json prints the result" ||
	t_fail "eth cli: host set off" "$out $st"

# ---- errors: one JSON object with --json, the reason in words otherwise ----------------------
out=$("${D[@]}" --json ethereal host attach --netns "$NS" --mode ethereal --paths 4 \
	--leaf 10.78.1.0/24=1 --cgroup "$CG" va0 2>/dev/null)
rc=$?
[ $rc = 1 ] && echo "$out" | jq -e --arg ns "$NS" '.code == 1 and .command == "dcbpf ethereal host attach"
	and (.error | contains("(netns " + $ns + ")") and contains("already has a host attached"))' >/dev/null &&
	t_pass "eth cli: a second host attach: a JSON error naming the namespace exactly, exit 1" ||
	t_fail "eth cli: second attach in JSON" "rc=$rc: $out"
out=$("${D[@]}" --json ethereal flows --netns "x\"y\\z" 2>/dev/null)
rc=$?
[ $rc = 1 ] && echo "$out" | jq -e '.error | startswith("no host attached in netns x\"y\\z")' >/dev/null &&
	t_pass "eth cli: flows of an unknown namespace: JSON error, name escaped" ||
	t_fail "eth cli: flows error in JSON" "rc=$rc: $out"
out=$("${D[@]}" --json ethereal host attach --netns "$NS" --mode ethereal --paths 16 \
	--leaf 10.78.1.0/24=1 va0 2>/dev/null)
rc=$?
[ $rc = 2 ] && echo "$out" | jq -e '.code == 2 and (.error | contains("--paths: 16 is above the maximum 15"))' >/dev/null &&
	t_pass "eth cli: --paths 16: a JSON usage error (exit 2)" || t_fail "eth cli: --paths 16 in JSON" "rc=$rc: $out"
out=$("${D[@]}" ethereal host attach --netns "$NS" --mode ethereal --paths 2 --leaf 10.78.1.0/24=16 va0 2>&1)
rc=$?
[ $rc = 2 ] && [[ $out == *"--leaf 10.78.1.0/24=16: the leaf id must be 0..15"* ]] &&
	t_pass "eth cli: a leaf id above 15 refused (usage)" || t_fail "eth cli: leaf id 16" "rc=$rc: $out"
out=$("${D[@]}" ethereal host attach --netns "$NS" --mode ethereal --paths 2 --leaf 10.78.1.0/=1 va0 2>&1)
rc=$?
[ $rc = 2 ] && [[ $out == *"--leaf: '10.78.1.0/': prefix length missing after '/'"* ]] &&
	t_pass "eth cli: a prefix with an empty length refused" ||
	t_fail "eth cli: prefix 10.78.1.0/" "rc=$rc: $out"

# each option only where it means something
bad() {	# bad WHAT EXPECTED ARGS...: exit 2 and the reason
	local what=$1 want=$2 out rc
	shift 2
	out=$("${D[@]}" "$@" 2>&1)
	rc=$?
	[ $rc = 2 ] && [[ $out == *"$want"* ]] && t_pass "eth cli: $what" || t_fail "eth cli: $what" "rc=$rc: $out"
}
bad "host detach takes no --no-links" "unknown option '--no-links'" ethereal host detach --netns "$NS" --no-links va0
bad "host set takes no --leaf" "unknown option '--leaf'" ethereal host set --netns "$NS" --leaf 10.0.0.0/8=1
bad "leaf detach takes no --ports" "unknown option '--ports'" ethereal leaf detach --netns "$NS" --ports vb0
bad "status takes no --paths" "unknown option '--paths'" ethereal status --paths 3
bad "flows needs --netns" "--netns NS is required" ethereal flows
bad "host attach needs --leaf" "--leaf PREFIX=ID[,...] is required" ethereal host attach --netns "$NS" --mode ethereal --paths 2 va0
bad "host attach needs IFACE" "missing IFACE" ethereal host attach --netns "$NS" --mode ethereal --paths 2 --leaf 10.0.0.0/8=1
bad "an unknown mode" "'sideways' is not one of" ethereal host set --netns "$NS" --mode sideways
bad "--idle-ms above an hour" "--idle-ms: 3600001 is above the maximum 3600000" ethereal host set --netns "$NS" --idle-ms 3600001

# ---- leaf -----------------------------------------------------------------------------------
out=$("${D[@]}" --json ethereal leaf attach --netns "$NS" --ports vb0 --uplinks va0 2>/dev/null)
rc=$?
[ $rc = 2 ] && echo "$out" | jq -e '.error | contains("IF=NEXTHOP")' >/dev/null &&
	t_pass "eth cli: an uplink without next hop: JSON usage error" || t_fail "eth cli: uplink without next hop" "rc=$rc: $out"
out=$("${D[@]}" ethereal leaf attach --netns "$NS" --ports vb0 --uplinks va0=10.0.0.2 2>&1)
rc=$?
st=$("${D[@]}" --json ethereal status --netns "$NS")
[ $rc = 0 ] && echo "$st" | jq -e --arg ns "$NS" '.leaves | length == 1 and .[0].netns == $ns and
	([.[0].paths[] | select(.tag == 1)][0].nexthop == "10.0.0.2") and (.[0].counters | has("steered"))' >/dev/null &&
	t_pass "eth cli: leaf attach, status lists its uplink (JSON)" || t_fail "eth cli: leaf attach" "rc=$rc: $out $st"
st=$("${D[@]}" ethereal status --netns "$NS")
[[ $st == *"leaf $NS:"*"  path 1: ifindex "*" via 10.0.0.2: 0 bytes, 0 packets"* ]] &&
	t_pass "eth cli: leaf status as text" || t_fail "eth cli: leaf status as text" "$st"

# ---- detach: nothing left ---------------------------------------------------------------------
out=$("${D[@]}" ethereal leaf detach --netns "$NS" && "${D[@]}" --json ethereal host detach --netns "$NS" va0)
rc=$?
left=$(ls -A "$PIN" 2>&1)
[ $rc = 0 ] && [ ! -e "$PIN/eth" ] && echo "$out" | jq -e --arg ns "$NS" \
	'. == {"netns": $ns, "role": "host", "iface": "va0", "detached": true}' >/dev/null &&
	t_pass "eth cli: leaf and host detach remove every pin; --json prints what was detached" ||
	t_fail "eth cli: detach" "rc=$rc: $out; $left"
st=$("${D[@]}" ethereal status)
[ "$st" = "ethereal: nothing attached under $PIN/eth" ] && t_pass "eth cli: status after detach: nothing attached" ||
	t_fail "eth cli: status after detach" "$st"
