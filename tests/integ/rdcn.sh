# Integration: the circuit switch (bpf/rdcn.bpf.c) on a rotor fabric of
# 4 ToR namespaces and one circuit-switch namespace (fabric_rotor), the
# round robin without self-loops (3 slots) at §2.4's timing scaled by 100
# (day 22.5 ms, night 2 ms: docs/rdcn.md, "Time scaling").  A UDP stream
# from ToR 0 to ToR 2 at one datagram per 0.5 ms, each stamped with
# CLOCK_MONOTONIC just before it is sent: every datagram received was sent
# during a day of a slot that connects 0 to 2 (never in another slot,
# never after the day ended), the switch's counters agree with the sender
# and the receiver (entered = sent, passed = received = left by ToR 2's
# port, the rest dropped as no schedule, night or unmatched, and some of
# both kinds), and the datagrams whose stamp and verdict disagree (the
# timing error of a sender as seen by the switch) are few.  Teardown: no
# namespace, pin or link of the run is left.
# host-suite: on 6.1 the circuit switch's verdicts are proven by prog/test_rdcn_ref (the same
# object through BPF_PROG_TEST_RUN) and its cls_bpf attach path is the one the INT tests take;
# under emulation this test costs over a minute for a timing check the host makes better.
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"
source tests/lib/fabric.sh

t_need_root "rdcn: rotor fabric" "network namespaces and BPF need root"
command -v python3 >/dev/null || { t_skip "rdcn: rotor fabric" "python3 not installed (make deps)"; exit 0; }
command -v bpftool >/dev/null || { t_skip "rdcn: rotor fabric" "bpftool not installed (make deps)"; exit 0; }
D=$(realpath "$BUILD/dcbpf")
tmp=$(t_mktmp rdcn-fab) || exit 1
PIN=/sys/fs/bpf/dcbpf-test-rdcn-$$
SECS=1.2 GAP_US=500
[ "${DCBPF_VM:-0}" = 1 ] && SECS=1.5 GAP_US=2000	# emulated CPU: fewer, slower datagrams

"$D" rdcn schedule --kind rr -n 4 --slot-ns 24500000 --reconf-ns 2000000 --out "$tmp/rr.sched" >/dev/null ||
	{ t_fail "rdcn: schedule" "dcbpf rdcn schedule failed"; exit 1; }
FAB_DCBPF=$D
if ! fabric_rotor 4 "$tmp/rr.sched" "$PIN"; then
	t_fail "rdcn: rotor fabric built, the circuit switch attached" "fabric_rotor failed"
	exit 1
fi
fabric_on_exit "rmdir $PIN 2>/dev/null"	# after the detach fabric_rotor registered
t_pass "rdcn: rotor fabric built, the circuit switch attached (4 ToRs, round robin)"
OCS_DIR="$PIN/rdcn/$FAB_OCS"


fabric_bg "${FAB_TORS[2]}" python3 tests/lib/rdcn_udp.py recv 10.77.2.1 120 "$tmp/recv.txt" "$tmp/sent.txt"
RECV_PID=$FAB_LAST_PID
wait_until 10 test -e "$tmp/recv.txt.ready" || t_fail "rdcn: receiver ready" "no ready file"
# starts around the flip: the first datagrams may still meet no schedule
fabric_exec "${FAB_TORS[0]}" python3 tests/lib/rdcn_udp.py send 10.77.0.1 10.77.2.1 "$SECS" "$GAP_US" "$tmp/sent.txt" ||
	t_fail "rdcn: sender ran" "python3 sender failed"
wait "$RECV_PID" 2>/dev/null
bpftool -j map dump pinned "$OCS_DIR/dc_rd_pcnt" >"$tmp/pcnt.json" 2>/dev/null ||
	t_fail "rdcn: bpftool dumps the counters" "bpftool map dump failed"
echo "$FAB_RD_OUT" >"$tmp/attach.json"
# what ToR 2's stack saw, for a failure's message
{
	ip -n "${FAB_TORS[2]}" -s -o link show "${FAB_ID}t2u0"
	ip netns exec "${FAB_TORS[2]}" grep -E '^(Udp|Ip):' /proc/net/snmp
} >"$tmp/diag.txt" 2>&1

# every number from the files; the checks in one place
python3 - "$tmp" >"$tmp/verdict.txt" 2>"$tmp/verdict.err" <<'EOF'
import json, sys
sys.path.insert(0, "tests/lib")
from rdcnrun import load
d = sys.argv[1]
att, up, sent, recv, pc = load(d)
epoch, slot, day, period = att["flip_at_ns"], att["slot_ns"], att["day_ns"], att["period"]
p0, p2 = pc[0 * 8], pc[2 * 8]
def verdict(t):
    if t < epoch:
        return "nosched"
    k = (t - epoch) // slot
    off = (t - epoch) - k * slot
    if off >= day:
        return "night"
    return "pass" if k % period in up else "unmatched"
