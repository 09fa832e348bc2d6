// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel feature detection for `dcbpf status` (see features.h).  Each
 * feature is found by a BTF name that arrived in the same kernel release
 * as the feature itself; docs/compat.md explains what dcbpf does with and
 * without each one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfsys.h"
#include "features.h"

enum probe {
	P_BTF,		/* vmlinux BTF is readable */
	P_BPFFS,	/* bpffs mounted at DC_BPFFS_ROOT */
	P_STRUCT,	/* BTF struct `name` */
	P_TYPEDEF,	/* BTF typedef `name` (tp_btf: btf_trace_<tracepoint>) */
	P_ENUMVAL,	/* enumerator `name` in any enum */
	P_CC_4ARGS,	/* tcp_congestion_ops.cong_control takes (sk, ack, flag, rs) */
	P_VETH_XDP,	/* veth's XDP functions in vmlinux or the veth module BTF */
	P_HELPER,	/* BPF_FUNC_<name without bpf_> in enum bpf_func_id */
	P_KFUNC,	/* BTF func `name` (kfuncs are kernel functions with BTF) */
	P_CC_PACING,	/* the verifier lets a BPF CC write sk->sk_pacing_rate */
};

struct feature {
	const char *key;
	const char *since;
	enum probe probe;
	const char *name;
	/* what dcbpf does without it: the "without it" column of
	 * docs/compat.md, word for word but for the markdown backticks
	 * (tests/loader/compat.sh compares them) */
	const char *without;
};


/*
 * Order is the order of docs/compat.md.  The helper rows are every helper
 * the built objects call: tests/loader/compat_doc.sh reads the calls out of
 * build/NAME.bpf.o and fails, naming the missing rows, when this table or
 * docs/compat.md falls behind.
 */
