// SPDX-License-Identifier: GPL-2.0
/*
 * tdctl load: insert the module through libkmod and start the collection
 * with the event set chosen for this CPU, a set by name, or the events
 * given in perf's syntax (evset/events.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/abi.h"
#include "evset/counters.h"
#include "live/backend.h"
#include "live/bpf/bpf.h"
#include "live/device.h"
#include "evset/evset.h"
#include "live/collect.h"
#include "output/emit.h"
#include "cli/tdctl.h"

#define NOT_FOUND	(-2)

/* The installed module's file (libkmod's lookup by name), into path. */
static bool module_installed(char *path, size_t n)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_list *list = NULL;
	struct kmod_module *mod;
	bool found = false;

	if (!ctx)
		return false;
	if (!kmod_module_new_from_lookup(ctx, TD_MODULE_NAME, &list) && list) {
		mod = kmod_module_get_module(list);
		snprintf(path, n, "%s", mod && kmod_module_get_path(mod) ?
			 kmod_module_get_path(mod) : "built in");
		found = !!mod;
		if (mod)
			kmod_module_unref(mod);
		kmod_module_unref_list(list);
	}
	kmod_unref(ctx);
	return found;
}

int td_explain_not_running(const char *error)
{
	static const struct td_field f[] = {
		{ .name = "state", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "error", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "cpu", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "set", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "why", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "module", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "bpf", .in = TD_IN_JSON | TD_IN_CSV },
		{ .name = "run", .in = TD_IN_JSON | TD_IN_CSV },
	};
	char cpu[128], mod[320], bpf[480], why[256], err[512], run[160];
	struct td_cpu_info *ci;
	struct td_plan plan;
	bool have_plan = false, mod_ok, bpf_ok;
	struct td_emit e;

	td_cpu_description(cpu, sizeof(cpu));
	ci = td_detect("", err, sizeof(err));
	if (ci) {
		have_plan = !td_plan_for(ci, NULL, &plan, err, sizeof(err));
		td_cpu_info_free(ci);
	}
	mod_ok = module_installed(why, sizeof(why));
	if (mod_ok)
		snprintf(mod, sizeof(mod), "installed (%s)", why);
	else
		snprintf(mod, sizeof(mod),
			 "not installed in /lib/modules/$(uname -r) (make install, the topdown-dkms package, or load --module PATH)");
	bpf_ok = !td_bpf_usable(why, sizeof(why));
	if (bpf_ok)
		snprintf(bpf, sizeof(bpf), "can run (kernel BTF, libbpf): %s",
			 td_bpf_rings_here());
	else
		snprintf(bpf, sizeof(bpf), "cannot run: %s", why);
	snprintf(run, sizeof(run), "%s load%s", bin_name,
		 mod_ok ? "" : bpf_ok ? " --backend bpf" : " --module PATH");
	if (json_output || csv_output) {
		td_emit_init(&e, stdout);
		td_emit_header(&e, f, 8, NULL);
		td_emit_begin(&e, NULL, NULL);
		td_emit_word(&e, &f[0], "not running");
		if (error)
			td_emit_str(&e, &f[1], error, SIZE_MAX);
		else
			td_emit_null(&e, &f[1]);
		td_emit_str(&e, &f[2], cpu, SIZE_MAX);
		td_emit_str(&e, &f[3], have_plan ? plan.set : "", SIZE_MAX);
		td_emit_str(&e, &f[4], have_plan ? plan.why : err, SIZE_MAX);
		td_emit_str(&e, &f[5], mod, SIZE_MAX);
		td_emit_str(&e, &f[6], bpf, SIZE_MAX);
		td_emit_str(&e, &f[7], run, SIZE_MAX);
		td_emit_end(&e);
		return TD_EXIT_NOT_RUNNING;
	}
	if (error)
		fprintf(stderr, "%s: %s\n", bin_name, error);
	printf("state:      not running: neither the topdown module nor the "
	       "BPF backend collects\n");
	printf("cpu:        %s\n", cpu);
	if (have_plan) {
		printf("event set:  %s (%s); events:", plan.set, plan.why);
		for (int i = 0; i < plan.nr_events; i++)
			printf("%s %s", i ? "," : "", plan.ev[i].name);
		printf("\n");
	} else {
		printf("event set:  none fits: %s\n", err);
	}
	printf("backends:   module: %s\n", mod);
	printf("            bpf: %s\n", bpf);
	printf("run:        %s  (--backend module|bpf|auto: auto takes the "
	       "module if it loads, else BPF)\n", run);
	return TD_EXIT_NOT_RUNNING;
}

