#!/usr/bin/env bash
# Mars and Vermilion at emulation scale (Addanki's thesis Ch. 7 and 8):
# long CUBIC flows over a rotor fabric with per-destination VOQs, per
# schedule the flows' throughput against what the theorems allow, and the
# ToRs' buffer occupancy against Theorem 16.
#
#   mars       9 ToRs, one uplink, a permutation demand (each ToR sends to
#              one other): Mars' de Bruijn schedule of degree 3 (Γ = 3,
#              shortest-path routing, one or two hops, relayed by the
#              intermediate ToR's own VOQ) against the complete graph with
#              self-loops (Γ = 9, one hop).  The toy of Ch. 7's Table 7.1
#              shrunk to 9 ToRs (n_t = 9, d = 3).
#   vermilion  4 ToRs, one uplink, a pairwise demand (0<->1, 2<->3):
#              Vermilion's schedule for that demand (Alg. 6, k = 3: 12
#              slots) against the oblivious round robin with self-loops
#              (Γ = 4), one hop.  Theorem 22: >= (k-1)/k (1 - Δ_r).
#
# Timing: the Mars example's slot (100 µs, 10 µs reconfiguration) and
# rates scaled by 100: slot 10 ms, night 1 ms, circuit 100 Mbit/s for
# 10 Gbit/s, so c·Δ = 125 KB per slot as at 10 Gbit/s and 100 µs.
#
#   sudo tests/exp/rdcn_mars.sh                # SHORT=0: both scenarios, REPS 3, SECS 5 (about 2 min)
#   SHORT=1                                    # the make-check mode: 1 rep, 2 s each
#   SCENARIOS=mars                             # one of them
#
# Writes $OUT/summary.json, runs.csv (scenario,schedule,rep: per-flow
# throughput min/median, bounds, buffer), flows.csv (every flow of every
# run), summary.csv (scenario,schedule,metric,n,min,median,max),
# throughput.png, buffer.png; the schedules as *.sched.
# Env: SCENARIOS, REPS, SECS, CIRCUIT_MBPS (100), BUILD, OUT (out/rdcn-exp/mars).
# Holds /tmp/dcbpf-suite.lock while it runs (unless the caller holds it: DCBPF_SUITE_LOCKED=1).
# shellcheck shell=bash
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$(realpath -m "${OUT:-out/rdcn-exp/mars}")
SHORT=${SHORT:-0}
case $SHORT in
0) REPS=${REPS:-3} SECS=${SECS:-5} ;;
1) REPS=${REPS:-1} SECS=${SECS:-2} ;;
*) echo "rdcn_mars: SHORT is 0 or 1, not '$SHORT'" >&2; exit 2 ;;
esac
SCENARIOS=${SCENARIOS:-mars vermilion}
for s in $SCENARIOS; do
	case $s in mars | vermilion) ;; *) echo "usage: SCENARIOS='mars vermilion' (a subset); not '$s'" >&2; exit 2 ;; esac