static const struct feature features[] = {
	{ "btf", "5.4", P_BTF, NULL,
	  "cannot run: CO-RE relocations, struct_ops and the ABI choice need it; make and dcbpfd stop and say so" },
	{ "bpffs", "4.4", P_BPFFS, NULL,
	  "dcbpfd and dcbpf switch up mount it at /sys/fs/bpf (mode 0700)" },
	{ "struct_ops_tcp_cc", "5.6", P_STRUCT, "bpf_struct_ops_tcp_congestion_ops",
	  "cannot register powertcp / theta_powertcp, nor the BPF DCTCP" },
	{ "cc_pacing_write", "6.0", P_CC_PACING, NULL,
	  "cannot register powertcp / theta_powertcp: the verifier refuses their pacing writes" },
	/* struct bpf_struct_ops_link and BPF_F_LINK came together in 6.4;
	 * BPF_LINK_TYPE_STRUCT_OPS is older (5.x, trampolines) and says nothing. */
	{ "struct_ops_link", "6.4", P_STRUCT, "bpf_struct_ops_link",
	  "registers by struct_ops map update; pins the map (dc_powertcp, dc_theta_ptcp) instead of the link (link_powertcp, link_theta_ptcp); --no-links forces this path" },
	{ "bpf_f_link", "6.4", P_ENUMVAL, "BPF_F_LINK",
	  "creates the struct_ops maps without it (libbpf decides from the same BTF)" },
	{ "cong_control_ack_flag", "6.10", P_CC_4ARGS, NULL,
	  "loads powertcp_v61.bpf.o, built for cong_control(sk, rs)" },
	{ "tcx", "6.6", P_ENUMVAL, "BPF_TCX_INGRESS",
	  "attaches TC programs through netlink (clsact qdisc + cls_bpf direct-action, bpf_tc_attach); they are not pinned and are removed by netlink" },
	{ "xdp_link", "5.9", P_ENUMVAL, "BPF_LINK_TYPE_XDP",
	  "attaches through netlink (bpf_xdp_attach, never replacing a program it did not attach)" },
	{ "xdp_native_veth", "4.19", P_VETH_XDP, NULL, "attaches in generic (skb) mode only" },
	/* tp_btf needs the tracepoint and BTF-typed tracepoints (5.5) */
	{ "tp_btf_qdisc_enqueue", "5.15", P_TYPEDEF, "btf_trace_qdisc_enqueue",
	  "cannot follow the real qdisc backlog of a switch port; dcbpf switch up fails naming the tracepoint" },
	{ "tp_btf_qdisc_dequeue", "5.5", P_TYPEDEF, "btf_trace_qdisc_dequeue",
	  "cannot follow the real qdisc backlog of a switch port; dcbpf switch up fails naming the tracepoint" },
#define H(n, since, w) { "helper:" #n, since, P_HELPER, #n, "cannot load " w }
	H(bpf_map_lookup_elem, "3.19", "any object"),
	H(bpf_map_update_elem, "3.19", "PowerTCP, INT host, switch, Ethereal host"),
	H(bpf_map_delete_elem, "3.19", "PowerTCP, Ethereal host"),
	H(bpf_get_prandom_u32, "4.1", "switch, Ethereal host"),
	H(bpf_ktime_get_ns, "4.1", "PowerTCP, INT host, INT transit, switch, Ethereal host"),
	H(bpf_skb_store_bytes, "4.1", "INT host, INT transit, Ethereal host and leaf"),
	H(bpf_l3_csum_replace, "4.1", "INT transit, Ethereal host and leaf"),
	H(bpf_clone_redirect, "4.2", "the cosy switch program"),
	H(bpf_redirect, "4.4", "the s-PERC link program and the circuit switch"),
	H(bpf_skb_load_bytes, "4.5", "INT host, INT transit, Ethereal host and leaf"),
	H(bpf_csum_diff, "4.6", "INT transit"),
	H(bpf_skb_pull_data, "4.9", "INT host, INT transit, Ethereal host and leaf"),
	H(bpf_skb_adjust_room, "4.13", "INT host, Ethereal host and leaf"),
	H(bpf_setsockopt, "4.13", "ICON, ICTCP"),
	H(bpf_getsockopt, "4.15", "the s-PERC host program"),
	H(bpf_sock_ops_cb_flags_set, "4.16", "Ethereal host"),
	H(bpf_fib_lookup, "4.18", "switch, Ethereal leaf"),
	H(bpf_spin_lock, "5.1", "the s-PERC link program, ICTCP"),
	H(bpf_spin_unlock, "5.1", "the s-PERC link program, ICTCP"),
	H(bpf_skb_ecn_set_ce, "5.1", "switch"),
	H(bpf_sk_storage_get, "5.2", "ICON, ICTCP"),
	H(bpf_probe_read_kernel, "5.5", "switch"),
	H(bpf_jiffies64, "5.6", "PowerTCP"),
	H(bpf_tcp_send_ack, "5.6", "DCTCP"),
	H(bpf_ringbuf_reserve, "5.8", "PowerTCP, switch"),
	H(bpf_ringbuf_submit, "5.8", "PowerTCP, switch"),
	H(bpf_redirect_neigh, "5.10", "Ethereal leaf"),
	H(bpf_load_hdr_opt, "5.10", "ICON"),
	H(bpf_reserve_hdr_opt, "5.10", "ICON"),
	H(bpf_store_hdr_opt, "5.10", "ICON"),
	H(bpf_ktime_get_coarse_ns, "5.11", "switch"),
	{ "kfunc:tcp_reno_cong_avoid", "5.13", P_KFUNC, "tcp_reno_cong_avoid", "cannot load DCTCP" },
	H(bpf_timer_init, "5.15", "Ethereal host"),
	H(bpf_timer_set_callback, "5.15", "Ethereal host"),
	H(bpf_timer_start, "5.15", "Ethereal host"),
	H(bpf_loop, "5.17", "switch"),
	H(bpf_xdp_get_buff_len, "5.18", "switch"),
#undef H
};

