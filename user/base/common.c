// SPDX-License-Identifier: GPL-2.0
/*
 * The output mode, messages and argument parsers shared by tdctl and the
 * host unit tests (see common.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/topdown.h>

#include "base/common.h"

bool json_output;
bool csv_output;
struct json_writer *json_wtr;
void (*td_json_error)(const char *msg);
const char *bin_name = "tdctl";
int orig_stdout_fd = -1;
const char *td_output_path;
const char *td_cmd_name;
bool td_parsing_options;
bool td_usage_failed;

/*
 * The last error, whole whatever its length (malloc()ed; NULL: none, or
 * out of memory: then last_error_cut has as much of it as fits).
 */
static char *last_error;
static char last_error_cut[1024];

const char *p_last_error(void)
{
	return last_error ? last_error : last_error_cut;
}

/* "tdctl: <kind>message" on stderr. */
static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", bin_name, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* The error in last_error: a JSON object in JSON mode, else a line. */
static void put_error(void)
{
	if (json_output && json_wtr && td_json_error)
		td_json_error(p_last_error());
	else
		fprintf(stderr, "%s: Error: %s\n", bin_name, p_last_error());
}

/* last_error is the message, and with hint the usage error's hint
 * "; see 'tdctl CMD --help'" (cmd NULL: tdctl's own).
 */
static void set_error(bool hint, const char *cmd, const char *fmt,
		      va_list ap)
{
	char *msg, *full;
	va_list aq;
	int n;

	free(last_error);
	last_error = NULL;
	va_copy(aq, ap);
	if (vasprintf(&msg, fmt, ap) < 0) {
		vsnprintf(last_error_cut, sizeof(last_error_cut), fmt, aq);
		msg = NULL;
	}
	va_end(aq);
	if (hint)
		td_usage_failed = true;
	if (!msg || !hint) {
		last_error = msg;
		return;
	}
	n = cmd ? asprintf(&full, "%s; see '%s %s --help'", msg, bin_name, cmd) :
		  asprintf(&full, "%s; see '%s --help'", msg, bin_name);
	if (n < 0) {
		snprintf(last_error_cut, sizeof(last_error_cut), "%s", msg);
		free(msg);
		return;
	}
	free(msg);
	last_error = full;
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(td_parsing_options, td_cmd_name, fmt, ap);
	va_end(ap);
	put_error();
}

void p_usage_cmd(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(true, cmd, fmt, ap);
	va_end(ap);
	put_error();
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	if (json_output)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void p_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Warning: ", fmt, ap);
	va_end(ap);
}

const char *td_records(uint64_t n)
{
	return n == 1 ? "record" : "records";
}

void td_lost_set(struct td_lost *l, const uint64_t *per_cpu,
		 uint32_t nr_cpus)
{
	l->known = !!per_cpu;
	l->nr_cpus = nr_cpus;
	l->per_cpu = per_cpu;
	l->total = 0;
	for (uint32_t c = 0; per_cpu && c < nr_cpus; c++)
		l->total += per_cpu[c];
}

void td_lost_warn(const struct td_lost *l, const char *when)
{
	/* Unknown: the file's loader said so (td_input_load()). */
	if (!l->known)
		return;
	for (uint32_t c = 0; c < l->nr_cpus; c++)
		if (l->per_cpu[c])
			p_warn("CPU %u: %llu %s lost %s: the counts are low", c,
			       (unsigned long long)l->per_cpu[c],
			       td_records(l->per_cpu[c]), when);
}

const char *td_lost_text(const struct td_lost *l, char *buf, size_t n)
{
	if (l->known)
		snprintf(buf, n, "%llu lost", (unsigned long long)l->total);
	else
		snprintf(buf, n, "lost unknown");
	return buf;
}

int parse_u64(const char *opt, const char *s, unsigned long long max,
	      unsigned long long *out)
{
	return parse_u64_range(opt, s, 0, max, out);
}

int parse_u64_range(const char *opt, const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	p_err("invalid value '%s' for %s (expected an integer %llu..%llu)",
	      s ? s : "", opt, min, max);
	return -1;
}

int parse_id_list(const char *opt, const char *meta, const char *s,
		  unsigned long long max, uint64_t *ids, int cap, int *n)
{
	const char *p = s;
	char buf[24];

	if (!*p)
		goto bad;
	while (*p) {
		unsigned long long v;
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(buf))
			goto bad;
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_u64(opt, buf, max, &v))
			return -1;
		if (*n == cap) {
			p_err("%s: at most %d values", opt, cap);
			return -1;
		}
		ids[(*n)++] = v;
		p += len;
		if (*p == ',' && !*++p)
			goto bad;
	}
	return 0;
bad:
	p_err("invalid value '%s' for %s (expected %s)", s, opt, meta);
	return -1;
}

int parse_seconds(const char *opt, const char *s, unsigned int max_s,
		  unsigned long long *ns)
{
	unsigned long long sec = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		sec = sec * 10 + (*p - '0');
		if (sec > max_s)
			goto bad;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			goto bad;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
		}
	}
	if (*p || (sec == max_s && frac))
		goto bad;
	*ns = sec * 1000000000ull + frac;
	return 0;
bad:
	p_err("invalid value '%s' for %s (expected seconds, e.g. 2 or 0.5, at most %u)",
	      s ? s : "", opt, max_s);
	return -1;
}

/*
 * The file path names, its symbolic links followed even when the last one
 * dangles (as the shell's > writes the file such a link names), in a
 * canonical directory: malloc()ed, or NULL with errno set. A directory
 * that does not exist is left as given: creating the file says so.
 */