done
SLOT_NS=10000000 NIGHT_NS=1000000 CIRCUIT_MBPS=${CIRCUIT_MBPS:-100}
# far above what a run queues: the buffer a design needs is measured, not imposed
VOQ_BYTES=4000000
export BUILD
die() { echo "rdcn_mars: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for c in jq gnuplot python3 iperf3; do command -v $c >/dev/null || die "'$c' not found (make deps)"; done
for t in dcbpf tools/qsample; do [ -x "$BUILD/$t" ] || die "$BUILD/$t not built (make)"; done
mkdir -p "$OUT"
rm -f "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.png "$OUT"/*.plt "$OUT"/*.err "$OUT"/*.ready "$OUT"/*.jsonl "$OUT"/*.sched
D=$(realpath "$BUILD/dcbpf")
GBPS=$(awk -v c="$CIRCUIT_MBPS" 'BEGIN { print c / 1000 }')

# the schedules and the demand
printf '0 1 0 0\n1 0 0 0\n0 0 0 1\n0 0 1 0\n' >"$OUT/pairs.demand"
sched() { "$D" rdcn schedule --slot-ns $SLOT_NS --reconf-ns $NIGHT_NS "$@" >/dev/null || die "dcbpf rdcn schedule $*"; }
sched --kind mars -n 9 -d 3 --seed 1 --out "$OUT/mars-debruijn.sched"
sched --kind rr-self -n 9 --out "$OUT/mars-complete.sched"
sched --kind vermilion -m "$OUT/pairs.demand" -k 3 --out "$OUT/vermilion-vermilion.sched"
sched --kind rr-self -n 4 --out "$OUT/vermilion-oblivious.sched"
# the permutation of the mars scenario: i -> (i + 4) mod 9 (no fixed
# point); vermilion's demand: two pairs of ToRs exchanging traffic (each
# flow's ACKs ride its partner's circuit)
PERM9="4 5 6 7 8 0 1 2 3"
PAIRS4="1 0 3 2"

PIN=/sys/fs/bpf/dcbpf-rdmars-$$
source tests/lib/suitelock.sh && suite_lock_take
: >"$OUT/runs.jsonl"
rc=0 port=6300
source tests/lib/fabric.sh
source tests/lib/rdcnfab.sh
FAB_DCBPF=$D

# routes NAME N: shortest paths over the schedule's emulated graph (every
# matching's edges, self-loops left out), lowest next hop first; prints
# "i j next" for every pair whose next hop is not j itself
routes() {
	python3 - "$OUT/$1.sched" "$2" <<'EOF'
import sys
from collections import deque
n = int(sys.argv[2])
adj = {i: set() for i in range(n)}
for line in open(sys.argv[1]):
    w = line.split("#")[0].split()
    if w and w[0] == "match":
        for i, j in enumerate(map(int, w[3:])):
            if i != j:
                adj[i].add(j)
for i in range(n):
    prev = {i: None}
    dq = deque([i])
    while dq:
        u = dq.popleft()
        for v in sorted(adj[u]):
            if v not in prev:
                prev[v] = u
                dq.append(v)
    for j in range(n):
        if j == i or j not in prev:
            continue
        h = j
        while prev[h] != i:
            h = prev[h]
        if h != j:
            print(i, j, h)
EOF
}

for scen in $SCENARIOS; do
	if [ "$scen" = mars ]; then N=9 PERM=$PERM9 KINDS="debruijn complete"; else N=4 PERM=$PAIRS4 KINDS="vermilion oblivious"; fi
	read -ra DSTS <<<"$PERM"
	for rep in $(seq 1 "$REPS"); do
		for kind in $KINDS; do
			name=$scen-$kind tag=$scen-$kind-r$rep
			rdfab_up $N "$OUT/$name.sched" "$PIN" || die "$RDFAB_ERR"
			[ "$rep" = 1 ] && echo "$FAB_RD_OUT" >"$OUT/$name.attach.json"
			# relayed routes: i reaches j through next hop h
			routes "$name" $N >"$OUT/$name.routes"
			while read -r i j h; do
				ip -n "${FAB_TORS[i]}" route replace "10.77.$j.1/32" via "10.77.$h.1" dev "${FAB_ID}t${i}u0" onlink \
					src "10.77.$i.1" mtu lock 1500 || die "route $i -> $j via $h"
			done <"$OUT/$name.routes"
			ms=$(awk -v s="$SECS" 'BEGIN { printf "%d", (s + 6) * 1000 }')
			rdfab_voq_start "$OUT/voq-$tag.json" "$ms" $VOQ_BYTES "$CIRCUIT_MBPS" || die "$RDFAB_ERR"
			qpids=() spids=() cpids=()
			for ((i = 0; i < N; i++)); do
				fabric_bg "${FAB_TORS[i]}" "$BUILD/tools/qsample" -r -i 1000 -d "${FAB_ID}t${i}u0" -t 60 -o "$OUT/q-$tag-$i.csv"
				qpids+=("$FAB_LAST_PID")
			done
			la0=$(cut -d' ' -f1 /proc/loadavg)
			for ((i = 0; i < N; i++)); do
				port=$((port + 1))
				fabric_bg "${FAB_TORS[DSTS[i]]}" sh -c "exec iperf3 -s -1 -p $port -B 10.77.${DSTS[i]}.1 >/dev/null 2>&1"
				spids+=("$FAB_LAST_PID")
				fabric_wait_port "${FAB_TORS[DSTS[i]]}" $port || die "iperf3 server $i"
			done
			port0=$((port - N + 1))
			for ((i = 0; i < N; i++)); do
				# one second left out: the connections' set-up over circuits
				fabric_bg "${FAB_TORS[i]}" iperf3 -c "10.77.${DSTS[i]}.1" -p $((port0 + i)) -B "10.77.$i.1" -C cubic -w 4M \
					-t "$SECS" -O 1 -J --connect-timeout 3000 >"$OUT/iperf-$tag-$i.json" 2>"$OUT/iperf-$tag-$i.err"
				cpids+=("$FAB_LAST_PID")
			done
			for p in "${cpids[@]}"; do wait "$p" 2>/dev/null; done
			la1=$(cut -d' ' -f1 /proc/loadavg)
			for p in "${qpids[@]}" "${spids[@]}"; do fabric_kill "$p"; done
			rdfab_voq_stop
			jq -nc --arg s "$scen" --arg k "$kind" --argjson rep "$rep" --argjson n $N --arg perm "$PERM" \
				--arg la0 "$la0" --arg la1 "$la1" \
				'{scenario: $s, schedule: $k, rep: $rep, tors: $n, perm: ($perm | split(" ") | map(tonumber)),
				  loadavg_before: ($la0 | tonumber), loadavg_after: ($la1 | tonumber)}' >>"$OUT/runs.jsonl"
			fabric_teardown
			echo "rdcn_mars: $tag: $(for ((i = 0; i < N; i++)); do jq -r '.end.sum_received.bits_per_second // 0 | . / 1e6 | floor' "$OUT/iperf-$tag-$i.json" 2>/dev/null; done | tr '\n' ' ')Mbit/s"
		done
	done
