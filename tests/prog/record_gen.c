// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_gen DIR NAME N FLUSH_EVENTS [crash]: write N synthetic events to
 * DIR/NAME.trec through lib/record.c (targets slot 0 "tp:test/a", slot 1
 * "tp:test/b", pid 1000 + i % 3). With "crash" the process exits without
 * finishing the stream, like a killed daemon. Prints the writer's counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../lib/record.h"

int main(int argc, char **argv)
{
	struct record_opts o = { .flush_ns = 1ULL << 62 };
	struct record_writer_stats st;
	struct record_writer *w;
	struct tracerd_event ev;
	unsigned long n, i;
	char msg[256];

	if (argc < 5) {
		fprintf(stderr, "usage: record_gen DIR NAME N FLUSH_EVENTS [crash]\n");
		return 2;
	}
	o.dir = argv[1];
	o.name = argv[2];
	n = strtoul(argv[3], NULL, 0);
	o.flush_events = (unsigned int)strtoul(argv[4], NULL, 0);
	if (record_writer__new(&o, &w, msg, sizeof(msg))) {
		fprintf(stderr, "record_gen: %s\n", msg);
		return 1;
	}
	record_writer__define_target(w, 0, 5, 1, "tp:test/a");
	record_writer__define_target(w, 1, 5, 2, "tp:test/b");
	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts_ns = 1000 + i;
		ev.slot = i % 2;
		ev.pid = 1000 + i % 3;
		ev.tid = ev.pid;
		ev.duration_ns = i;
		ev.flags = TRACERD_EV_DURATION;
		snprintf(ev.comm, sizeof(ev.comm), "gen");
		record_writer__write(w, &ev, 0);
	}
	record_writer__stats(w, &st);
	printf("events=%llu dropped=%llu flushes=%llu\n", (unsigned long long)st.events,
	       (unsigned long long)st.dropped, (unsigned long long)st.flushes);
	fflush(stdout);
	if (argc > 5 && !strcmp(argv[5], "crash"))
		_exit(0);
	record_writer__free(w);
	return 0;
}
