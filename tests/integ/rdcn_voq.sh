# Integration: per-destination VOQs at the ToRs (`dcbpf rdcn voq`) in front
# of the circuit switch (bpf/rdcn.bpf.c, the referee) on a rotor fabric of
# 4 ToRs (fabric_rotor), the round robin without self-loops at §2.4's
# timing scaled by 100 (day 22.5 ms, night 2 ms; docs/rdcn.md).  A UDP
# stream from ToR 0 to ToR 2 at one datagram per 0.5 ms, sent at any time:
# the datagrams wait in ToR 0's VOQ toward ToR 2 until that pair's circuit
# is up, so every datagram arrives (none lost, none twice), the referee
# drops none of them (no night, no unmatched, no "no schedule" drop at
# ToR 0's port), what it passed is what ToR 2 received, its drop_nodest are
# exactly the driver's kick and drain frames, and every datagram arrives
# inside a day of a 0 -> 2 slot.  The datagrams still queued after the
# stream ends leave at the next 0 -> 2 day with nothing else arriving (the
# kick restarts the queue).  Printed: the gates' lateness and how late
# after a 0 -> 2 slot's start its first datagram arrived.
# host-suite: the gates are qdisc changes driven from user space on a slot clock; on 6.1 the
# classifier (dc_rd_voq) loads with the circuit switch's object that prog/test_rdcn_ref proves,
# and under emulation the timing check costs over a minute for what the host measures better.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

t_need_root "rdcn voq: rotor fabric with VOQs" "network namespaces and BPF need root"
command -v python3 >/dev/null || { t_skip "rdcn voq: rotor fabric" "python3 not installed (make deps)"; exit 0; }
command -v bpftool >/dev/null || { t_skip "rdcn voq: rotor fabric" "bpftool not installed (make deps)"; exit 0; }
D=$(realpath "$BUILD/dcbpf")
tmp=$(t_mktmp rdcn-voq) || exit 1
PIN=/sys/fs/bpf/dcbpf-test-rdvoq-$$
SECS=1.2 GAP_US=500

"$D" rdcn schedule --kind rr -n 4 --slot-ns 24500000 --reconf-ns 2000000 --out "$tmp/rr.sched" >/dev/null ||
	{ t_fail "rdcn voq: schedule" "dcbpf rdcn schedule failed"; exit 1; }
FAB_DCBPF=$D
if ! fabric_rotor 4 "$tmp/rr.sched" "$PIN"; then
	t_fail "rdcn voq: rotor fabric built, the circuit switch attached" "fabric_rotor failed"
	exit 1
fi
fabric_on_exit "rmdir $PIN 2>/dev/null"
OCS_DIR="$PIN/rdcn/$FAB_OCS"
ups=()
for i in 0 1 2 3; do ups+=(--uplink "${FAB_TORS[i]}/${FAB_ID}t${i}u0=$i/0"); done
fabric_bg "" "$D" --pin-dir "$PIN" --json rdcn voq --netns "$FAB_OCS" "${ups[@]}" --circuit-mbps 1000 \
	--guard-us 1000 --ms 20000 --ready "$tmp/voq.ready" >"$tmp/voq.json" 2>"$tmp/voq.err"
VOQ_PID=$FAB_LAST_PID
if wait_until 10 test -e "$tmp/voq.ready"; then
	t_pass "rdcn voq: 4 uplinks with 3 VOQs each, the classifier attached"
else
	t_fail "rdcn voq: VOQs set up" "$(cat "$tmp/voq.err")"
	exit 1
fi
classes=$(tc -n "${FAB_TORS[0]}" class show dev "${FAB_ID}t0u0" | grep -c '^class htb 1:')
gates=$(tc -n "${FAB_TORS[0]}" qdisc show dev "${FAB_ID}t0u0" | grep -c '^qdisc tbf')
[ "$classes" = 3 ] && [ "$gates" = 3 ] && t_pass "rdcn voq: ToR 0's uplink has an HTB class and a TBF gate per other ToR" ||
	t_fail "rdcn voq: ToR 0's VOQs" "$classes classes, $gates gates"