done
[ -s "$OUT/runs.jsonl" ] || die "nothing ran"
for scen in $SCENARIOS; do
	if [ "$scen" = mars ]; then
		"$D" --json rdcn bounds -n 9 -u 1 -d 3 --slot-ns $SLOT_NS --reconf-ns $NIGHT_NS -c "$GBPS" >"$OUT/bounds-mars-debruijn.json" || rc=1
		"$D" --json rdcn bounds -n 9 -u 1 -d 9 --slot-ns $SLOT_NS --reconf-ns $NIGHT_NS -c "$GBPS" >"$OUT/bounds-mars-complete.json" || rc=1
	else
		"$D" --json rdcn bounds -n 4 -u 1 -d 4 -k 3 --slot-ns $SLOT_NS --reconf-ns $NIGHT_NS -c "$GBPS" >"$OUT/bounds-vermilion.json" || rc=1
	fi
done

python3 - "$OUT" "$CIRCUIT_MBPS" "$SLOT_NS" "$NIGHT_NS" "${RDFAB_GUARD_US:-1000}" <<'EOF' || rc=1
import csv, json, sys, glob
out, C, SLOT, NIGHT, GUARD = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) * 1000
DAY = SLOT - NIGHT
def med(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2] if v else None
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else None
def sched(name):
    m = {}
    for line in open("%s/%s.sched" % (out, name)):
        w = line.split("#")[0].split()
        if w and w[0] == "match":
            m[int(w[1])] = [int(x) for x in w[3:]]
    return [m[t] for t in sorted(m)]