#define NFEATURES (sizeof(features) / sizeof(features[0]))
_Static_assert(NFEATURES <= DC_FEAT_MAX, "raise DC_FEAT_MAX");

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf && btf__find_by_name_kind(btf, name, kind) > 0;
}

/* Enumerators may sit in anonymous enums (BPF_F_LINK does): scan them all. */
static bool btf_has_enumval(const struct btf *btf, const char *name)
{
	__u32 id, n;

	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		__u16 i;

		if (!btf_is_enum(t))
			continue;
		for (i = 0, e = btf_enum(t); i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

/*
 * Native XDP on veth lives in veth.c (built in, or the veth module's BTF).
 * Any of its XDP functions will do: which ones survive inlining differs
 * between builds (6.1 inlines veth_xdp_rcv, keeps veth_xdp, the ndo_bpf).
 */
static bool veth_has_xdp(const struct btf *vmlinux)
{
	static const char *const funcs[] = { "veth_xdp", "veth_enable_xdp", "veth_xdp_rcv" };
	struct btf *mod = NULL;
	bool has = false;
	unsigned int i;

	if (!vmlinux)
		return false;
	if (!access("/sys/kernel/btf/veth", R_OK))
		mod = btf__parse_split("/sys/kernel/btf/veth", (struct btf *)vmlinux);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]) && !has; i++)
		has = btf_has(vmlinux, funcs[i], BTF_KIND_FUNC) ||
		      btf_has(mod, funcs[i], BTF_KIND_FUNC);
	btf__free(mod);
	return has;
}

/* Member index and byte offset of `member` in struct `sname`; -1 if absent. */
static int btf_member(const struct btf *btf, const char *sname, const char *member,
		      __u32 *struct_id, __u32 *off)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	__u16 i;

	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, (__u32)id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		*struct_id = (__u32)id;
		*off = btf_member_bit_offset(t, i) / 8;
		return i;
	}
	return -1;
}

/*
 * PowerTCP sets its pacing rate itself (cong_control, no cong_avoid); the
 * verifier allows a BPF CC to write sk_pacing_rate and sk_pacing_status,
 * and a CC without cong_avoid, from 6.0 on.  Nothing in BTF marks that, so
 * load (never register) a cong_control that only writes sk_pacing_rate and
 * let this kernel's verifier answer.
 */
static bool cc_may_write_pacing(const struct btf *btf)
{
	__u32 ops_id, sock_id, cc_off, pace_off;
	int idx, fd;

	if (!btf)
		return false;
	idx = btf_member(btf, "tcp_congestion_ops", "cong_control", &ops_id, &cc_off);
	if (idx < 0 || btf_member(btf, "sock", "sk_pacing_rate", &sock_id, &pace_off) < 0)
		return false;
	{
		struct bpf_insn insns[] = {
			/* r2 = ctx[0] (struct sock *sk) */
			{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_1 },
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0 },
			/* sk->sk_pacing_rate = 0 (an unsigned long) */
			{ .code = BPF_STX | BPF_MEM | (sizeof(long) == 8 ? BPF_DW : BPF_W),
			  .dst_reg = BPF_REG_2, .src_reg = BPF_REG_3, .off = (__s16)pace_off },
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = (enum bpf_attach_type)idx,
			    .attach_btf_id = ops_id);

		fd = bpf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, "dc_probe_pace", "GPL", insns,
				   sizeof(insns) / sizeof(insns[0]), &o);
	}
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Is BPF_FUNC_<name> in the kernel's enum bpf_func_id (`ids`, found once:
 * a scan of every enum per helper costs seconds under emulation)? */
static bool helper_in(const struct btf *btf, const struct btf_type *ids, const char *fname)
{
	char buf[96];
	const struct btf_enum *e;
	__u16 i;

	if (!ids)
		return false;
	/* "bpf_loop" -> BPF_FUNC_loop */
	snprintf(buf, sizeof(buf), "BPF_FUNC_%s", fname + 4);
	for (i = 0, e = btf_enum(ids); i < btf_vlen(ids); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), buf))
			return true;
	return false;
}