fabric_bg "${FAB_TORS[2]}" python3 tests/lib/rdcn_udp.py recv 10.77.2.1 60 "$tmp/recv.txt" "$tmp/sent.txt"
RECV_PID=$FAB_LAST_PID
wait_until 10 test -e "$tmp/recv.txt.ready" || t_fail "rdcn voq: receiver ready" "no ready file"
fabric_exec "${FAB_TORS[0]}" python3 tests/lib/rdcn_udp.py send 10.77.0.1 10.77.2.1 "$SECS" "$GAP_US" "$tmp/sent.txt" ||
	t_fail "rdcn voq: sender ran" "python3 sender failed"
wait "$RECV_PID" 2>/dev/null
kill -TERM "$VOQ_PID" 2>/dev/null
wait "$VOQ_PID" 2>/dev/null
bpftool -j map dump pinned "$OCS_DIR/dc_rd_pcnt" >"$tmp/pcnt.json" 2>/dev/null ||
	t_fail "rdcn voq: bpftool dumps the counters" "bpftool map dump failed"
echo "$FAB_RD_OUT" >"$tmp/attach.json"
"$D" --pin-dir "$PIN" --json rdcn status --netns "$FAB_OCS" >"$tmp/status.json" 2>&1 ||
	t_fail "rdcn voq: dcbpf rdcn status" "$(cat "$tmp/status.json")"

python3 - "$tmp" >"$tmp/verdict.txt" 2>"$tmp/verdict.err" <<'EOF'
import json, sys
sys.path.insert(0, "tests/lib")
from rdcnrun import load
d = sys.argv[1]
att, up, sent, recv, pc = load(d)
voq = json.load(open(d + "/voq.json"))
epoch, slot, day, period = att["flip_at_ns"], att["slot_ns"], att["day_ns"], att["period"]
p0, p2 = pc[0 * 8], pc[2 * 8]
nodest = sum(pc[i * 8]["drop_nodest"] for i in range(4))
DELIVERY = 5000000  # the receiver's wake-up after the switch passed it
outside = 0
first = {}
for seq, stamp, rt in recv:
    k = (rt - epoch) // slot
    ok = False
    for kk in (k, k - 1):
        if kk >= 0 and kk % period in up and epoch + kk * slot <= rt < epoch + kk * slot + day + DELIVERY:
            ok = True
            if stamp < epoch + kk * slot:  # it waited for this day
                first[kk] = min(first.get(kk, rt), rt)
    outside += not ok
lag = sorted(first[k] - (epoch + k * slot) for k in first)
waited = sorted(rt - st for _, st, rt in recv)
pct = lambda v, p: v[min(len(v) - 1, int(p * len(v)))] / 1000 if v else -1
print("sent", len(sent), "received", len(recv), "unique", len(set(s for s, _, _ in recv)))
print("switch_rx", p0["rx_pkts"], "switch_pass", p0["pass_pkts"], "out_tor2", p2["out_pkts"])
print("drop_nosched", p0["drop_nosched"], "drop_night", p0["drop_night"], "drop_unmatched", p0["drop_unmatched"],
      "drop_nodest_all", nodest, "drop_short", p0["drop_short"])
print("kicks", voq["kicks"], "errors", voq["errors"], "slots", voq["slots"])
st = json.load(open(d + "/status.json"))
same = all(p["tor"] * 8 + p["up"] in pc and all(p[k] == pc[p["tor"] * 8 + p["up"]][k] for k in pc[0])
           for p in st["ports"]) and len(st["ports"]) == 4