def paths(name, n):
    nxt = {}
    for line in open("%s/%s.routes" % (out, name)):
        i, j, h = map(int, line.split())
        nxt[(i, j)] = h
    def path(i, j):
        p = [i]
        while p[-1] != j:
            p.append(nxt.get((p[-1], j), j))
        return list(zip(p, p[1:]))
    return path
def maxmin(flows, cap):
    # water-filling: every flow's max-min fair share over its edges
    rate, left, active = {}, dict(cap), set(range(len(flows)))
    while active:
        share = {}
        for e, c in left.items():
            users = [f for f in active if e in flows[f]]
            if users:
                share[e] = c / len(users)
        if not share:
            break
        e, s = min(share.items(), key=lambda x: x[1])
        for f in [f for f in active if e in flows[f]]:
            rate[f] = s
            active.discard(f)
            for e2 in flows[f]:
                left[e2] -= s
    return [rate.get(f, 0.0) for f in range(len(flows))]
runs, flows_rows = [], []
for r in map(json.loads, open(out + "/runs.jsonl")):
    name = "%s-%s" % (r["scenario"], r["schedule"])
    tag = "%s-r%d" % (name, r["rep"])
    n, perm = r["tors"], r["perm"]
    S = sched(name)
    G = len(S)
    # Corollary 1's emulated graph: an edge's capacity is its share of the
    # period's days; "usable": the days as the gates use them (closed a
    # guard before the night)
    cap, capu = {}, {}
    for m in S:
        for i, j in enumerate(m):
            if i != j:
                cap[(i, j)] = cap.get((i, j), 0) + C * DAY / SLOT / G
                capu[(i, j)] = capu.get((i, j), 0) + C * (DAY - GUARD) / SLOT / G
    path = paths(name, n)
    fl = [set(path(i, perm[i])) for i in range(n)]
    bound = maxmin(fl, cap)
    boundu = maxmin(fl, capu)
    got = []
    for i in range(n):
        try:
            j = json.load(open("%s/iperf-%s-%d.json" % (out, tag, i)))
            bps = j["end"]["sum_received"]["bits_per_second"] / 1e6
            rt = j["end"]["sum_sent"].get("retransmits", 0)
        except Exception:
            bps, rt = 0.0, None
        got.append(bps)
        flows_rows.append([r["scenario"], r["schedule"], r["rep"], i, perm[i], len(path(i, perm[i])), "%.2f" % bps,
                           "%.2f" % bound[i], "%.2f" % boundu[i], rt])
    # buffer: every ToR's VOQs together (its uplink's root qdisc), 1 ms samples
    peaks, p99s = [], []
    for i in range(n):
        b = [int(x[1]) for x in csv.reader(open("%s/q-%s-%d.csv" % (out, tag, i))) if x and x[0].isdigit()]
        peaks.append(max(b) if b else 0)
        p99s.append(pct(b, 0.99) or 0)
    arl = sum(len(path(i, perm[i])) for i in range(n)) / n
    voq = json.load(open("%s/voq-%s.json" % (out, tag)))
    row = dict(r)
    row.update({"period_slots": G, "arl": arl, "flow_mbps_min": min(got), "flow_mbps_median": med(got),
                "theta_measured": min(got) / C, "theta_median": med(got) / C,
                "bound_mbps_min": min(bound), "bound_usable_mbps_min": min(boundu),
                "theta_bound": min(bound) / C, "ratio_to_bound": (med([g / b for g, b in zip(got, boundu)])),
                "buffer_peak_kb_max": max(peaks) / 1e3, "buffer_peak_kb_median": med(peaks) / 1e3,
                "buffer_p99_kb_max": max(p99s) / 1e3,
                # Theorem 16 per node: B >= θ·c·ARD, ARD = ARL·Γ·Δ (at the rate measured)
                "thm16_kb_at_measured": med(got) * 1e6 / 8 * arl * G * SLOT / 1e9 / 1e3,
                "open_late_us_p99": voq["open_late_us"]["p99"], "close_late_us_p99": voq["close_late_us"]["p99"],
                "gate_errors": voq["errors"]})
    runs.append(row)
