/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dcbpfd configuration: the single table of parameters shared by the
 * config file parser, `dcbpf get/set` and the generated documentation.
 * A parameter is described once here (name, where it lives, how it is
 * parsed, its range, unit and meaning); nothing else hard-codes it.
 *
 * The table and the file are config.c, value parsing and formatting
 * params.c.  Both depend only on libc, libinih, include/dcbpf and the
 * library's prefix.c and err.c, so the host unit tests and the fuzzer can
 * compile them directly.
 */
#ifndef DCBPF_LOADER_CONFIG_H
#define DCBPF_LOADER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <dcbpf/types.h>

#define DC_CONF_DEFAULT "/etc/dcbpf/dcbpfd.conf"
#define DC_LOCK_FILE_DEFAULT "/run/dcbpfd.lock"
/* pin_dir must live on the bpffs mounted here (dcbpfd mounts it if absent). */
#define DC_BPFFS_ROOT "/sys/fs/bpf"

/* pacing has no DC_DEFAULT_ in powertcp.h yet: pace at cwnd/τ by default. */
#ifndef DC_DEFAULT_PACING
#define DC_DEFAULT_PACING 1
#endif

enum dc_log_level {
	DC_LOG_ERROR = 0,
	DC_LOG_WARN = 1,
	DC_LOG_INFO = 2,
	DC_LOG_DEBUG = 3,
};

#define DC_PATH_LEN 256

#define DC_IFLIST_LEN 512
#define DC_NETNS_LEN 64
#define DC_DSTLIST_LEN 1024
/* Per-flow LRU maps: default size, and the range flows_max accepts. */
#define DC_FLOWS_MAX_DEFAULT 65536
#define DC_FLOWS_MAX_MIN 128
#define DC_FLOWS_MAX_MAX (1U << 22)

/* [daemon] section: read at start; pin_dir, lock_file and flows_max need a
 * restart, the rest also changes on reload. */
struct dc_daemon_cfg {
	char pin_dir[DC_PATH_LEN];
	char lock_file[DC_PATH_LEN];
	__u32 log_level;	/* enum dc_log_level */
	char metrics_file[DC_PATH_LEN];	/* "" = the daemon writes no metrics */
	__u32 metrics_interval_s;
	__u32 flows_max;	/* max_entries of every per-flow (LRU) map */
	__u32 dctcp;		/* 1 = also register the BPF DCTCP (dc_cc_regs) */
};

/*
 * [int] section: the host INT programs the daemon keeps attached.  Lists
 * are stored normalised (single blanks between items) and walked with
 * dc_list_next.
 */
struct dc_int_cfg {
	char interfaces[DC_IFLIST_LEN];		/* fnmatch globs; "" = none */
	char netns[DC_NETNS_LEN];		/* name in /var/run/netns; "" = own */
	char destinations[DC_DSTLIST_LEN];	/* A.B.C.D/LEN[:SLOTS] */
	__u32 sample_us;			/* dc_int_dst_cfg.sample_us of each */
	__u32 sample_qlen_bytes;		/* dc_int_dst_cfg.sample_qlen_bytes */
	__u32 giveup_ms;			/* dc_int_dst_cfg.giveup_ms */
};

#define DC_PERCLIST_LEN 1536
/* Largest capacity: the control packet's u32 kbps less the value of ∞. */
#define DC_PERC_CFG_CAP_MAX_KBPS 4294967294ULL

/*
 * [perc] section: the capacity of s-PERC links attached with `dcbpf perc
 * attach`, applied live at start and on every reload (docs/perc.md).
 */
struct dc_perc_cfg {
	char netns[DC_NETNS_LEN];		/* the links' namespace; "" = own */
	char capacities[DC_PERCLIST_LEN];	/* IF=KBPS, blank separated */
};

struct dc_config {
	struct dc_daemon_cfg daemon;
	struct dc_cc_cfg cc[DC_CC_MAX];	/* indexed by enum dc_cc_id */
	struct dc_int_cfg intf;
	struct dc_perc_cfg perc;
};

/* Where a parameter lives: [daemon], one struct dc_cc_cfg, or [int]. */
enum dc_scope {
	DC_SCOPE_DAEMON,
	DC_SCOPE_CC,
	DC_SCOPE_INT,
	DC_SCOPE_PERC,
};

enum dc_kind {
	DC_K_U32,	/* decimal integer in [min, max] */
	DC_K_Q16,	/* decimal fraction stored as Q16, raw range [min, max] */
	DC_K_BOOL,	/* 0 or 1 */
	DC_K_PINDIR,	/* absolute path under DC_BPFFS_ROOT */
	DC_K_PATH,	/* absolute path */
	DC_K_LOGLEVEL,	/* error|warn|info|debug */
	DC_K_OPTPATH,	/* absolute path, or empty */
	DC_K_IFGLOBS,	/* interface names or globs, blank separated */
	DC_K_NETNS,	/* namespace name, or empty */
	DC_K_PREFIXES,	/* IPv4 prefixes with optional :SLOTS, blank separated */
	DC_K_PERCCAPS,	/* IF=KBPS, blank separated, each interface once */
};

