# Every command and subcommand of dcbpf's real command table (the hidden
# `dcbpf __walk` prints their paths): `--help` exits 0 with text naming the
# command, `--json --help` is one JSON object, and an unknown option under
# --json is one JSON error object naming the command, with exit 2.  The
# walk must cover every command `dcbpf --help` lists.  No root needed.
# kernel-independent: the same output on any kernel (user space only)
# shellcheck shell=bash
# shellcheck disable=SC2015
source "$(dirname "$0")/../lib/test.sh"

bin=$BUILD/dcbpf
[ -x "$bin" ] || { t_fail "cmdwalk: dcbpf built" "$bin missing (run make)"; exit 1; }
command -v jq >/dev/null || { t_fail "cmdwalk: jq installed" "make deps-test"; exit 1; }
tmp=$(t_mktmp cmdwalk) || exit 1
# no case may read the host's config or pins (help and usage errors never
# should; this makes sure)
printf '[daemon]\npin_dir = /sys/fs/bpf/dcbpf-cmdwalk-absent\nlock_file = %s/lock\n' "$tmp" >"$tmp/c.conf"
d() { "$bin" -c "$tmp/c.conf" "$@"; }

if ! d __walk >"$tmp/paths" 2>"$tmp/err" || [ ! -s "$tmp/paths" ]; then
	t_fail "cmdwalk: dcbpf __walk lists the commands" "$(head -c 300 "$tmp/err")"
	exit 1
fi
t_pass "cmdwalk: dcbpf __walk lists $(wc -l <"$tmp/paths") commands"
# the walk and the help agree on the top level
d --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }' >"$tmp/top"
missing=$(grep -vxF -f "$tmp/paths" "$tmp/top" | tr '\n' ' ')
if [ -s "$tmp/top" ] && [ -z "$missing" ]; then
	t_pass "cmdwalk: the walk covers the $(wc -l <"$tmp/top") commands of dcbpf --help"
else
	t_fail "cmdwalk: the walk covers the commands of dcbpf --help" "missing: '$missing'"
fi
d __walk --json | jqe 'type == "array" and length > 0 and all(.[]; (.path | length) > 0)' \
	>/dev/null && t_pass "cmdwalk: __walk --json is an array of paths" ||
	t_fail "cmdwalk: __walk --json is an array of paths" "$(d __walk --json | head -c 200)"

# one command (path as words, or none for the program itself); a line of
# what is wrong per failed check, nothing when all hold
check() {
	local p=$* rc out name="dcbpf${*:+ $*}"
	# shellcheck disable=SC2086 # the path is words
	out=$(d $p --help 2>"$tmp/e"); rc=$?
	[ $rc = 0 ] || echo "--help exits $rc: $(head -c 200 "$tmp/e")"
	[ -n "$out" ] || echo "--help prints nothing"
	grep -qF -- "$name" <<<"$out" || echo "--help does not name '$name'"
	# shellcheck disable=SC2086
	out=$(d --json $p --help 2>"$tmp/e"); rc=$?
	[ $rc = 0 ] || echo "--json --help exits $rc: $(head -c 200 "$tmp/e")"
	jq -se 'length == 1 and (.[0] | type) == "object"' <<<"$out" >/dev/null 2>&1 ||
		echo "--json --help is not one JSON object: $(head -c 120 <<<"$out")"
	# shellcheck disable=SC2086
	out=$(d --json $p --no-such-option 2>"$tmp/e"); rc=$?
	[ $rc = 2 ] || echo "an unknown option under --json exits $rc, not 2"
	jq -se --arg c "$name" 'length == 1 and (.[0].error | type) == "string" and
		(.[0].error | length) > 0 and .[0].code == 2 and .[0].command == $c' \
		<<<"$out" >/dev/null 2>&1 ||
		echo "an unknown option under --json is not one error object for '$name': $(head -c 160 <<<"$out")"
	[ ! -s "$tmp/e" ] || echo "an unknown option under --json writes to stderr: $(head -c 120 "$tmp/e")"
}

bad=0 n=0
while read -r -a path; do
	n=$((n + 1))
	why=$(check "${path[@]}")
	if [ -n "$why" ]; then
		t_fail "cmdwalk: dcbpf ${path[*]}" "$(tr '\n' ';' <<<"$why")"
		bad=$((bad + 1))
	fi
done < <(echo; cat "$tmp/paths")
[ $bad = 0 ] && t_pass "cmdwalk: all $n commands (and dcbpf itself) answer --help, --json --help and JSON errors"

[ -z "${T_FAILED:-}" ]