/* soft: say why it failed as information (--backend auto goes on).
 * NOT_FOUND: no module of that name is installed (and no path given).
 */
static int insert_module(const char *path, bool soft)
{
	void (*say)(const char *fmt, ...) = soft ? p_info : p_err;
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_list *list = NULL;
	struct kmod_module *mod = NULL;
	int err;

	if (!ctx) {
		say("libkmod: cannot create a context");
		return -1;
	}
	if (path) {
		err = kmod_module_new_from_path(ctx, path, &mod);
		if (err) {
			say("cannot use module file %s: %s", path, strerror(-err));
			goto out;
		}
		err = kmod_module_insert_module(mod, 0, NULL);
	} else {
		err = kmod_module_new_from_lookup(ctx, TD_MODULE_NAME, &list);
		if (err || !list) {
			if (soft)
				say("module %s not found in /lib/modules",
				    TD_MODULE_NAME);
			err = NOT_FOUND;
			goto out;
		}
		mod = kmod_module_get_module(list);
		err = kmod_module_probe_insert_module(mod, 0, NULL, NULL, NULL,
						      NULL);
	}
	if (err == -EEXIST)
		err = 0;
	if (err) {
		const char *why = strerror(-err);

		if (err == -EPERM)
			why = "not permitted (needs root, and a kernel that allows modules)";
		else if (err == -ENOEXEC || err == -EINVAL)
			why = "the module does not fit this kernel (wrong version or architecture)";
		say("inserting %s: %s", path ? path : TD_MODULE_NAME, why);
		goto out;
	}
	p_info("module %s loaded from %s", TD_MODULE_NAME,
	       kmod_module_get_path(mod) ? kmod_module_get_path(mod) : path);
out:
	if (mod)
		kmod_module_unref(mod);
	if (list)
		kmod_module_unref_list(list);
	kmod_unref(ctx);
	return err == NOT_FOUND ? NOT_FOUND : err ? -1 : 0;
}

static void explain_start_error(int fd, const struct topdown_config *cfg, int err)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;

	if (err == EBUSY) {
		p_err("collection is already running (stop it with '%s unload')",
		      bin_name);
		return;
	}
	if (!td_get_status(fd, &st, &stats) && st.error_event >= 0 &&
	    st.error_event < (int)cfg->nr_events) {
		const struct topdown_event *e = td_cfg_event(cfg, st.error_event);

		p_err("perf refused event %s (type %u, config 0x%llx) on CPU %d: %s",
		      e->name, e->type, (unsigned long long)e->config,
		      st.error_cpu, strerror(-st.error_code));
	} else {
		p_err("starting the collection: %s", strerror(err));
	}
	free(stats);
}

/*
 * Events perf created but could not put on a hardware counter when their
 * CPU started counting: warned about on stderr (reasons, what to do), and
 * returned as a bit mask for the JSON/CSV output.
 */
static uint32_t start_no_counter(const struct td_src *src,
				 const struct topdown_config *cfg)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	uint32_t mask;

	if (td_src_status(src, &st, &stats))
		return 0;
	mask = td_events_without_counter(&st, stats, true);
	td_warn_no_counter(&st, stats, cfg, mask, true,
			   src->kind == TD_BACKEND_BPF);
	free(stats);
	return mask;
}

