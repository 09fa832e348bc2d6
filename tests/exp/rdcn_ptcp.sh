#!/usr/bin/env bash
# PowerTCP on a reconfigurable network (Addanki's thesis §2.4, Fig. 2.8):
# long flows from one ToR to another over a rotor circuit, per variant the
# pair's throughput and VOQ as time series, the circuit's utilisation per
# day and the queueing delay in the VOQ.  Variants: powertcp (INT's rate
# follows the slot: the circuit's while the pair's circuit is up, 0
# otherwise), theta_powertcp (RTT only), hpcc (INT), and retcp, a
# reTCP-style baseline built from what the fabric has: CUBIC with the
# pair's VOQ sized to a whole day of circuit bytes, so a day's data can be
# buffered before the day (reTCP's prebuffering by a larger VOQ, NSDI'20),
# without reTCP's dynamic VOQ resizing and without its circuit-state ECN
# feedback (no cwnd boost: nothing in dcbpf raises a CUBIC window at a
# circuit edge).  cubic, the same with the default VOQ, runs too.
#
# Fabric (tests/lib/rdcnfab.sh): 4 ToRs on one circuit switch, the round
# robin without self-loops, §2.4's timing scaled by 100 (day 22.5 ms,
# night 2 ms, circuit 1 Gbit/s for 100 Gbit/s), per-destination VOQs on
# every ToR (`dcbpf rdcn voq`), the receiver host behind ToR 2 over a wire
# delaying its ACKs so the base RTT is 2.4 ms (a day ≈ 9.4 RTTs, as
# §2.4's 225 µs day at 24 µs).  FLOWS connections from ToR 0 to the host.
#
#   sudo tests/exp/rdcn_ptcp.sh           # SHORT=0: every variant, REPS 3, SECS 3 (about 2 min)
#   SHORT=1                               # the make-check mode: powertcp and retcp, 1 rep, 1.5 s
#
# Writes $OUT/summary.json, runs.csv (one row per variant and repetition),
# summary.csv (variant,metric,n,min,median,max), series.csv (variant,t_ms,
# throughput_mbps,voq_bytes,day: repetition 1, 1 ms bins), days.csv (one
# row per variant, repetition and day), series.png, tail.png.
# runs.jsonl keeps what each run measured besides the files (ANALYZE_ONLY=1
# redoes the analysis and plots from them).
# Env: CCS, REPS, SECS, FLOWS (4), DELAY_US (2300), BUILD, OUT
# (out/rdcn-exp/ptcp). Holds /tmp/dcbpf-suite.lock while the fabric is up
# (unless the caller holds it: DCBPF_SUITE_LOCKED=1).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/rdcn-exp/ptcp}")
SHORT=${SHORT:-0}
ALL="powertcp theta_powertcp hpcc retcp cubic"
case $SHORT in
0) CCS=${CCS:-$ALL} REPS=${REPS:-3} SECS=${SECS:-3} ;;
1) CCS=${CCS:-powertcp retcp} REPS=${REPS:-1} SECS=${SECS:-1.5} ;;
*) echo "rdcn_ptcp: SHORT is 0 or 1, not '$SHORT'" >&2; exit 2 ;;
esac
for v in $CCS; do
	case " $ALL " in *" $v "*) ;; *) echo "usage: CCS='$ALL' (a subset); not '$v'" >&2; exit 2 ;; esac