static bool probe_one(const struct feature *ft, const struct btf *btf,
		      const struct btf_type *helper_ids)
{
	switch (ft->probe) {
	case P_BTF:
		return btf != NULL;
	case P_BPFFS:
		return dc_is_bpffs(DC_BPFFS_ROOT);
	case P_STRUCT:
		return btf_has(btf, ft->name, BTF_KIND_STRUCT);
	case P_TYPEDEF:
		return btf_has(btf, ft->name, BTF_KIND_TYPEDEF);
	case P_ENUMVAL:
		return btf_has_enumval(btf, ft->name);
	case P_CC_4ARGS:
		return btf && dc_btf_cong_control_nargs(btf) == 4;
	case P_VETH_XDP:
		return veth_has_xdp(btf);
	case P_HELPER:
		return helper_in(btf, helper_ids, ft->name);
	case P_KFUNC:
		return btf_has(btf, ft->name, BTF_KIND_FUNC);
	case P_CC_PACING:
		return cc_may_write_pacing(btf);
	}
	return false;
}

void dc_features_detect(struct dc_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *helper_ids = NULL;
	struct utsname u;
	unsigned int i;
	int id;

	memset(f, 0, sizeof(*f));
	id = btf ? btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM) : -1;
	if (id > 0)
		helper_ids = btf__type_by_id(btf, id);
	if (!uname(&u))
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
	for (i = 0; i < NFEATURES; i++) {
		f->item[i].key = features[i].key;
		f->item[i].since = features[i].since;
		f->item[i].without = features[i].without;
		f->item[i].present = probe_one(&features[i], btf, helper_ids);
	}
	f->n = NFEATURES;
	btf__free(btf);
}

bool dc_feature_present(const struct dc_features *f, const char *key)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->item[i].key, key))
			return f->item[i].present;
	return false;
}

void dc_features_print(const struct dc_features *f, FILE *out)
{
	unsigned int i, nh = 0, have = 0;
	char missing[512] = "";
	size_t ml = 0;

	fprintf(out, "kernel:        %s (features below: docs/compat.md)\n", f->kernel);
	for (i = 0; i < f->n; i++) {
		const struct dc_feature_result *r = &f->item[i];

		if (strncmp(r->key, "helper:", 7) && strncmp(r->key, "kfunc:", 6)) {
			fprintf(out, "  %-24s %-3s  (%s+)\n", r->key, r->present ? "yes" : "no",
				r->since);
			continue;
		}
		nh++;
		if (r->present) {
			have++;
		} else if (ml < sizeof(missing)) {
			ml += (size_t)snprintf(missing + ml, sizeof(missing) - ml, " %s (%s+)",
					       strchr(r->key, ':') + 1, r->since);
		}
	}
	fprintf(out, "  %-24s %u of %u present%s%s\n", "helpers/kfuncs used", have, nh,
		have < nh ? "; missing:" : "", missing);
	/* what is missing, and what of dcbpf that costs */
	for (i = 0; i < f->n && f->item[i].present; i++)
		;
	fprintf(out, "kernel lacks:  %s\n", i < f->n ? "(what dcbpf does without it)" :
		     "nothing dcbpf uses");
	for (; i < f->n; i++)
		if (!f->item[i].present)
			fprintf(out, "  %s (%s+): %s\n", f->item[i].key, f->item[i].since,
				f->item[i].without);
}

void dc_features_json(const struct dc_features *f, struct jw *j)
{
	unsigned int i;

	jw_obj(j, "features");
	jw_str(j, "kernel", f->kernel);
	for (i = 0; i < f->n; i++) {
		jw_obj(j, f->item[i].key);
		jw_bool(j, "present", f->item[i].present);
		jw_str(j, "since", f->item[i].since);
		jw_str(j, "without", f->item[i].without);
		jw_end_obj(j);
	}
	jw_end_obj(j);
}