/* Events of group 0 (what the module counts first), by position. */
static int first_nr(const struct td_plan *plan)
{
	return plan->nr_groups ? plan->groups[0].nr : plan->nr_events;
}

static const char *first_name(const struct td_plan *plan, int j)
{
	return plan->ev[plan->nr_groups ? plan->groups[0].ev[j] : j].name;
}

/* The interval the module uses (GET_CONFIG resolves the default). */
static unsigned int cfg_rotate_ms(int fd, const struct topdown_config *cfg)
{
	struct topdown_config got;

	if (fd >= 0 && !td_dev_get_config(fd, &got))
		return got.rotate_ms;
	return cfg->rotate_ms ? cfg->rotate_ms : TOPDOWN_ROTATE_DEFAULT_MS;
}

static bool is_running(int fd)
{
	struct topdown_cpu_stats *stats = NULL;
	struct topdown_status st;
	bool running;

	if (td_get_status(fd, &st, &stats))
		return false;
	running = st.state == TOPDOWN_STATE_RUNNING;
	free(stats);
	return running;
}

/* The module is loaded and collecting. */
static bool module_running(void)
{
	bool running = false;
	int fd;

	if (!td_module_loaded())
		return false;
	fd = open(TOPDOWN_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		running = is_running(fd);
		close(fd);
	}
	return running;
}

const struct td_opt load_opts[] = {
	{ "module", 0, 'm', TD_ARG_FILE, "PATH", "module file to insert", 0 },
	{ "set", 's', 's', TD_ARG_SET, "NAME", "event set by name", 0 },
	{ "events", 'e', 'e', TD_ARG_EVENTS, "EVENTS",
	  "perf's event list instead of a set (cycles,instructions:u,rNNNN,PMU/terms/)", 0 },
	{ "level", 0, 'L', TD_ARG_NUM, "N",
	  "1 (default): Level 1, no rotation; 2: the set's Level 2 groups, rotated", 0 },
	{ "metrics", 'M', 'M', TD_ARG_WORD, "GROUP[,GROUP..]",
	  "perf's metric groups (perf stat -M): the set's groups for them, rotated", 0 },
	{ "ring-size", 0, 'r', TD_ARG_NUM, "BYTES", "data bytes per CPU ring", 0 },
	{ "watermark", 0, 'w', TD_ARG_NUM, "BYTES", "unread bytes that wake a reader", 0 },
	{ "overwrite", 0, 'O', TD_ARG_NONE, NULL, "overwrite the oldest records", 0 },
	{ "totals", 0, 'T', TD_ARG_NONE, NULL,
	  "keep every task's totals in the kernel, exact when records are lost", 0 },
	{ "totals-tasks", 0, 'k', TD_ARG_NUM, "N",
	  "with --totals: task entries of the pool (a power of two)", 0 },
	{ "rotate", 0, 'R', TD_ARG_NUM, "MS",
	  "with event groups: move each CPU to the next group every MS ms", 0 },
	{ "backend", 0, 'b', TD_ARG_BACKEND, "NAME",
	  "module (default), bpf or auto", 0 },
	TD_OPT_OUTPUT,
	TD_OPT_HELP,
	TD_OPT_END,
};