cols = ["scenario", "schedule", "rep", "tors", "period_slots", "arl", "flow_mbps_min", "flow_mbps_median", "theta_measured",
        "theta_median", "bound_mbps_min", "bound_usable_mbps_min", "theta_bound", "ratio_to_bound", "buffer_peak_kb_max",
        "buffer_peak_kb_median", "buffer_p99_kb_max", "thm16_kb_at_measured", "open_late_us_p99", "close_late_us_p99",
        "gate_errors", "loadavg_before", "loadavg_after"]
fmt = lambda x: ("%.4f" % x) if isinstance(x, float) else ("" if x is None else x)
with open(out + "/runs.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols)
    for r in runs:
        w.writerow([fmt(r[c]) for c in cols])
with open(out + "/flows.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["scenario", "schedule", "rep", "src", "dst", "hops", "mbps", "bound_mbps", "bound_usable_mbps", "retrans"])
    w.writerows(flows_rows)
metrics = ["flow_mbps_min", "flow_mbps_median", "theta_measured", "theta_median", "theta_bound", "ratio_to_bound",
           "buffer_peak_kb_max", "buffer_p99_kb_max", "thm16_kb_at_measured"]
summ = []
for key in dict.fromkeys((r["scenario"], r["schedule"]) for r in runs):
    for m in metrics:
        vals = [r[m] for r in runs if (r["scenario"], r["schedule"]) == key and r[m] is not None]
        if vals:
            summ.append({"scenario": key[0], "schedule": key[1], "metric": m, "n": len(vals),
                         "min": min(vals), "median": med(vals), "max": max(vals)})
with open(out + "/summary.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["scenario", "schedule", "metric", "n", "min", "median", "max"])
    for s in summ:
        w.writerow([s["scenario"], s["schedule"], s["metric"], s["n"], fmt(s["min"]), fmt(s["median"]), fmt(s["max"])])
with open(out + "/plot.csv", "w") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["label", "theta_median", "theta_min", "theta_max", "theta_bound", "buffer_kb", "buffer_min", "buffer_max", "thm16_kb"])
    for key in dict.fromkeys((r["scenario"], r["schedule"]) for r in runs):
        g = {s["metric"]: s for s in summ if (s["scenario"], s["schedule"]) == key}
        w.writerow(["%s/%s" % key, fmt(g["theta_median"]["median"]), fmt(g["theta_median"]["min"]), fmt(g["theta_median"]["max"]),
                    fmt(g["theta_bound"]["median"]), fmt(g["buffer_peak_kb_max"]["median"]), fmt(g["buffer_peak_kb_max"]["min"]),
                    fmt(g["buffer_peak_kb_max"]["max"]), fmt(g["thm16_kb_at_measured"]["median"])])
bounds = {}
for p in glob.glob(out + "/bounds-*.json"):
    bounds[p.split("/bounds-")[1][:-5]] = json.load(open(p))
json.dump({"runs": runs, "summary": summ, "bounds": bounds}, open(out + "/results.json", "w"))
print("\n%-10s %-10s %4s %5s %22s %22s %8s %22s %10s" % ("scenario", "schedule", "Γ", "ARL", "θ median flow (range)", "θ min flow (range)", "θ bound", "peak buffer KB (range)", "Thm16 KB"))
for key in dict.fromkeys((r["scenario"], r["schedule"]) for r in runs):
    g = {s["metric"]: s for s in summ if (s["scenario"], s["schedule"]) == key}
    r0 = [r for r in runs if (r["scenario"], r["schedule"]) == key][0]
    rg = lambda m, f="%.3f": (f % g[m]["median"]) + " (" + (f % g[m]["min"]) + "-" + (f % g[m]["max"]) + ")"
    print("%-10s %-10s %4d %5.2f %22s %22s %8.3f %22s %10.0f" % (key[0], key[1], r0["period_slots"], r0["arl"], rg("theta_median"),
          rg("theta_measured"), g["theta_bound"]["median"], rg("buffer_peak_kb_max", "%.0f"), g["thm16_kb_at_measured"]["median"]))
EOF
jq -n --slurpfile r "$OUT/results.json" --arg short "$SHORT" --argjson reps "$REPS" --arg secs "$SECS" \
	--argjson slot $SLOT_NS --argjson night $NIGHT_NS --argjson c "$CIRCUIT_MBPS" --argjson vb $VOQ_BYTES \
	--arg host "$(uname -r), $(nproc) CPUs" --arg sc "$SCENARIOS" --argjson guard "${RDFAB_GUARD_US:-1000}" '
	{schema: "dcbpf-rdcn-mars/1", experiment: "rdcn_mars",
	 figure: "Mars (thesis Ch. 7, Table 7.1, Theorems 16-17) and Vermilion (Ch. 8, Theorem 22) at emulation scale",
	 short: $short,
	 params: {slot_ns: $slot, night_ns: $night, circuit_mbit: $c, time_scale: 100, voq_bytes: $vb, guard_us: $guard,
	          reps: $reps, secs: ($secs | tonumber), scenarios: ($sc | split(" ")), cc: "cubic", host: $host},
	 runs: $r[0].runs, summary: $r[0].summary, bounds: $r[0].bounds}' >"$OUT/summary.json" || rc=1
rm -f "$OUT/results.json" "$OUT/runs.jsonl"

{
	echo "set terminal pngcairo size 800,420 font ',10'"
	echo "set output '$OUT/throughput.png'"
	echo "set datafile separator ','"
	echo "set title 'Throughput per flow / circuit rate (median flow; bars: range over repetitions) and the bound of the schedule''s emulated graph'"
	echo "set style fill solid 0.8; set boxwidth 0.35; set yrange [0:1]; set grid; set key top right; set xtics noenhanced"
	echo "plot '$OUT/plot.csv' every ::1 using (\$0 - 0.18):2:xtic(1) with boxes title 'measured' lc rgb 'navy', \\"
	echo "     '' every ::1 using (\$0 - 0.18):2:3:4 with yerrorbars lc rgb 'black' pt 0 notitle, \\"
	echo "     '' every ::1 using (\$0 + 0.18):5 with boxes title 'bound (Corollary 1, max-min over the routes)' lc rgb 'gray'"
} >"$OUT/throughput.plt"
{
	echo "set terminal pngcairo size 800,420 font ',10'"
	echo "set output '$OUT/buffer.png'"
	echo "set datafile separator ','"
	echo "set title 'Peak buffer of the fullest ToR (KB; bars: range) and Theorem 16 at the measured rate'"
	echo "set style fill solid 0.8; set boxwidth 0.35; set yrange [0:*]; set grid; set key top left; set xtics noenhanced"
	echo "plot '$OUT/plot.csv' every ::1 using (\$0 - 0.18):6:xtic(1) with boxes title 'measured peak' lc rgb 'dark-red', \\"
	echo "     '' every ::1 using (\$0 - 0.18):6:7:8 with yerrorbars lc rgb 'black' pt 0 notitle, \\"
	echo "     '' every ::1 using (\$0 + 0.18):9 with boxes title 'Theorem 16 per node' lc rgb 'gray'"
} >"$OUT/buffer.plt"
for p in throughput buffer; do
	gnuplot "$OUT/$p.plt" 2>"$OUT/gnuplot-$p.log" || { echo "rdcn_mars: gnuplot $p: $(tail -n 2 "$OUT/gnuplot-$p.log")" >&2; rc=1; }
done
rm -f "$OUT"/q-*.csv
echo "rdcn_mars: wrote $OUT/summary.json, runs.csv, flows.csv, summary.csv, throughput.png, buffer.png"
exit $rc