TOL = 2000000  # a sender preempted between its stamp and the send
outside = 0
for seq, stamp, rt in recv:
    k = (stamp - epoch) // slot if stamp >= epoch else -1
    ok = False
    for kk in (k, k + 1):
        if kk >= 0 and kk % period in up:
            start = epoch + kk * slot
            if start - TOL <= stamp < start + day:
                ok = True
    outside += not ok
want = {"pass": 0, "night": 0, "unmatched": 0, "nosched": 0}
for seq, stamp in sent:
    want[verdict(stamp)] += 1
got = set(s for s, _, _ in recv)
disagree = sum(1 for seq, stamp in sent if (verdict(stamp) == "pass") != (seq in got))
lat = sorted(rt - st for _, st, rt in recv)
pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] / 1000 if lat else -1
print("sent", len(sent), "received", len(recv), "unique", len(got))
print("switch_rx", p0["rx_pkts"], "switch_pass", p0["pass_pkts"], "out_tor2", p2["out_pkts"])
print("drop_nosched", p0["drop_nosched"], "drop_night", p0["drop_night"], "drop_unmatched", p0["drop_unmatched"],
      "drop_nodest", p0["drop_nodest"], "drop_short", p0["drop_short"])
print("by_stamp_pass", want["pass"], "by_stamp_night", want["night"], "by_stamp_unmatched", want["unmatched"],
      "by_stamp_nosched", want["nosched"])
print("outside_slot", outside, "disagree", disagree)
print("recv_delay_us_p50 %.0f p99 %.0f max %.0f" % (pct(0.5), pct(0.99), pct(1.0)))
EOF
v() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/verdict.txt"; }
sed 's/^/   /' "$tmp/verdict.txt"
if ! grep -q '^outside_slot' "$tmp/verdict.txt"; then
	t_fail "rdcn: the stream's files read" "$(tail -n 3 "$tmp/verdict.err" | tr '\n' ' ')"
	exit 1
fi
SENT=$(v sent) RECV=$(v received)
[ -n "$SENT" ] && [ "$SENT" -gt 100 ] && t_pass "rdcn: the stream ran ($SENT datagrams)" ||
	t_fail "rdcn: the stream ran" "$(cat "$tmp/verdict.txt" | tr '\n' ' ')"
[ "${RECV:-0}" -gt 0 ] && [ "$(v unique)" = "$RECV" ] && t_pass "rdcn: datagrams delivered ($RECV), none twice" ||
	t_fail "rdcn: datagrams delivered" "received ${RECV:-none}, unique $(v unique)"
[ "$(v outside_slot)" = 0 ] && t_pass "rdcn: every datagram delivered was sent during a day of a 0 -> 2 slot" ||
	t_fail "rdcn: delivered only in 0 -> 2 slots" "$(v outside_slot) of $RECV outside"
[ "$(v switch_rx)" = "$SENT" ] && t_pass "rdcn: the switch saw every datagram sent at ToR 0's port" ||
	t_fail "rdcn: the switch saw every datagram" "rx $(v switch_rx), sent $SENT"
[ "$(v switch_pass)" = "$RECV" ] && [ "$(v out_tor2)" = "$RECV" ] &&
	t_pass "rdcn: passed at ToR 0's port = left by ToR 2's port = received ($RECV)" ||
	t_fail "rdcn: passed = received" "pass $(v switch_pass), out $(v out_tor2), received $RECV; ToR 2: $(tr -s ' \n' ' ' <"$tmp/diag.txt")"
[ $(($(v drop_nosched) + $(v drop_night) + $(v drop_unmatched) + $(v switch_pass))) = "$SENT" ] &&
	[ "$(v drop_nodest)" = 0 ] && [ "$(v drop_short)" = 0 ] &&
	t_pass "rdcn: the rest dropped as no schedule, night or unmatched" ||
	t_fail "rdcn: drops by reason" "$(sed -n 3p "$tmp/verdict.txt")"
[ "$(v drop_night)" -gt 0 ] && [ "$(v drop_unmatched)" -gt 0 ] &&
	t_pass "rdcn: the stream crossed nights and other slots (drops of both reasons)" ||
	t_fail "rdcn: drops of both reasons" "$(sed -n 3p "$tmp/verdict.txt")"
# the switch decides by its own clock: only a datagram sent within its
# sender's stamp-to-send latency of an edge can disagree with its stamp
DIS=$(v disagree)
[ "$((DIS * 50))" -le "$SENT" ] && t_pass "rdcn: stamp and verdict disagree for $DIS of $SENT datagrams (<= 2 %)" ||
	t_fail "rdcn: timing error" "$DIS of $SENT disagree"

ID=$FAB_ID
fabric_teardown
left=$(ip netns list 2>/dev/null | grep -c "^$ID-")
if [ "$left" = 0 ] && [ ! -e "$PIN" ] && ! ip -o link show 2>/dev/null | grep -q ": $ID"; then
	t_pass "rdcn: teardown leaves no namespace, device or pin"
else
	t_fail "rdcn: teardown" "$left namespaces of $ID left; pins: $(ls -R "$PIN" 2>/dev/null | tr '\n' ' ')"
fi