static void load_desc(char *desc, size_t n)
{
	snprintf(desc, n,
		 "Insert the topdown module (by name from /lib/modules, or PATH) and\n"
		 "start collecting with the event set chosen for this CPU ('%s list'),\n"
		 "the set NAME, or the events EVENTS in perf's syntax (cycles,\n"
		 "instructions:u, rNNNN, PMU/event=..,umask=../, at most %d; -e may\n"
		 "be repeated). Event groups in perf's syntax, -e '{a,b},{c,d}': each\n"
		 "{...} is a group and each event outside braces a group of its own;\n"
		 "a CPU counts one group at a time and moves to the next every --rotate\n"
		 "MS (default %d), between two slices (up to %d groups of %d, %d events\n"
		 "in all; module backend only). --level 2 or -M GROUP adds the set's\n"
		 "groups below Level 1 (%s list shows them), counted in turn the same\n"
		 "way. The ring size is a power of two (default %u bytes), the\n"
		 "watermark defaults to a quarter of it; without --overwrite a full\n"
		 "ring drops new records and counts them. --totals keeps each task's\n"
		 "sums in the kernel as well (a pool of --totals-tasks entries,\n"
		 "default %d; the BPF backend from Linux 5.12).\n",
		 bin_name, TOPDOWN_MAX_EVENTS, TOPDOWN_ROTATE_DEFAULT_MS,
		 TOPDOWN_MAX_GROUPS, TOPDOWN_MAX_EVENTS, TOPDOWN_MAX_POOL,
		 bin_name, TOPDOWN_RING_DEFAULT_SIZE, TOPDOWN_TOTALS_DEFAULT_TASKS);
}

/* Append one -e argument to the comma-separated list. */
static int add_events(char *list, size_t n, const char *arg)
{
	size_t l = strlen(list);

	if (snprintf(list + l, n - l, "%s%s", l ? "," : "", arg) >=
	    (int)(n - l)) {
		p_err("--events: the event list is too long");
		return -1;
	}
	return 0;
}

/*
 * The plan: --events EVENTS in perf's syntax, or a set (--set NAME, or
 * automatically). A set's name given to --events is taken as --set.
 */
static int choose_plan(const char *set, const char *events,
		       const struct td_select *sel, struct td_plan *plan)
{
	struct td_cpu_info *ci;
	char err[512];
	int ret;

	ci = td_detect("", err, sizeof(err));
	if (!ci) {
		p_err("detecting the CPU: %s", err);
		return -1;
	}
	if (*events && !set && td_set_exists(events))
		set = events;
	if (*events && set != events)
		ret = td_plan_events(ci, "", events, plan, err, sizeof(err));
	else
		ret = td_plan_select(ci, set, sel, plan, err, sizeof(err));
	td_cpu_info_free(ci);
	if (ret)
		p_err("%s", err);
	return ret;
}

/*
 * What load started, in JSON or CSV through the row emitter: JSON lists
 * the events, the groups (each an object: its name and its events' names,
 * in record order) and those without a counter as arrays, CSV as one field of
 * space-separated names.
 */
