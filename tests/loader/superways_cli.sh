# `dcbpf superways plan` on the command line: the constructed cases A, B, C
# of docs/superways.md with every intermediate value (JSON and text), the
# thesis' L = 1.2 -> 2 links example, options over the file, and input
# refused with its line and reason.  No pinned state, no namespaces.
# kernel-independent: a pure core or user-space code, no BPF in the kernel
# shellcheck shell=bash
source "$(dirname "$0")/../lib/test.sh"

[ -x "$BUILD/dcbpf" ] || { t_fail "superways cli: dcbpf built" "run make"; exit 1; }
D="$BUILD/dcbpf"
tmp=$(t_mktmp superways-cli) || exit 1

# Case A (alpha 0.8, s 10 KB, B_l = B_s = 240 KB, theta 4): d 96 with 4 local
# senders opens near.0 with one link; d 48 joins; d 6 (fit exactly 1) does not.
cat >"$tmp/a.plan" <<'P'
# constructed case A
alpha 0.8
flow-bytes 10000
leaf-buffer 240000   # B_l
spine-buffer 240000  # B_s
theta 4
rack near 1
rack far 2
app six d=6 local=0
app big d=96 local=4
app mid d=48 local=0
P
close() { # jq: |a - b| small
	echo "((($1) - ($2)) | fabs) < 1e-4 * (($2 | fabs) + 1)"
}
jqs "superways cli: A: U_l 0.1333, r_l 208000, Eq. 3.8 3.538, N 30, beta 0.3125, L 0.55 -> 1 link, r_s 108000" \
	".servers[0] as \$s | \$s.server == \"near.0\" and \$s.case == \"remote-over\" and \$s.links == 1 and
	 $(close '$s.u_l' 0.133333) and \$s.r_l_bytes == 208000 and $(close '$s.u_l_remote' 3.53846) and
	 \$s.n == 30 and \$s.beta == 0.3125 and \$s.l == 0.55 and \$s.r_s_bytes == 108000" \
	"$D" superways plan --input "$tmp/a.plan" --json
jqs "superways cli: A: mid joins (fit 0.889), L_tot 0.95, r_s 12000; six opens far.0 with no link" \
	"[.servers[0].apps[] | .app] == [\"big\", \"mid\"] and $(close '.servers[0].apps[1].fit' 0.888889) and
	 $(close '.servers[0].l_tot' 0.95) and $(close '.servers[0].r_s_left_bytes' 12000) and
	 .servers[1].server == \"far.0\" and .servers[1].case == \"leaf\" and .servers[1].links == 0 and
	 .incast_servers == 2 and .links == 1" \
	"$D" superways plan --input "$tmp/a.plan" --json
expect "superways cli: A in text: the values and the packing" 0 \
	"N 30  beta 0.0416667 -> 0.3125  L 0.55  r_s 108000 B" "$D" superways plan -i "$tmp/a.plan"
expect "superways cli: A in text: what is left" 0 "left: L_tot 0.95, r_s 12000 B" \
	"$D" superways plan -i "$tmp/a.plan"

# Case B: s 20 KB, 19 local senders: the local senders alone overflow.
printf 'flow-bytes 20000\nrack r 4\napp b d=96 local=19\n' >"$tmp/b.plan"
jqs "superways cli: B: U_l 1.267 > 1, N 15, beta 0.15625, L 1.35 -> 2 links, r_s 156000 (defaults for the rest)" \
	".servers[0] as \$s | \$s.case == \"local-over\" and $(close '$s.u_l' 1.26667) and \$s.r_l_bytes == null and
	 \$s.n == 15 and \$s.beta == 0.15625 and \$s.l == 1.35 and \$s.links == 2 and \$s.r_s_bytes == 156000 and
	 .params.alpha == 0.8 and .params.theta == 4 and .params.bl_bytes == 240000" \
	"$D" superways plan --input "$tmp/b.plan" --json
