/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Leveled logging to stderr for dcbpfd and dcbpf (libbpf's output too). */
#ifndef DCBPF_LOADER_LOG_H
#define DCBPF_LOADER_LOG_H

#include "config.h"

void dc_log_init(const char *prog, __u32 level);
void dc_log_set_level(__u32 level);
__u32 dc_log_get_level(void);
void dc_log(__u32 level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define dc_err(...) dc_log(DC_LOG_ERROR, __VA_ARGS__)
#define dc_warn(...) dc_log(DC_LOG_WARN, __VA_ARGS__)
#define dc_info(...) dc_log(DC_LOG_INFO, __VA_ARGS__)
#define dc_dbg(...) dc_log(DC_LOG_DEBUG, __VA_ARGS__)

#endif