static char *out_target(const char *path)
{
	char *p = strdup(path), *slash, *dir, *real, *out;
	struct stat st;
	int hops = 0;

	while (p && !lstat(p, &st) && S_ISLNK(st.st_mode)) {
		char link[PATH_MAX], *next;
		ssize_t n = -1;

		if (++hops > 40)
			errno = ELOOP;
		else
			n = readlink(p, link, sizeof(link) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		link[n] = '\0';
		slash = strrchr(p, '/');
		/* relative to the directory of the link */
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s%s", (int)(slash - p + 1), p,
				  link) < 0)
			next = NULL;
		free(p);
		p = next;
	}
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	slash = strrchr(p, '/');
	if (slash && !slash[1])
		return p;
	dir = slash ? strndup(p, slash - p + 1) : strdup(".");
	real = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	if (!real)
		return p;
	if (asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "",
		     slash ? slash + 1 : p) < 0)
		out = NULL;
	free(real);
	if (!out) {
		errno = ENOMEM;
		return p;
	}
	free(p);
	return out;
}

/* The temporary file beside final (path as given) cannot be created. */
static void tmp_error(const char *path, const char *final, int e)
{
	const char *slash = strrchr(final, '/');
	char *dir = !slash ? strdup(".") :
		    strndup(final, slash > final ? slash - final : 1);
	struct stat st;

	/* The directory is there: only the temporary file is not. */
	if (dir && !stat(dir, &st) && S_ISDIR(st.st_mode))
		p_err("cannot write %s: cannot create a temporary file beside it in %s: %s",
		      path, dir, strerror(e));
	else
		p_err("cannot write %s: %s", path, strerror(e));
	free(dir);
}

/*
 * The temporary file that becomes o->final (the file path names): with
 * the mode the file has or a new file would get, and the owner and group
 * of the file it replaces. 0, or -1 after p_err().
 */
static int open_tmp(struct td_outfile *o, const char *path)
{
	mode_t mask = umask(0), mode;
	bool exists;
	struct stat st, now;

	umask(mask);
	exists = !stat(o->final, &st);
	mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
	if (asprintf(&o->tmp, "%s.XXXXXX", o->final) < 0) {
		o->tmp = NULL;
		p_err("out of memory");
		return -1;
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		tmp_error(path, o->final, errno);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* The owner first: a chown() may clear the set-user-ID bit. */
	if (exists && !fstat(o->fd, &now) &&
	    (now.st_uid != st.st_uid || now.st_gid != st.st_gid) &&
	    fchown(o->fd, st.st_uid, st.st_gid)) {
		p_err("cannot write %s: the new file cannot keep its owner and group (uid %u, gid %u): %s",
		      path, (unsigned int)st.st_uid, (unsigned int)st.st_gid,
		      strerror(errno));
		return -1;
	}
	if (fchmod(o->fd, mode)) {
		p_err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int td_outfile_open(struct td_outfile *o, const char *path)
{
	struct stat st;

	o->final = NULL;
	o->tmp = NULL;
	o->fd = -1;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			p_err("cannot write %s: %s", path, strerror(EISDIR));
			return -1;
		}
		/* A device, FIFO or socket: never replaced. */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd >= 0)
			return 0;
		p_err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	o->final = out_target(path);
	if (!o->final) {
		p_err("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (!open_tmp(o, path))
		return 0;
	td_outfile_abort(o);
	return -1;
}

/* The temporary file of the output, for a signal that ends tdctl before
 * the command catches it (its own handler takes over then).
 */
static char *volatile signal_tmp;

static void remove_tmp_and_die(int sig)
{
	if (signal_tmp)
		unlink(signal_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

void td_outfile_guard(const struct td_outfile *o)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	signal_tmp = o->tmp;
	if (!o->tmp)
		return;
	/* Not over a handler the command installed already. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;

		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler == SIG_DFL)
			signal(sigs[i], remove_tmp_and_die);
	}
}

bool td_outfile_in_place(const struct td_outfile *o)
{
	return !o->tmp;
}

int td_outfile_commit(struct td_outfile *o, bool keep_fd)
{
	int ret = 0, e = 0;

	if (o->tmp && o->fd >= 0 && fsync(o->fd))
		ret = -1, e = errno;
	if (!keep_fd && o->fd >= 0 && close(o->fd) && !ret)
		ret = -1, e = errno;
	if (!keep_fd)
		o->fd = -1;
	if (o->tmp && !ret && rename(o->tmp, o->final))
		ret = -1, e = errno;
	if (o->tmp && ret)
		unlink(o->tmp);
	signal_tmp = NULL;
	free(o->tmp);
	free(o->final);
	o->tmp = NULL;
	o->final = NULL;
	errno = e;
	return ret;
}

void td_outfile_abort(struct td_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	signal_tmp = NULL;
	free(o->tmp);
	free(o->final);
	o->tmp = NULL;
	o->final = NULL;
}

bool td_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, "-") || !strcmp(b, "-") || stat(a, &sa) || stat(b, &sb))
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int check_one(const char *in, const char *o)
{
	if (!o || !strcmp(o, "-") || (strcmp(in, o) && !td_same_file(in, o)))
		return 0;
	p_err("-o %s is the input file %s: it would be overwritten", o, in);
	return -1;
}

int td_check_input(const char *in, const char *out)
{
	if (!in || !strcmp(in, "-"))
		return 0;
	return check_one(in, out) || check_one(in, td_output_path) ? -1 : 0;
}

uint64_t td_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