print("status_same_as_map", int(same))
print("outside_day", outside, "days_waited_for", len(lag))
print("open_late_us_p50 %s p99 %s max %s" % (voq["open_late_us"]["p50"], voq["open_late_us"]["p99"], voq["open_late_us"]["max"]))
print("close_late_us_p50 %s p99 %s max %s" % (voq["close_late_us"]["p50"], voq["close_late_us"]["p99"], voq["close_late_us"]["max"]))
print("first_after_open_us_p50 %.0f max %.0f" % (pct(lag, 0.5), pct(lag, 1.0)))
print("wait_us_p50 %.0f p99 %.0f max %.0f" % (pct(waited, 0.5), pct(waited, 0.99), pct(waited, 1.0)))
EOF
v() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/verdict.txt"; }
sed 's/^/   /' "$tmp/verdict.txt"
if ! grep -q '^outside_day' "$tmp/verdict.txt"; then
	t_fail "rdcn voq: the run's files read" "$(tail -n 3 "$tmp/verdict.err" | tr '\n' ' ') $(cat "$tmp/voq.err")"
	exit 1
fi
SENT=$(v sent) RECV=$(v received)
[ "${SENT:-0}" -gt 1000 ] && [ "$RECV" = "$SENT" ] && [ "$(v unique)" = "$SENT" ] &&
	t_pass "rdcn voq: every datagram arrived, none twice ($RECV of $SENT)" ||
	t_fail "rdcn voq: nothing lost" "received ${RECV:-none} (unique $(v unique)) of ${SENT:-none}"
[ "$(v drop_night)" = 0 ] && [ "$(v drop_unmatched)" = 0 ] && [ "$(v drop_nosched)" = 0 ] && [ "$(v drop_short)" = 0 ] &&
	t_pass "rdcn voq: the referee dropped nothing of ToR 0's at night, unmatched or before the schedule" ||
	t_fail "rdcn voq: referee drops" "$(sed -n 3p "$tmp/verdict.txt")"
[ "$(v switch_pass)" = "$RECV" ] && [ "$(v out_tor2)" = "$RECV" ] && [ "$(v switch_rx)" -ge "$RECV" ] &&
	t_pass "rdcn voq: passed at ToR 0's port = left by ToR 2's port = received" ||
	t_fail "rdcn voq: passed = received" "$(sed -n 2p "$tmp/verdict.txt"), received $RECV"
[ "$(v errors)" = 0 ] && [ "$(v kicks)" -gt 0 ] && [ "$(v drop_nodest_all)" = "$(v kicks)" ] &&
	t_pass "rdcn voq: drop_nodest = the driver's kick and drain frames ($(v kicks)), no gate change failed" ||
	t_fail "rdcn voq: kicks" "$(sed -n 3,4p "$tmp/verdict.txt" | tr '\n' ' ')"
[ "$(v status_same_as_map)" = 1 ] && t_pass "rdcn voq: dcbpf rdcn status shows the 4 ports' counters as the map holds them" ||
	t_fail "rdcn voq: rdcn status" "$(head -c 300 "$tmp/status.json")"
[ "$(v outside_day)" = 0 ] && [ "$(v days_waited_for)" -ge 10 ] &&
	t_pass "rdcn voq: every datagram arrived in a day of a 0 -> 2 slot; $(v days_waited_for) days released waiting ones" ||
	t_fail "rdcn voq: arrivals in 0 -> 2 days" "$(sed -n 5p "$tmp/verdict.txt")"

ID=$FAB_ID
fabric_teardown
left=$(ip netns list 2>/dev/null | grep -c "^$ID-")
if [ "$left" = 0 ] && [ ! -e "$PIN" ] && ! ip -o link show 2>/dev/null | grep -q ": $ID"; then
	t_pass "rdcn voq: teardown leaves no namespace, device or pin"
else
	t_fail "rdcn voq: teardown" "$left namespaces of $ID left; pins: $(ls -R "$PIN" 2>/dev/null | tr '\n' ' ')"
fi
