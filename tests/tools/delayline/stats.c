// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The delay line's statistics: lateness histogram, socket drops, the JSON
 * printed on SIGUSR1 and at exit. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/if_packet.h>

#include "tool.h"
#include "delayline/dl.h"

void note_late(struct dir *d, uint64_t now, uint64_t deadline)
{
	uint64_t late = now > deadline ? now - deadline : 0, us = late / 1000;

	if (late > d->late_max_ns)
		d->late_max_ns = late;
	d->late[us < LATE_HIST_US ? us : LATE_HIST_US]++;
}
static void poll_socket_drops(struct dir *d)
{
	struct tpacket_stats st;
	socklen_t l = sizeof(st);

	/* reading the statistics resets them in the kernel: accumulate */
	if (d->rx_fd >= 0 && !getsockopt(d->rx_fd, SOL_PACKET, PACKET_STATISTICS, &st, &l))
		d->drop_socket += st.tp_drops;
}

static uint64_t late_pct_us(const struct dir *d, double p)
{
	uint64_t total = 0, acc = 0, want;
	int i;

	for (i = 0; i <= LATE_HIST_US; i++)
		total += d->late[i];
	if (!total)
		return 0;
	want = (uint64_t)(p * (double)total + 0.999999);
	if (want < 1)
		want = 1;
	for (i = 0; i <= LATE_HIST_US; i++) {
		acc += d->late[i];
		if (acc >= want)
			return (uint64_t)i;
	}
	return LATE_HIST_US;
}

void print_stats(struct dir *dirs, int ndir, uint64_t delay_us, size_t ring_bytes, uint64_t start_ns,
		 struct pfc *pfc)
{
	struct rusage ru;
	int i;

	printf("{\"delay_us\":%llu,\"ring_bytes\":%zu,\"directions\":[", (unsigned long long)delay_us,
	       ring_bytes);
	for (i = 0; i < ndir; i++) {
		struct dir *d = &dirs[i];

		poll_socket_drops(d);
		printf("%s{\"in\":\"%s\",\"out\":\"%s\",\"frames_in\":%llu,\"bytes_in\":%llu,"
		       "\"frames_out\":%llu,\"bytes_out\":%llu,\"queued\":%llu,\"ring_used_max_bytes\":%zu,"
		       "\"dropped_ring\":%llu,\"dropped_socket\":%llu,\"dropped_trunc\":%llu,"
		       "\"tx_errors\":%llu,\"tx_busy\":%llu,\"no_kernel_stamp\":%llu,\"late_us\":{\"p50\":%llu,\"p99\":%llu,\"p999\":%llu,\"max\":%.1f},"
		       "\"send_ms_total\":%.1f,\"send_us_max\":%.1f}",
		       i ? "," : "", d->in_name, d->out_name, (unsigned long long)d->frames_in,
		       (unsigned long long)d->bytes_in, (unsigned long long)d->frames_out,
		       (unsigned long long)d->bytes_out, (unsigned long long)d->queued, d->used_max,
		       (unsigned long long)d->drop_ring, (unsigned long long)d->drop_socket,
		       (unsigned long long)d->drop_trunc, (unsigned long long)d->tx_errors,
		       (unsigned long long)d->tx_busy, (unsigned long long)d->no_stamp,
		       (unsigned long long)late_pct_us(d, 0.50), (unsigned long long)late_pct_us(d, 0.99),
		       (unsigned long long)late_pct_us(d, 0.999), (double)d->late_max_ns / 1000.0,
		       (double)d->send_ns / 1e6, (double)d->send_max_ns / 1000.0);
	}
	printf("]");
	if (pfc && pfc->path)
		pfc_json(pfc);
	getrusage(RUSAGE_SELF, &ru);
	printf(",\"cpu_s\":%.3f,\"wall_s\":%.3f}\n",
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	       (double)(now_ns() - start_ns) / 1e9);
	fflush(stdout);
}