static void load_result(const struct td_plan *plan, enum td_backend backend,
			uint32_t no_counter, unsigned int rotate_ms)
{
	enum { F_SET, F_WHY, F_LABEL, F_EVENTS, F_NO_COUNTER, F_BACKEND,
	       F_REASON, F_ROTATE, F_NR };
	static const struct td_field f[F_NR] = {
		[F_SET] = { .name = "set", .in = TD_IN_JSON | TD_IN_CSV },
		[F_WHY] = { .name = "why", .in = TD_IN_JSON | TD_IN_CSV },
		[F_LABEL] = { .name = "label", .in = TD_IN_JSON | TD_IN_CSV },
		[F_EVENTS] = { .name = "events", .in = TD_IN_CSV },
		[F_NO_COUNTER] = { .name = "no_counter", .in = TD_IN_CSV },
		[F_BACKEND] = { .name = "backend", .in = TD_IN_JSON | TD_IN_CSV },
		[F_REASON] = { .name = "no_counter_reason", .in = TD_IN_JSON },
		[F_ROTATE] = { .name = "rotate_ms", .in = TD_IN_JSON },
	};
	char evs[TOPDOWN_MAX_POOL * (TOPDOWN_NAME_LEN + 1) + 1] = "";
	char bad[sizeof(evs)] = "";
	json_writer_t *w;
	struct td_emit e;

	for (int i = 0; i < plan->nr_events; i++)
		snprintf(evs + strlen(evs), sizeof(evs) - strlen(evs), "%s%s",
			 i ? " " : "", plan->ev[i].name);
	for (int i = 0; i < first_nr(plan); i++)
		if (no_counter & (1u << i))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s%s", *bad ? " " : "", first_name(plan, i));
	td_emit_init(&e, stdout);
	td_emit_header(&e, f, F_NR, NULL);
	td_emit_begin(&e, NULL, NULL);
	td_emit_str(&e, &f[F_SET], plan->set, SIZE_MAX);
	td_emit_str(&e, &f[F_WHY], plan->why, SIZE_MAX);
	td_emit_str(&e, &f[F_LABEL], plan->label, SIZE_MAX);
	td_emit_str(&e, &f[F_EVENTS], evs, SIZE_MAX);
	td_emit_str(&e, &f[F_NO_COUNTER], bad, SIZE_MAX);
	td_emit_str(&e, &f[F_BACKEND], td_backend_name(backend), SIZE_MAX);
	if (no_counter)
		td_emit_str(&e, &f[F_REASON], td_no_counter_reason(),
			    SIZE_MAX);
	td_emit_uint(&e, &f[F_ROTATE], rotate_ms);
	w = td_emit_json(&e);
	if (w) {
		jsonw_name(w, "events");
		jsonw_start_array(w);
		for (int i = 0; i < plan->nr_events; i++)
			jsonw_string(w, plan->ev[i].name);
		jsonw_end_array(w);
		if (plan->nr_groups) {
			jsonw_name(w, "groups");
			jsonw_start_array(w);
			for (int gi = 0; gi < plan->nr_groups; gi++) {
				const struct td_plan_group *pg = &plan->groups[gi];

				jsonw_start_object(w);
				jsonw_string_field(w, "name", pg->name);
				jsonw_name(w, "events");
				jsonw_start_array(w);
				for (int k = 0; k < pg->nr; k++)
					jsonw_string(w, plan->ev[pg->ev[k]].name);
				jsonw_end_array(w);
				jsonw_end_object(w);
			}
			jsonw_end_array(w);
		}
		jsonw_name(w, "no_counter");
		jsonw_start_array(w);
		for (int i = 0; i < first_nr(plan); i++)
			if (no_counter & (1u << i))
				jsonw_string(w, first_name(plan, i));
		jsonw_end_array(w);
	}
	td_emit_end(&e);
}

