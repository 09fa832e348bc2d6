# dcbpf --version, dcbpfd --version: the Makefile's VERSION, a git
# description naming a commit of this repository, the libbpf the binary
# runs with (the installed libbpf1) and the one it was compiled against
# (libbpf-dev's headers), and the features built (each one backed by an
# object in BUILD).  No root needed.
# kernel-independent: version strings and the libbpf of the binary, no BPF in the kernel
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

want=$(sed -n 's/^VERSION *:= *//p' Makefile)
for b in dcbpf dcbpfd; do
	bin=$BUILD/$b
	[ -x "$bin" ] || { t_fail "version: $b built" "$bin missing (run make)"; continue; }
	if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
		# needs no privilege: run it as nobody
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --version 2>&1)
	else
		out=$("$bin" --version 2>&1)
	fi
	rc=$?
	[ $rc = 0 ] && [ "$(echo "$out" | head -n1)" = "$b $want" ] &&
		t_pass "version: $b --version exits 0 and names $b $want" ||
		t_fail "version: $b --version exits 0 and names $b $want" "exit $rc: $(echo "$out" | head -n1)"
	[ "$("$bin" -V 2>&1)" = "$out" ] && t_pass "version: $b -V is --version" || t_fail "version: $b -V is --version" ""

	git=$(echo "$out" | sed -n 's/^git: //p')
	if git rev-parse --git-dir >/dev/null 2>&1; then
		# v0.2.0-3-g1a2b3c4-dirty, or a bare hash (no tag): the commit must exist
		h=$(echo "$git" | sed -E 's/-dirty$//; s/.*-g([0-9a-f]+)$/\1/')
		[ -n "$h" ] && git cat-file -e "$h^{commit}" 2>/dev/null &&
			t_pass "version: $b's git description ($git) names a commit of this tree" ||
			t_fail "version: $b's git description names a commit of this tree" "'$git'"
	else
		[ "$git" = unknown ] && t_pass "version: outside git the description is 'unknown'" ||
			t_fail "version: outside git the description is 'unknown'" "'$git'"
	fi

	lib=$(echo "$out" | sed -n 's/^libbpf: //p')
	run=$(dpkg-query -W -f='${Version}' "libbpf1" 2>/dev/null | sed -E 's/^[0-9]+://; s/^([0-9]+\.[0-9]+).*/\1/')
	dev=$(pkg-config --modversion libbpf 2>/dev/null | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	[ -n "$run" ] && [ -n "$dev" ] && [ "$lib" = "$run (compiled against $dev)" ] &&
		t_pass "version: $b reports libbpf $run running, $dev compiled" ||
		t_fail "version: $b reports libbpf running and compiled" "'$lib', libbpf1 $run, libbpf-dev $dev"

	feats=$(echo "$out" | sed -n 's/^features: //p')
	bad=""
	for f in $feats; do
		case $f in
		cc-abi-6.10) [ -e "$BUILD/powertcp.bpf.o" ] || bad="$bad $f" ;;
		cc-abi-6.1) [ -e "$BUILD/powertcp_v61.bpf.o" ] || bad="$bad $f" ;;
		bpf-*) [ -e "$BUILD/${f#bpf-}.bpf.o" ] || bad="$bad $f" ;;
		wireshark-dissector) [ -e loader/wireshark/dcbpf_int.lua ] || bad="$bad $f" ;;
		prometheus-metrics) [ -e loader/metrics/metrics.c ] || bad="$bad $f" ;;
		*) bad="$bad $f(unknown)" ;;
		esac
	done
	# and every congestion-control object built is listed
	for o in "$BUILD"/*.bpf.o; do
		n=${o##*/}
		n=${n%.bpf.o}
		case $n in *_v61 | rf_eval | rd_sched) continue ;; esac	# a 6.1 build of an object: cc-abi-6.1; rf_eval, rd_sched: test objects
		echo " $feats " | grep -q " bpf-$n " || bad="$bad missing:bpf-$n"
	done
	echo " $feats " | grep -q ' cc-abi-6.10 ' && echo " $feats " | grep -q ' cc-abi-6.1 ' || bad="$bad missing:cc-abi"
	[ -z "$bad" ] && t_pass "version: $b's features are the ones built ($feats)" ||
		t_fail "version: $b's features are the ones built" "$bad"
done

# the two binaries of one build agree
[ "$("$BUILD/dcbpf" --version | tail -n +2)" = "$("$BUILD/dcbpfd" --version | tail -n +2)" ] &&
	t_pass "version: dcbpf and dcbpfd of one build report the same" ||
	t_fail "version: dcbpf and dcbpfd of one build report the same" ""

# JSON
j=$("$BUILD/dcbpf" --json --version 2>&1)
if command -v jq >/dev/null; then
	[ "$(echo "$j" | jq -r '.version')" = "$want" ] &&
		[ "$(echo "$j" | jq -r '.libbpf.running + " (compiled against " + .libbpf.compiled + ")"')" = \
			"$("$BUILD/dcbpf" --version | sed -n 's/^libbpf: //p')" ] &&
		[ "$(echo "$j" | jq -r '.features | join(" ")')" = "$("$BUILD/dcbpf" --version | sed -n 's/^features: //p')" ] &&
		[ "$(echo "$j" | jq -r '.git')" = "$("$BUILD/dcbpf" --version | sed -n 's/^git: //p')" ] &&
		t_pass "version: dcbpf --json --version carries the same facts" ||
		t_fail "version: dcbpf --json --version carries the same facts" "$j"
else
	t_skip "version: dcbpf --json --version" "jq missing (make deps-test)"
fi

# errors: --version takes no command; unknown options stay usage errors
"$BUILD/dcbpf" --version status >/dev/null 2>&1
[ $? = 2 ] && t_pass "version: dcbpf --version with a command is a usage error (2)" ||
	t_fail "version: dcbpf --version with a command is a usage error (2)" ""
# no abbreviations (an abbreviation that works today breaks when an option
# is added next to it): a prefix and a wrong word are both usage errors
# that name the option meant
for w in --versio --verzion; do
	err=$("$BUILD/dcbpfd" $w 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && echo "$err" | grep -q -- "unknown option '$w' (did you mean --version?)" &&
		t_pass "version: dcbpfd $w is a usage error (2) suggesting --version" ||
		t_fail "version: dcbpfd $w is a usage error (2) suggesting --version" "rc $rc: $err"
done
exit 0
