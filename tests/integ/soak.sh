# Integration: the soak's short mode (tests/exp/soak.sh, SHORT=1: about 70 s
# of faults on the leaf–spine fabric with every dcbpf program attached and
# mixed traffic; docs/operations.md, "Soak"). One line per check of its
# summary: no BPF program, map or link of the run left after teardown (and
# the checker finds the one the run plants on purpose), owned counts and
# the daemon's RSS flat, a clean kernel log, no long flow without acked
# bytes in a 5 s window, counters monotonic across daemon restarts, the
# configuration always the last valid file or set, invalid sets refused,
# every kind of fault injected and its recovery observed.
# host-suite: a soak of user-space control paths (restarts, reloads, sets, hot-plug, readers)
# over the programs whose 6.1 behaviour the prog and integ tests already prove; two minutes of
# it under TCG would be twenty.
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"
t_need_root "soak"
command -v iperf3 >/dev/null || { t_skip "soak" "iperf3 not installed (make deps-test)"; exit 0; }
S_OUT=$OUT/soak
mkdir -p "$OUT"
start=$(date +%s)
SHORT=1 OUT=$S_OUT tests/exp/soak.sh >"$OUT/soak.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
J=$S_OUT/summary.json
[ -s "$J" ] || { t_fail "soak: short mode writes summary.json" "exit $rc after ${took}s: $(tail -n 3 "$OUT/soak.log" | tr '\n' ' ')"; exit 1; }
js=$(cat "$J")
chk() { # NAME CHECK DETAIL-FILTER
	if jqe ".checks.$2 == true" <<<"$js" >/dev/null; then
		t_pass "soak: $1 ($(jq -c "$3" <<<"$js"))"
	else
		t_fail "soak: $1" "$(jq -c "$3" <<<"$js")"
	fi
}
chk "nothing the run owned is left in the kernel after teardown" leaks '{leaks, leaked, owned_objects_seen}'
chk "the leak checker reports the pin planted on purpose" leak_checker_selftest '.selftest'
chk "owned programs, maps and links do not grow during the run" no_growth '.resources.growth_last_vs_first_third'
chk "dcbpfd's RSS stays flat" rss_flat '.rss_kb'
chk "no kernel warning or BPF error since the start" dmesg_clean '.kernel_warnings'
chk "every long flow has acked bytes in every 5 s window" no_stuck_flow '{stuck_windows}'
chk "dc_cc_stats acks and switch tx never decrease, daemon restarts included" counters_monotonic '.non_monotonic'
chk "the configuration read back is always the last valid file or set" config_as_last_valid '{config_mismatches, live_sets}'
chk "invalid sets are refused and the maps unchanged" invalid_refused '{invalid_sets, invalid_accepted}'
chk "every fault recovered" every_fault_recovered '{faults_total, recoveries, recover_ms_p50, recover_ms_max}'
jqv "soak: every kind of fault was injected at least once" "$js" \
	'[.faults | keys[]] | sort == ["hotplug","hup_invalid","hup_valid","ifdown","kill9","lru_fill","model_swap","nsdel","ring_cc","ring_sw"]'
if command -v gnuplot >/dev/null; then
	[ -s "$S_OUT/soak.png" ] && t_pass "soak: soak.png written" || t_fail "soak: soak.png written" "missing"
fi
[ "$rc" = 0 ] && t_pass "soak: short mode exits 0 in ${took}s" || t_fail "soak: short mode exits 0" "exit $rc after ${took}s"
[ -z "$(find /sys/fs/bpf -maxdepth 1 -name 'dcbpf-soak*' 2>/dev/null)" ] &&
	t_pass "soak: no pin directory of the soak left under /sys/fs/bpf" ||
	t_fail "soak: no pin directory left" "$(find /sys/fs/bpf -maxdepth 1 -name 'dcbpf-soak*')"