int do_load(int argc, char **argv)
{
	const char *module = NULL, *set = NULL;
	unsigned long long ring = 0, wm = 0, rotate = 0, level = 1, tasks = 0;
	struct td_select sel = { 0 };
	char events[4096] = "", desc[1024];
	struct topdown_config cfg;
	struct td_plan plan;
	struct td_src src_mod = { .kind = TD_BACKEND_MODULE, .cfg_fd = -1,
				  .cpu_fd = -1 };
	enum td_backend backend = TD_BACKEND_MODULE;
	bool overwrite = false, totals = false;
	uint32_t no_counter = 0;
	struct td_getopt g;
	int opt, fd, err, ret = -1;

	load_desc(desc, sizeof(desc));
	td_getopt_build(&g, "load", desc);
	while ((opt = td_getopt_next(&g, argc, argv)) >= 0) {
		switch (opt) {
		case 'm':
			module = optarg;
			break;
		case 's':
			set = optarg;
			if (!td_set_exists(set)) {
				p_err("unknown event set '%s' ('%s list' names them)",
				      set, bin_name);
				return -1;
			}
			break;
		case 'e':
			if (add_events(events, sizeof(events), optarg))
				return -1;
			break;
		case 'L':
			if (parse_u64_range("--level", optarg, 1, 2, &level))
				return -1;
			sel.level = (int)level;
			break;
		case 'M':
			sel.metric_groups = optarg;
			break;
		case 'r':
			if (parse_u64("--ring-size", optarg, TOPDOWN_RING_MAX_SIZE, &ring))
				return -1;
			if (ring < TOPDOWN_RING_MIN_SIZE || (ring & (ring - 1))) {
				p_err("--ring-size must be a power of two from %u to %u",
				      TOPDOWN_RING_MIN_SIZE, TOPDOWN_RING_MAX_SIZE);
				return -1;
			}
			break;
		case 'w':
			if (parse_u64("--watermark", optarg, TOPDOWN_RING_MAX_SIZE, &wm))
				return -1;
			break;
		case 'O':
			overwrite = true;
			break;
		case 'T':
			totals = true;
			break;
		case 'k':
			if (parse_u64("--totals-tasks", optarg, TOPDOWN_TOTALS_MAX_TASKS, &tasks))
				return -1;
			if (tasks < TOPDOWN_TOTALS_MIN_TASKS || (tasks & (tasks - 1))) {
				p_err("--totals-tasks must be a power of two from %u to %u",
				      TOPDOWN_TOTALS_MIN_TASKS, TOPDOWN_TOTALS_MAX_TASKS);
				return -1;
			}
			break;
		case 'R':
			if (parse_u64("--rotate", optarg, TOPDOWN_ROTATE_MAX_MS, &rotate))
				return -1;
			if (rotate < TOPDOWN_ROTATE_MIN_MS) {
				p_err("--rotate must be %d to %d ms", TOPDOWN_ROTATE_MIN_MS,
				      TOPDOWN_ROTATE_MAX_MS);
				return -1;
			}
			break;
		case 'b':
			if (td_backend_parse(optarg, &backend)) {
				p_err("--backend must be module, bpf or auto, not '%s'",
				      optarg);
				return -1;
			}
			break;
		}
	}
	ret = td_getopt_end(opt, argc, argv, false);
	if (ret <= 0)
		return ret;
	ret = -1;
	if (set && *events) {
		p_usage_error("--set and --events exclude each other: a set names its own events");
		return -1;
	}
	if (*events && (sel.level > 1 || sel.metric_groups) &&
	    !td_set_exists(events)) {
		p_usage_error("--level and -M choose a set's groups; --events names its events");
		return -1;
	}
	if (wm && wm > (ring ? ring : TOPDOWN_RING_DEFAULT_SIZE)) {
		p_usage_error("--watermark must not exceed the ring size");
		return -1;
	}
	if (tasks && !totals) {
		p_usage_error("--totals-tasks sizes the pool of --totals");
		return -1;
	}
	if (module && backend == TD_BACKEND_BPF) {
		p_usage_error("--module does not apply to --backend bpf");
		return -1;
	}
	/* Groups on the BPF backend: a command line it cannot honour. */
	if (backend == TD_BACKEND_BPF &&
	    (sel.level > 1 || sel.metric_groups || rotate ||
	     strpbrk(events, "{}"))) {
		p_usage_error("%s", td_bpf_no_groups);
		return -1;
	}

	/* Choose the events first: a wrong --set or --events changes nothing. */
	if (choose_plan(set, events, &sel, &plan))
		return -1;
	if (rotate && plan.nr_groups < 2) {
		p_err("--rotate needs two event groups or more (perf's group syntax: -e '{a,b},{c,d}')");
		return -1;
	}
	plan.rotate_ms = (unsigned int)rotate;
	if (plan.nr_groups && backend == TD_BACKEND_BPF) {
		p_usage_error("%s", td_bpf_no_groups);
		return -1;
	}

	td_config_from_plan(&plan, &cfg);
	cfg.ring_size = ring;
	cfg.watermark = wm;
	if (overwrite)
		cfg.flags |= TOPDOWN_OVERFLOW_OVERWRITE;
	if (totals) {
		cfg.flags |= TOPDOWN_CONFIG_TOTALS;
		cfg.totals_tasks = (uint32_t)tasks;
	}
	if (td_bpf_active()) {
		p_err("collection is already running with the BPF backend (stop it with '%s unload')",
		      bin_name);
		return -1;
	}
	if (backend == TD_BACKEND_NONE) {	/* auto */
		char why[256];

		backend = TD_BACKEND_MODULE;
		if (!td_module_loaded() && insert_module(module, true)) {
			static const char none[] =
				"--backend auto: neither backend can run";
			if (plan.nr_groups) {
				char msg[640];

				snprintf(msg, sizeof(msg),
					 "--backend auto: the module did not load, and %s",
					 td_bpf_no_groups);
				return td_explain_not_running(msg);
			}
			if (td_bpf_usable(why, sizeof(why)))
				return td_explain_not_running(none);
			backend = TD_BACKEND_BPF;
		}
		p_info("--backend auto: using the %s", backend == TD_BACKEND_BPF ?
		       "BPF backend (the module could not be loaded)" :
		       "module");
	}
	if (backend == TD_BACKEND_BPF) {
		struct td_src src;

		if (module_running()) {
			p_err("collection is already running with the module (stop it with '%s unload')",
			      bin_name);
			return -1;
		}
		if (td_bpf_load(&cfg))
			return -1;
		if (!td_src_open(&src, false)) {
			no_counter = start_no_counter(&src, &cfg);
			td_src_close(&src);
		}
		fd = -1;
		goto done;
	}

	if (!td_module_loaded()) {
		ret = insert_module(module, false);
		if (ret == NOT_FOUND)
			return td_explain_not_running("module " TD_MODULE_NAME
				" not found in /lib/modules: nothing loaded");
		if (ret)
			return -1;
		ret = -1;
	}
	fd = td_dev_open(true);
	if (fd < 0)
		return -1;

	if (is_running(fd)) {
		p_err("collection is already running (stop it with '%s unload')",
		      bin_name);
		goto out;
	}
	err = td_dev_configure(fd, &cfg);
	if (err) {
		if (err == -EBUSY)
			p_err("cannot reconfigure: the collection is running or a reader has the rings mapped");
		else if (err == -E2BIG)
			p_err("the topdown module is older than tdctl and does not know a setting this configuration uses: install the module of tdctl's release");
		else if (err == -ENOENT)
			p_err("an event of the set names a PMU type or event this kernel does not have (was its driver unloaded?)");
		else if (err == -EOPNOTSUPP)
			p_err("the module refused an event of the set: only core CPU PMU events and software events are counted (tracepoint, breakpoint, kprobe, uprobe and uncore PMU events are refused)");
		else
			p_err("configuring the collection: %s", strerror(-err));
		goto out;
	}
	err = td_dev_start(fd);
	if (err) {
		explain_start_error(fd, &cfg, -err);
		goto out;
	}
	src_mod.fd = fd;
	no_counter = start_no_counter(&src_mod, &cfg);
done:
	ret = 0;
	if (json_output || csv_output) {
		load_result(&plan, backend, no_counter,
			    plan.nr_groups > 1 ? cfg_rotate_ms(fd, &cfg) : 0);
	} else {
		printf("collecting with event set '%s'%s: %s\n", plan.set,
		       backend == TD_BACKEND_BPF ? " (BPF backend)" : "",
		       plan.why);
		for (int k = 0; k < plan.nr_groups; k++) {
			printf("  group %d%s%s:", k, plan.groups[k].name[0] ? " " : "",
			       plan.groups[k].name);
			for (int j = 0; j < plan.groups[k].nr; j++)
				printf(" %s", plan.ev[plan.groups[k].ev[j]].name);
			printf("\n");
		}
		if (plan.nr_groups > 1)
			printf("  each CPU moves to the next group every %u ms\n",
			       cfg_rotate_ms(fd, &cfg));
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}
