/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a struct topdown_config with groups (include/uapi/linux/
 * topdown.h, "Groups and rotation"): the pool entries past events[] are
 * in more_events[], and a record of group g has in delta[j] the count of
 * pool entry groups[g].events[j]. Without groups there is one group, the
 * events in order. Every layer that looks at a configuration uses these,
 * never cfg->events[i] for i past TOPDOWN_MAX_EVENTS.
 */
#ifndef TDCTL_ABI_H
#define TDCTL_ABI_H

#include <stdint.h>

#include <linux/topdown.h>

/* Pool entry i (i < cfg->nr_events). */
static inline const struct topdown_event *
td_cfg_event(const struct topdown_config *cfg, uint32_t i)
{
	return i < TOPDOWN_MAX_EVENTS ? &cfg->events[i] :
	       &cfg->more_events[i - TOPDOWN_MAX_EVENTS];
}

static inline struct topdown_event *
td_cfg_event_w(struct topdown_config *cfg, uint32_t i)
{
	return i < TOPDOWN_MAX_EVENTS ? &cfg->events[i] :
	       &cfg->more_events[i - TOPDOWN_MAX_EVENTS];
}

/* Groups: 1 without groups. */
static inline uint32_t td_cfg_nr_groups(const struct topdown_config *cfg)
{
	return cfg->nr_groups ? cfg->nr_groups : 1;
}

/* Events of group g. */
static inline uint32_t td_cfg_group_nr(const struct topdown_config *cfg,
				       uint32_t g)
{
	return cfg->nr_groups ? cfg->groups[g].nr_events : cfg->nr_events;
}

/* The pool entry that delta[j] of a record of group g counts. */
static inline uint32_t td_cfg_group_event(const struct topdown_config *cfg,
					  uint32_t g, uint32_t j)
{
	return cfg->nr_groups ? cfg->groups[g].events[j] : j;
}

#endif
