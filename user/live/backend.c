// SPDX-License-Identifier: GPL-2.0
/*
 * The active backend and its queries. See backend.h.
 */
#include <string.h>
#include <unistd.h>

#include "live/backend.h"
#include "live/bpf/bpf.h"
#include "live/device.h"

int td_backend_parse(const char *s, enum td_backend *b)
{
	if (!strcmp(s, "module"))
		*b = TD_BACKEND_MODULE;
	else if (!strcmp(s, "bpf"))
		*b = TD_BACKEND_BPF;
	else if (!strcmp(s, "auto"))
		*b = TD_BACKEND_NONE;
	else
		return -1;
	return 0;
}

const char *td_backend_name(enum td_backend b)
{
	switch (b) {
	case TD_BACKEND_MODULE:
		return "module";
	case TD_BACKEND_BPF:
		return "bpf";
	default:
		return "none";
	}
}

enum td_backend td_backend_active(void)
{
	if (td_bpf_active())
		return TD_BACKEND_BPF;
	return td_module_loaded() ? TD_BACKEND_MODULE : TD_BACKEND_NONE;
}

int td_src_open(struct td_src *s, bool write)
{
	s->fd = -1;
	s->cfg_fd = -1;
	s->cpu_fd = -1;
	if (td_bpf_active())
		return td_bpf_src_open(s);
	s->kind = TD_BACKEND_MODULE;
	s->fd = td_dev_open(write);
	return s->fd < 0 ? -1 : 0;
}

int td_src_config(const struct td_src *s, struct topdown_config *cfg)
{
	if (s->kind == TD_BACKEND_BPF)
		return td_bpf_get_config(s, cfg, NULL);
	return td_get_config(s->fd, cfg);
}

int td_src_status(const struct td_src *s, struct topdown_status *st,
		  struct topdown_cpu_stats **stats)
{
	if (s->kind == TD_BACKEND_BPF)
		return td_bpf_get_status(s, st, stats);
	return td_get_status(s->fd, st, stats);
}

void td_src_close(struct td_src *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->cfg_fd >= 0)
		close(s->cfg_fd);
	if (s->cpu_fd >= 0)
		close(s->cpu_fd);
	s->fd = -1;
	s->cfg_fd = -1;
	s->cpu_fd = -1;
	s->kind = TD_BACKEND_NONE;
}

int td_reader_open(struct td_reader *r)
{
	if (td_bpf_active()) {
		memset(r, 0, sizeof(*r));
		r->src.fd = -1;
		r->src.cfg_fd = -1;
		r->src.cpu_fd = -1;
		return td_bpf_reader_open(r);
	}
	return td_dev_reader_open(r);
}

long td_reader_drain(struct td_reader *r, td_record_fn rec_fn,
		     td_lost_fn lost_fn, void *ctx)
{
	if (r->bpf)
		return td_bpf_reader_drain(r, rec_fn, lost_fn, ctx);
	return td_dev_reader_drain(r, rec_fn, lost_fn, ctx);
}

int td_reader_status(struct td_reader *r, struct topdown_status *st,
		     struct topdown_cpu_stats **stats)
{
	if (r->bpf)
		return td_bpf_reader_status(r, st, stats);
	return td_get_status(r->fd, st, stats);
}

void td_reader_close(struct td_reader *r)
{
	if (r->bpf)
		td_bpf_reader_close(r);
	else
		td_dev_reader_close(r);
}