# Case C: the same application with the thesis' s = 1500 B needs no link.
jqs "superways cli: C: U_l 0.095, r_l 217200, Eq. 3.8 0.425 <= 1: no link; Eq. 3.9 0.575, r_l 124800 B" \
	".servers[0] as \$s | \$s.case == \"leaf\" and \$s.links == 0 and $(close '$s.u_l' 0.095) and
	 \$s.r_l_bytes == 217200 and $(close '$s.u_l_remote' 0.425414) and $(close '$s.r_l_frac' 0.574586) and
	 $(close '$s.r_l_left_bytes' 124800) and \$s.n == null and \$s.l == null" \
	"$D" superways plan --input "$tmp/b.plan" --flow-bytes 1500 --json
# The text's example: N = 10 (B_l 80000), beta 0.1, L = 0.8*90*10000/(4*150000) = 1.2.
printf 'flow-bytes 10000\nleaf-buffer 80000\nspine-buffer 150000\nrack r 1\napp agg d=100 local=20\n' >"$tmp/t.plan"
jqs "superways cli: text: L = 1.2 -> 2 links, r_s = 0.8 * B_s" \
	'.servers[0] as $s | ($s.l - 1.2 | fabs) < 1e-9 and $s.links == 2 and ($s.r_s_bytes - 120000 | fabs) < 1e-6' \
	"$D" superways plan --input "$tmp/t.plan" --json
jqs "superways cli: --theta over the file's value: theta 8 halves L (0.6 -> 1 link)" \
	'.params.theta == 8 and (.servers[0].l - 0.6 | fabs) < 1e-9 and .servers[0].links == 1' \
	"$D" superways plan --input "$tmp/t.plan" --theta 8 --json

# Refused: the line and the reason.
bad() { # NAME PATTERN TEXT
	printf '%b' "$3" >"$tmp/bad.plan"
	expect "superways cli: refused: $1" 2 "$2" "$D" superways plan --input "$tmp/bad.plan"
}
bad "unknown keyword" "bad.plan:2: unknown keyword 'spine'" 'rack r 1\nspine s\napp a d=4 local=0\n'
bad "local above d" "bad.plan:2: app 'a': local senders must be between 0 and d" 'rack r 1\napp a d=4 local=5\n'
bad "d below 1" "bad.plan:2: app 'a': incast degree d must be at least 1" 'rack r 1\napp a d=0 local=0\n'
bad "app without local=" "bad.plan:1: app 'a': needs d=" 'app a d=4\nrack r 1\n'
bad "rack of 0 servers" "bad.plan:1: rack 'r': servers '0'" 'rack r 0\napp a d=4 local=0\n'
bad "duplicate app" "bad.plan:3: app 'a' declared twice" 'rack r 2\napp a d=4 local=0\napp a d=5 local=0\n'
bad "alpha in the file above 1" "bad.plan: alpha \\(jitter factor\\) must be in \\(0, 1\\]" \
	'alpha 1.5\nrack r 1\napp a d=4 local=0\n'
bad "theta in the file below 1" "bad.plan: theta" 'theta 0.5\nrack r 1\napp a d=4 local=0\n'
bad "no app" "bad.plan: no app declared" 'rack r 1\n'
bad "out of servers" "app 'z' \\(d 96\\): no server left; 2 servers in 1 racks" \
	'flow-bytes 10000\nrack r 2\napp x d=96 local=4\napp y d=96 local=4\napp z d=96 local=4\n'
expect "superways cli: --alpha 0 refused by the option table" 2 "alpha" \
	"$D" superways plan --input "$tmp/a.plan" --alpha 0
expect "superways cli: a missing file is named" 2 "absent.plan" "$D" superways plan --input "$tmp/absent.plan"
jqs "superways cli: --json error object for a bad file" \
	'.code == 2 and (.error | test("bad.plan: app .z."))' "$D" --json superways plan --input "$tmp/bad.plan"

[ -z "${T_FAILED:-}" ]