done
FLOWS=${FLOWS:-4} DELAY_US=${DELAY_US:-2300}
NTOR=4 SRC=0 DST=2 SLOT_NS=24500000 NIGHT_NS=2000000 CIRCUIT_MBPS=1000
VOQ_BYTES=1000000
# reTCP-style: the VOQ holds a whole day at the circuit's rate
RETCP_VOQ_BYTES=$((CIRCUIT_MBPS * (SLOT_NS - NIGHT_NS) / 8000))
WARM_S=0.4
export BUILD
die() { echo "rdcn_ptcp: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in jq gnuplot python3 bpftool; do command -v $c >/dev/null || die "'$c' not found (make deps)"; done
for t in dcbpf dcbpfd tools/qsample tools/incast tools/delayline; do [ -x "$BUILD/$t" ] || die "$BUILD/$t not built (make)"; done
mkdir -p "$OUT"
rc=0
if [ "${ANALYZE_ONLY:-0}" != 1 ]; then	# else: the analysis of the files a run left in $OUT
rm -f "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.png "$OUT"/*.plt "$OUT"/*.err "$OUT"/*.ready "$OUT"/*.jsonl

source tests/lib/suitelock.sh && suite_lock_take
source tests/lib/fabric.sh
source tests/lib/dcbpfd.sh
source tests/lib/rdcnfab.sh
PIN=/sys/fs/bpf/dcbpf-rdexp-$$
D=$(realpath "$BUILD/dcbpf")
FAB_DCBPF=$D
"$D" rdcn schedule --kind rr -n $NTOR --slot-ns $SLOT_NS --reconf-ns $NIGHT_NS --out "$OUT/rr.sched" >/dev/null ||
	die "dcbpf rdcn schedule failed"
# Links carry 36 bytes more than the hosts' MTU: room for the INT option.
export FAB_INT_ROOM=36
rdfab_up $NTOR "$OUT/rr.sched" "$PIN" || die "$RDFAB_ERR"
echo "$FAB_RD_OUT" >"$OUT/attach.json"
T0=${FAB_TORS[SRC]} T2=${FAB_TORS[DST]}
# the receiver host behind ToR 2; the wire delays what it sends (the ACKs)
fabric_make_ns h$DST && H=$FAB_LAST_NS || die "namespace"
fabric_make_wire "$T2" "t${DST}h" "$H" "h${DST}t" "$DELAY_US" ba || die "wire to the receiver"
TH=$FAB_LAST_DEV_A HT=$FAB_LAST_DEV_B
RIP=10.77.$DST.2
mac() { ip -n "$1" -o link show dev "$2" | sed 's/.*link\/ether \([^ ]*\).*/\1/'; }
ip -n "$H" addr add "$RIP/32" dev "$HT" &&
	ip -n "$H" neigh replace 10.77.$DST.1 dev "$HT" lladdr "$(mac "$T2" "$TH")" nud permanent &&
	ip -n "$H" route add 10.77.0.0/16 via 10.77.$DST.1 dev "$HT" onlink src "$RIP" mtu lock 1500 &&
	ip -n "$T2" neigh replace "$RIP" dev "$TH" lladdr "$(mac "$H" "$HT")" nud permanent &&
	ip -n "$T2" route add "$RIP/32" dev "$TH" mtu lock 1500 &&
	ip -n "$T0" route add "$RIP/32" via 10.77.$DST.1 dev "${FAB_ID}t${SRC}u0" onlink src 10.77.$SRC.1 mtu lock 1500 ||
	die "receiver host routes"
ip netns exec "$H" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0

# τ: the smallest ping RTT over the circuit (pings sent at night wait in
# the VOQ for the next day; the smallest is one sent in a day)
rdfab_voq_start "$OUT/voq-ping.json" 3000 $VOQ_BYTES $CIRCUIT_MBPS || die "$RDFAB_ERR"
PING_US=$(fabric_exec "$T0" ping -c 60 -i 0.01 -W 1 -q "$RIP" | awk -F'[/ ]' '/^rtt/ { printf "%.0f", $7 * 1000 }')
rdfab_voq_stop
[ "${PING_US:-0}" -gt 0 ] || die "no ping reply from $RIP over the circuit"
TAU_US=$PING_US
dcbpfd_start "base_rtt_us = $TAU_US" "host_bw_mbps = $CIRCUIT_MBPS" "expected_flows = $FLOWS" ||
	die "dcbpfd: $DCBPFD_ERR"
DP=("$D" --pin-dir "$DCBPFD_PIN")
# INT: source + echo strip on ToR 0's uplink, sink + echo at the receiver,
# then the transit hop on ToR 0's uplink (after the source)
"${DP[@]}" int attach --netns "$T0" "${FAB_ID}t${SRC}u0" >/dev/null &&
	"${DP[@]}" int attach --netns "$H" "$HT" >/dev/null &&
	"${DP[@]}" int dst add 10.77.0.0/16 >/dev/null || die "INT host programs"
rdfab_int_tor "$DCBPFD_PIN" $SRC $CIRCUIT_MBPS || die "$RDFAB_ERR"
rd_down() {
	_rdfab_int_down "$DCBPFD_PIN"
	"${DP[@]}" int detach --netns "$T0" "${FAB_ID}t${SRC}u0" >/dev/null 2>&1
	"${DP[@]}" int detach --netns "$H" "$HT" >/dev/null 2>&1
	dcbpfd_stop
	fabric_teardown
}
echo "rdcn_ptcp: fabric $FAB_ID: $NTOR ToRs, day $(((SLOT_NS - NIGHT_NS) / 1000)) us, night $((NIGHT_NS / 1000)) us," \
	"circuit $CIRCUIT_MBPS Mbit/s, base RTT $PING_US us; $FLOWS flows ToR $SRC -> host behind ToR $DST"

mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
retrans() { ip netns exec "$T0" awk '/^Tcp:/ { if (!h) { for (i = 2; i <= NF; i++) f[$i] = i; h = 1; next } print $(f["RetransSegs"]) }' /proc/net/snmp; }
: >"$OUT/runs.jsonl"
port=6100 rc=0
for rep in $(seq 1 "$REPS"); do
	for v in $CCS; do
		cc=$v vb=$VOQ_BYTES
		[ "$v" = retcp ] && cc=cubic vb=$RETCP_VOQ_BYTES
		grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control ||
			{ echo "rdcn_ptcp: $cc not available; $v skipped" >&2; rc=1; continue; }
		port=$((port + 1))
		tag=$v-r$rep
		la0=$(cut -d' ' -f1 /proc/loadavg) r0=$(retrans) f0=$(rdfab_int_filled "$DCBPFD_PIN")
		fabric_bg "$H" "$BUILD/tools/incast" sink -p $port 2>"$OUT/sink-$tag.err"
		spid=$FAB_LAST_PID
		fabric_wait_port "$H" $port || { echo "rdcn_ptcp: $tag: sink not listening" >&2; rc=1; continue; }
		ms=$(awk -v s="$SECS" -v w="$WARM_S" 'BEGIN { printf "%d", (s + w + 3) * 1000 }')
		rdfab_voq_start "$OUT/voq-$tag.json" "$ms" "$vb" $CIRCUIT_MBPS || { echo "rdcn_ptcp: $RDFAB_ERR" >&2; rc=1; fabric_kill $spid; continue; }
		fabric_bg "$T0" "$BUILD/tools/qsample" -r -i 500 -d "${FAB_ID}t${SRC}u0" -t 60 -o "$OUT/q-$tag.csv"
		qpid=$FAB_LAST_PID
		t_start=$(mono_ns)
		fabric_bg "" "$BUILD/tools/incast" client -d "$RIP" -p $port -n "$T0" -f "$FLOWS" -s 1000000000000 -c "$cc" -t 900 \
			>/dev/null 2>"$OUT/client-$tag.err"
		cpid=$FAB_LAST_PID
		sleep "$(awk -v s="$SECS" -v w="$WARM_S" 'BEGIN { print s + w }')"
		t_end=$(mono_ns)
		fabric_kill $cpid
		fabric_kill $qpid
		rdfab_voq_stop
		fabric_kill $spid
		r1=$(retrans) f1=$(rdfab_int_filled "$DCBPFD_PIN") la1=$(cut -d' ' -f1 /proc/loadavg)
		jq -nc --arg v "$v" --arg cc "$cc" --argjson rep "$rep" --argjson vb "$vb" --argjson t0 "$t_start" \
			--argjson t1 "$t_end" --argjson rt $((r1 - r0)) --argjson fi $((f1 - f0)) --arg la0 "$la0" --arg la1 "$la1" \
			'{variant: $v, cc: $cc, rep: $rep, voq_bytes: $vb, t_start_ns: $t0, t_end_ns: $t1, retrans: $rt,
			  int_filled: $fi, loadavg_before: ($la0 | tonumber), loadavg_after: ($la1 | tonumber)}' >>"$OUT/runs.jsonl"
		echo "rdcn_ptcp: $tag: ran ($cc, VOQ $vb B), $((r1 - r0)) retransmitted, $((f1 - f0)) INT hops filled"
	done
