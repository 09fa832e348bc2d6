# The parameter reference in docs/config.md is the one the binaries use
# (`dcbpf params`, generated from the table in loader/lib/config.c), and the
# example config installed by `make install` is valid.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
# SC2015: "A && t_pass || t_fail" is safe, t_pass only prints.
# SC2317: cleanup runs from the EXIT trap.  SC2012: pin names are plain.
# shellcheck disable=SC2015,SC2317,SC2012
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] && [ -x "$BUILD/dcbpfd" ] || { t_fail "docs: binaries built" "run make"; exit 1; }

doc=$(sed -n '/<!-- BEGIN dcbpf params -->/,/<!-- END dcbpf params -->/p' docs/config.md | sed '1d;$d')
gen=$("$BUILD/dcbpf" params)
if [ -n "$doc" ] && [ "$doc" = "$gen" ]; then
	t_pass "docs: docs/config.md parameter table matches dcbpf params"
else
	t_fail "docs: docs/config.md parameter table matches dcbpf params" \
		"regenerate it with '$BUILD/dcbpf params': $(diff <(echo "$doc") <(echo "$gen") | head -n 4 | tr '\n' ' ')"
fi
t_check "docs: loader/dcbpfd.conf.example passes dcbpfd -t" "$BUILD/dcbpfd" -t -c loader/dcbpfd.conf.example
t_check "docs: dcbpf params --json is JSON" bash -c "'$BUILD/dcbpf' --json params | jqe 'length > 0' >/dev/null"
exit 0