struct dc_param {
	const char *name;
	enum dc_scope scope;
	enum dc_kind kind;
	const char *field;	/* struct member (what bpftool prints), NULL for [daemon] */
	size_t off;		/* offset in struct dc_daemon_cfg / dc_cc_cfg */
	__u32 min, max;		/* raw units (Q16 for DC_K_Q16) */
	const char *unit;
	const char *doc;
};

extern const struct dc_param dc_params[];
extern const unsigned int dc_nparams;

/* A congestion control with parameters: config section and dc_cc_cfg key
 * (what dcbpfd registers is in loader/lib/object.c, dc_cc_regs). */
struct dc_cc_desc {
	enum dc_cc_id id;
	const char *name;	/* CC name, config section and key prefix */
};

extern const struct dc_cc_desc dc_ccs[DC_CC_MAX];

/* Maps the objects pin by name under pin_dir (LIBBPF_PIN_BY_NAME). */
#define DC_MAP_CFG "dc_cc_cfg"
#define DC_MAP_FLOWS "dc_cc_flows"
#define DC_MAP_STATS "dc_cc_stats"
#define DC_MAP_INT "dc_int_flows"
#define DC_MAP_TRACE "dc_cc_trace"
#define DC_MAP_TRON "dc_cc_tron"
/* Which maps are pinned is read from the objects: dc_obj_pinned_map_names. */

/* Error sink: messages are appended, one per line, truncated if full. */
struct dc_errbuf {
	char msg[4096];
	size_t len;
	unsigned int count;
};

void dc_err_add(struct dc_errbuf *eb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void dc_config_defaults(struct dc_config *c);
void dc_cc_cfg_defaults(struct dc_cc_cfg *cfg);

/*
 * Parse and validate a config file.  On success *out is replaced and 0 is
 * returned; on any error *out is left untouched, every problem found is
 * in *eb ("file:line: ...") and -1 is returned.
 */
int dc_config_load(const char *path, struct dc_config *out, struct dc_errbuf *eb);
/*
 * The file dcbpfd and dcbpf read: a missing default file (explicit_path
 * false) means the built-in defaults and returns 1, so a bare command
 * works; a missing explicit -c FILE is an error.  Else as dc_config_load.
 */
int dc_config_read(const char *path, bool explicit_path, struct dc_config *out,
		   struct dc_errbuf *eb);
/* Same from memory; `name` is what messages call the file. */
int dc_config_load_string(const char *name, const char *text, struct dc_config *out,
			  struct dc_errbuf *eb);

const struct dc_param *dc_param_find(enum dc_scope scope, const char *name);
const struct dc_cc_desc *dc_cc_find(const char *name);
/* The CC names for messages: "a, b, c or d" (pre, post around each name,
 * e.g. "[" "]"; last = " or " or ", "). */
const char *dc_cc_names(char *buf, size_t len, const char *pre, const char *post,
			const char *last);

/*
 * Parse `text` for parameter p and store it at base + p->off (base is a
 * struct dc_daemon_cfg or struct dc_cc_cfg according to p->scope).  On
 * error nothing is stored, *why says what is wrong (without the range)
 * and -1 is returned.
 */
int dc_param_parse(const struct dc_param *p, const char *text, void *base,
		   char *why, size_t whylen);
/* Value of p in user units ("0.8", "1000", "info"). */
void dc_param_format(const struct dc_param *p, const void *base, char *buf,
		     size_t len);
/* Allowed values in user units ("(0, 1]", "[1, 1000000]", "0 or 1"). */
void dc_param_range(const struct dc_param *p, char *buf, size_t len);
const void *dc_param_base(const struct dc_param *p, const struct dc_config *c);
/* Raw numeric value (for JSON): u32 field; Q16 stays raw. */
__u32 dc_param_raw(const struct dc_param *p, const void *base);
/* Q16 raw → shortest decimal that parses back to the same raw value. */
void dc_q16_format(__u32 q16, char *buf, size_t len);

/*
 * "powertcp.gamma" → CC and parameter.  Returns 0, or -1 with *why set
 * (unknown CC, unknown key, daemon key that cannot be set live).
 */
int dc_key_parse(const char *key, const struct dc_cc_desc **cc,
		 const struct dc_param **p, char *why, size_t whylen);

/* The parameter reference (docs/config.md is generated from this). */
void dc_config_print_doc(FILE *f);

const char *dc_log_level_name(__u32 level);

/*
 * Next blank-separated item of a list value: copies it to tok and returns
 * 1, or returns 0 at the end.  *p advances.
 */
int dc_list_next(const char **p, char *tok, size_t len);
/* Does ifname match one of the globs of list? */
bool dc_iface_matches(const char *list, const char *ifname);
/* "10.0.0.0/8:2": the prefix by the rule of prefix.h (network order, host
 * bits cleared), then slots (DC_INT_WIRE_MAX_SLOTS if not given).  0, or -1
 * with *why. */
/* "eth1=950000": the interface (1-15 characters) and the capacity (kbps,
 * 1..DC_PERC_CFG_CAP_MAX_KBPS).  0, or -1 with *why. */
int dc_perc_cap_parse(const char *tok, char *dev, size_t devlen, __u64 *kbps, char *why,
		      size_t whylen);
int dc_prefix_slots_parse(const char *tok, __u32 *addr, __u32 *plen, __u32 *slots, char *why,
			  size_t whylen);

#endif