done
rd_down
echo "$PING_US" >"$OUT/base_rtt_us"
fi
[ -s "$OUT/runs.jsonl" ] || die "no variant could run"
PING_US=$(cat "$OUT/base_rtt_us")

python3 - "$OUT" "$CIRCUIT_MBPS" "$SRC" "$DST" "$WARM_S" <<'EOF' || rc=1
import csv, json, sys
out, C, SRC, DST, WARM = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
att = json.load(open(out + "/attach.json"))
epoch, slot, day, period = att["flip_at_ns"], att["slot_ns"], att["day_ns"], att["period"]
match = {}
for line in open(out + "/rr.sched"):
    w = line.split("#")[0].split()
    if w and w[0] == "match":
        match[(int(w[1]), int(w[2]))] = [int(x) for x in w[3:]]
up = {t for t in range(period) if match[(t, 0)][SRC] == DST}
Bpns = C * 1e6 / 8 / 1e9  # circuit bytes per ns
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else None
def med(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2] if v else None
runs, days_rows, series = [], [], []
for r in map(json.loads, open(out + "/runs.jsonl")):
    tag = "%s-r%d" % (r["variant"], r["rep"])
    q = [tuple(map(int, row[:3])) for row in csv.reader(open(out + "/q-%s.csv" % tag)) if row and row[0].isdigit()]
    # its first line (a second one names what failed, e.g. late gate changes)
    voq = json.loads(open(out + "/voq-%s.json" % tag).readline())
    t_lo, t_hi = r["t_start_ns"] + WARM * 1e9, r["t_end_ns"]
    k0, k1 = int((t_lo - epoch) // slot) + 1, int((t_hi - epoch) // slot)
    days = []
    for k in range(k0, k1):
        if k % period not in up:
            continue
        s, e = epoch + k * slot, epoch + k * slot + day
        if e + 2e6 > t_hi:
            continue
        win = [x for x in q if s - 1e6 <= x[0] <= e + 2e6]
        if len(win) < 10:
            continue
        # bytes that left the VOQ (= went onto the circuit) in the day: the
        # counter at the last sample before the day and the first after it
        before = [x for x in win if x[0] <= s]
        after = [x for x in win if x[0] >= e]
        if not before or not after:
            continue
        sent = after[0][2] - before[-1][2]
        inday = [x for x in win if s <= x[0] < e]
        start_q = max([x[1] for x in win if s - 1e6 <= x[0] <= s + 0.5e6] or [0])
        # the delay a packet entering the open VOQ meets: its backlog at C
        delay = [x[1] / Bpns / 1e6 for x in inday]
        days.append({"k": k, "util": sent / (Bpns * day), "voq_start_bytes": start_q,
                     "voq_p50_bytes": pct([x[1] for x in inday], 0.5), "voq_p99_bytes": pct([x[1] for x in inday], 0.99),
                     "delay_ms": delay})
        days_rows.append([r["variant"], r["rep"], k, "%.4f" % (sent / (Bpns * day)), start_q,
                          pct([x[1] for x in inday], 0.5), pct([x[1] for x in inday], 0.99)])
    alld = [d for x in days for d in x["delay_ms"]]
    total = [x for x in q if t_lo <= x[0] <= t_hi]
    gp = (total[-1][2] - total[0][2]) * 8 / ((total[-1][0] - total[0][0]) / 1e3) if len(total) > 1 else 0
    row = dict(r)
    row.update({"days": len(days), "util_median": med([d["util"] for d in days]),
                "util_p10": pct([d["util"] for d in days], 0.1),
                "throughput_mbps": round(gp, 1),
                "voq_start_kb_median": (med([d["voq_start_bytes"] for d in days]) or 0) / 1e3,
                "voq_day_p50_kb": (pct([d["voq_p50_bytes"] for d in days], 0.5) or 0) / 1e3,
                "voq_day_p99_kb": (pct([x[1] for x in q if any(epoch + d["k"] * slot <= x[0] < epoch + d["k"] * slot + day for d in days)], 0.99) or 0) / 1e3,
                "delay_p50_ms": pct(alld, 0.5), "delay_p99_ms": pct(alld, 0.99), "delay_p999_ms": pct(alld, 0.999),
                "open_late_us_p99": voq["open_late_us"]["p99"], "close_late_us_p99": voq["close_late_us"]["p99"],
                "gate_errors": voq["errors"]})
    runs.append(row)
    if r["rep"] == 1 and len(q) > 1:
        # 1 ms bins over 4 weeks from the first day after the warm-up
        first = min((d["k"] for d in days), default=None)
        if first is not None:
            t0 = epoch + first * slot - 5e6
            bins = {}
            for a, b in zip(q, q[1:]):
                if t0 <= b[0] < t0 + 4 * period * slot:
                    i = int((b[0] - t0) // 1e6)
                    bins.setdefault(i, [0, 0, 0])
                    bins[i][0] += b[2] - a[2]
                    bins[i][1] = max(bins[i][1], b[1])
                    bins[i][2] += b[0] - a[0]
            for i in sorted(bins):
                t = t0 + i * 1e6
                kk = int((t - epoch) // slot)
                isday = int(kk % period in up and t - (epoch + kk * slot) < day)
                series.append([r["variant"], i - 5, "%.1f" % (bins[i][0] * 8 / bins[i][2] * 1e3 if bins[i][2] else 0), bins[i][1], isday])
cols = ["variant", "cc", "rep", "voq_bytes", "days", "util_median", "util_p10", "throughput_mbps", "voq_start_kb_median",
        "voq_day_p50_kb", "voq_day_p99_kb", "delay_p50_ms", "delay_p99_ms", "delay_p999_ms", "retrans", "int_filled",
        "open_late_us_p99", "close_late_us_p99", "gate_errors", "loadavg_before", "loadavg_after"]
with open(out + "/runs.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols)
    for r in runs:
        w.writerow([("%.4f" % r[c]) if isinstance(r[c], float) else ("" if r[c] is None else r[c]) for c in cols])
with open(out + "/days.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["variant", "rep", "slot_index", "util", "voq_start_bytes", "voq_p50_bytes", "voq_p99_bytes"])
    w.writerows(days_rows)
with open(out + "/series.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["variant", "t_ms", "throughput_mbps", "voq_bytes", "day"])
    w.writerows(series)
metrics = ["util_median", "util_p10", "throughput_mbps", "voq_start_kb_median", "voq_day_p50_kb", "voq_day_p99_kb",
           "delay_p50_ms", "delay_p99_ms", "retrans", "int_filled"]
summ = []
for v in dict.fromkeys(r["variant"] for r in runs):
    for m in metrics:
        vals = [r[m] for r in runs if r["variant"] == v and r[m] is not None]
        if vals:
            summ.append({"variant": v, "metric": m, "n": len(vals), "min": min(vals), "median": med(vals), "max": max(vals)})
with open(out + "/summary.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["variant", "metric", "n", "min", "median", "max"])
    for s in summ:
        w.writerow([s["variant"], s["metric"], s["n"]] + [("%.4f" % s[k]) if isinstance(s[k], float) else s[k] for k in ("min", "median", "max")])
with open(out + "/tail.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["variant", "util_median", "delay_p99_ms_median", "delay_p99_ms_min", "delay_p99_ms_max"])
    for v in dict.fromkeys(r["variant"] for r in runs):
        g = {s["metric"]: s for s in summ if s["variant"] == v}
        if "util_median" in g and "delay_p99_ms" in g:
            w.writerow([v, "%.4f" % g["util_median"]["median"], "%.3f" % g["delay_p99_ms"]["median"],
                        "%.3f" % g["delay_p99_ms"]["min"], "%.3f" % g["delay_p99_ms"]["max"]])
json.dump({"runs": runs, "summary": summ}, open(out + "/results.json", "w"))
print("\n%-15s %5s %9s %9s %10s %11s %11s %11s %9s" % ("variant", "days", "util", "util p10", "thr Mbit/s", "VOQ@start KB", "VOQ p99 KB", "delay p99 ms", "INT hops"))
for v in dict.fromkeys(r["variant"] for r in runs):
    g = {s["metric"]: s for s in summ if s["variant"] == v}
    f = lambda m, fmt="%.3f": (fmt % g[m]["median"]) + (" (%s-%s)" % (fmt % g[m]["min"], fmt % g[m]["max"]) if g[m]["n"] > 1 else "") if m in g else "-"
    print("%-15s %5d %s | %s | %s | %s | %s | %s | %s" % (v, sum(r["days"] for r in runs if r["variant"] == v), f("util_median"), f("util_p10"),
          f("throughput_mbps", "%.0f"), f("voq_start_kb_median", "%.0f"), f("voq_day_p99_kb", "%.0f"), f("delay_p99_ms", "%.2f"), f("int_filled", "%d")))
EOF
jq -n --slurpfile r "$OUT/results.json" --arg short "$SHORT" --argjson reps "$REPS" --arg secs "$SECS" \
	--argjson flows "$FLOWS" --argjson ping "$PING_US" --argjson slot $SLOT_NS --argjson night $NIGHT_NS \
	--argjson c $CIRCUIT_MBPS --argjson vb $VOQ_BYTES --argjson rvb $RETCP_VOQ_BYTES --argjson delay "$DELAY_US" \
	--arg host "$(uname -r), $(nproc) CPUs" --arg ccs "$CCS" '
	{schema: "dcbpf-rdcn-ptcp/1", experiment: "rdcn_ptcp",
	 figure: "PowerTCP on a reconfigurable network (Addanki, PhD thesis 2025, §2.4, Fig. 2.8)", short: $short,
	 params: {tors: 4, schedule: "round robin without self-loops", slot_ns: $slot, night_ns: $night,
	          day_ns: ($slot - $night), circuit_mbit: $c, time_scale: 100, flows: $flows, ack_delay_us: $delay,
	          base_rtt_us: $ping, voq_bytes: $vb, retcp_voq_bytes: $rvb, reps: $reps, secs: ($secs | tonumber),
	          variants: ($ccs | split(" ")), packet_network: false, host: $host},
	 runs: $r[0].runs, summary: $r[0].summary}' >"$OUT/summary.json" || rc=1
rm -f "$OUT/results.json"

# ---- plots ---------------------------------------------------------------
mapfile -t RAN < <(jq -r '[.runs[].variant] | unique | .[]' "$OUT/summary.json")
n=${#RAN[@]}
{
	echo "set terminal pngcairo size 900,$((190 * n + 60)) font ',9'"
	echo "set output '$OUT/series.png'"
	echo "set datafile separator ','"
	echo "set multiplot layout $n,1 title 'ToR $SRC -> ToR $DST over a rotor circuit ($CIRCUIT_MBPS Mbit/s, day 22.5 ms, week 73.5 ms): throughput (blue) and VOQ (red), 1 ms bins'"
	echo "set grid; set y2tics; set ytics nomirror; set yrange [0:$((CIRCUIT_MBPS * 12 / 10))]; set y2range [0:*]"
	for v in "${RAN[@]}"; do
		echo "set title '$v' noenhanced; set ylabel 'Mbit/s'; set y2label 'VOQ (KB)'"
		echo "plot '$OUT/series.csv' using (strcol(1) eq '$v' ? \$2 : 1/0):3 with lines lc rgb 'navy' notitle, \\"
		echo "     '' using (strcol(1) eq '$v' ? \$2 : 1/0):(\$4 / 1000) axes x1y2 with lines lc rgb 'dark-red' notitle"
	done
	echo "unset multiplot"
} >"$OUT/series.plt"
{
	echo "set terminal pngcairo size 700,400 font ',10'"
	echo "set output '$OUT/tail.png'"
	echo "set datafile separator ','"
	echo "set title 'Queueing delay in the open VOQ (backlog / circuit rate), p99, and circuit utilisation per day (median over repetitions)'"
	echo "set style fill solid 0.8; set boxwidth 0.35; set ylabel 'p99 delay (ms)'; set y2label 'utilisation'"
	echo "set yrange [0:*]; set y2range [0:1.05]; set ytics nomirror; set y2tics; set grid; set key top left; set xtics noenhanced"
	echo "plot '$OUT/tail.csv' every ::1 using (\$0 - 0.18):3:xtic(1) with boxes title 'p99 delay, ms (bars: min-max)' lc rgb 'dark-red', \\"
	echo "     '' every ::1 using (\$0 - 0.18):3:4:5 with yerrorbars lc rgb 'black' pt 0 notitle, \\"
	echo "     '' every ::1 using (\$0 + 0.18):2 axes x1y2 with boxes title 'utilisation per day' lc rgb 'navy'"
} >"$OUT/tail.plt"
for p in series tail; do
	gnuplot "$OUT/$p.plt" 2>"$OUT/gnuplot-$p.log" || { echo "rdcn_ptcp: gnuplot $p: $(tail -n 2 "$OUT/gnuplot-$p.log")" >&2; rc=1; }
done
echo "rdcn_ptcp: wrote $OUT/summary.json, runs.csv, summary.csv, days.csv, series.csv, series.png, tail.png"
exit $rc
