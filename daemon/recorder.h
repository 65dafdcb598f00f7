/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recordings (daemon/recorder.c): per-call events of attachments made with
 * record=NAME, from the BPF ring buffer (consumed in the event loop through
 * ring_buffer__epoll_fd) to record files under record_dir (lib/record.c).
 */
#ifndef TRACERD_RECORDER_H
#define TRACERD_RECORDER_H

#include <stdint.h>
#include <json-c/json.h>
#include "../lib/metrics.h"
#include "tracerd.h"

/* Create the shared "events" ring buffer and "rec_drops" maps (before any BPF load). */
int recorder_init(struct tracerd *d);
/* Stop the loop's events (before the event base goes); recordings stay. */
void recorder_loop_stop(struct tracerd *d);
/* Finish every file and free everything (after every attachment is gone). */
void recorder_fini(struct tracerd *d);
/* Point a BPF object's "events"/"rec_drops" maps at the shared ones (before load). */
struct bpf_object;
int recorder_reuse_maps(struct tracerd *d, struct bpf_object *obj);
/* Start recording an attachment (spec.record set) once its hooks are in place. */
int recorder_attach(struct tracerd *d, struct attachment *a, char *msg, size_t msglen);
void recorder_detach(struct tracerd *d, struct attachment *a);
/* 0 and *out filled when a records, -ENOENT otherwise (strings owned by the recorder). */
int recorder_stats(struct tracerd *d, struct attachment *a, struct metrics_record *out);
/* `list`'s "recording": name, file, active, error, events, dropped; NULL if a does not record. */
json_object *recorder_json(struct tracerd *d, struct attachment *a);
uint64_t recorder_ringbuf_drops(struct tracerd *d);
/* Drains that yielded with events left (the per-callback budget). */
uint64_t recorder_ringbuf_yields(struct tracerd *d);

#endif
