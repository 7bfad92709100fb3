// SPDX-License-Identifier: GPL-2.0
/*
 * The record file format (Documentation/file-format.rst): explicit
 * little-endian encoding and a parser that checks every field.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file/le.h"
#include "file/tdfile.h"

/* Field offsets in the header. */
enum {
	H_MAGIC = 0, H_MAJOR = 8, H_MINOR = 10, H_BYTE_ORDER = 12,
	H_HEADER_SIZE = 16, H_RECORD_SIZE = 20, H_NR_CPUS = 24,
	H_NR_EVENTS = 28, H_START = 32, H_START_REAL = 40, H_FLAGS = 48,
	H_RING_SIZE = 52, H_SLOTS = 56, H_RESERVED = 60, H_LABEL = 64,
	H_ARCH = 128, H_KERNEL = 192, H_HOST = 256, H_CPU = 320,
	H_TARGET = 448, H_EVENTS = TD_FILE_FIXED_HEADER,
};

/* In one event entry. */
enum {
	E_TYPE = 0, E_FLAGS = 4, E_CONFIG = 8, E_CONFIG1 = 16, E_CONFIG2 = 24,
	E_NAME = 32,
};

/* In one record (the layout of struct topdown_record). */
enum {
	R_SEQ = 0, R_TIME = 8, R_DURATION = 16, R_CGROUP = 24, R_CPU = 32,
	R_PID = 36, R_TGID = 40, R_FLAGS = 44, R_COMM = 48, R_DELTA = 64,
};

/* In the trailer. */
enum { T_MAGIC = 0, T_NR_RECORDS = 8, T_STOP = 16, T_READ = 24, T_LOST = 32 };

#define REC_KNOWN_FLAGS (TOPDOWN_REC_ERROR_MASK | TOPDOWN_REC_PREEMPTED | \
			 TOPDOWN_REC_FIRST | TOPDOWN_REC_IDLE)
/* 2.x: the group that measured the slice, and the slice of a rotation. */
#define REC_KNOWN_FLAGS_GROUPS (REC_KNOWN_FLAGS | TOPDOWN_REC_ROTATED | \
				TOPDOWN_REC_GROUP_MASK)

/* In the groups section of a 2.x header (after the events). */
enum { G_NR_GROUPS = 0, G_ROTATE_MS = 4, G_GROUPS = TD_FILE_GROUPS_FIXED };
/* In one group entry. */
enum { GE_NR_EVENTS = 0, GE_FLAGS = 4, GE_EVENTS = 8 };

/* ---- parsing ---------------------------------------------------------- */

struct parse {
	const uint8_t *buf;
	size_t len;
	char *err;
	size_t errlen;
};

static int fail(struct parse *p, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse *p, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "offset %llu: ",
		     (unsigned long long)off);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A NUL-terminated, zero-padded text field without control characters. */
static int get_str(struct parse *p, uint64_t off, size_t size, char *dst,
		   const char *what, bool need)
{
	const uint8_t *s = p->buf + off;
	const uint8_t *nul = memchr(s, 0, size);

	if (!nul)
		return fail(p, off, "%s is not NUL-terminated within %zu bytes",
			    what, size);
	for (const uint8_t *c = s; c < nul; c++)
		if (*c < 0x20 || *c == 0x7f)
			return fail(p, off + (c - s),
				    "%s contains control character 0x%02x",
				    what, *c);
	for (const uint8_t *c = nul; c < s + size; c++)
		if (*c)
			return fail(p, off + (c - s),
				    "%s: non-zero byte after its end", what);
	if (need && nul == s)
		return fail(p, off, "%s is empty", what);
	memcpy(dst, s, nul - s + 1);
	return 0;
}

static int parse_events(struct parse *p, struct td_file_meta *m)
{
	for (uint32_t i = 0; i < m->cfg.nr_events; i++) {
		uint64_t off = H_EVENTS + (uint64_t)i * TD_FILE_EVENT_SIZE;
		const uint8_t *e = p->buf + off;
		struct topdown_event *ev = td_pool_event(&m->cfg, i);
		char what[32];

		ev->type = get32(e + E_TYPE);
		ev->flags = get32(e + E_FLAGS);
		if (ev->flags & ~TOPDOWN_EVENT_FLAGS_ALL)
			return fail(p, off + E_FLAGS,
				    "event %u: unknown flags 0x%x", i,
				    ev->flags);
		ev->config = get64(e + E_CONFIG);
		ev->config1 = get64(e + E_CONFIG1);
		ev->config2 = get64(e + E_CONFIG2);
		snprintf(what, sizeof(what), "event %u name", i);
		if (get_str(p, off + E_NAME, TOPDOWN_NAME_LEN, ev->name, what,
			    true))
			return -1;
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(td_pool_event(&m->cfg, j)->name, ev->name))
				return fail(p, off + E_NAME,
					    "event %u has the name of event %u ('%s')",
					    i, j, ev->name);
	}
	return 0;
}

/*
 * 2.x: the groups after the events (nr_groups was read and checked by
 * parse_header, which also made sure the section is in the file).
 */
static int parse_groups(struct parse *p, struct td_file_meta *m)
{
	uint64_t base = H_EVENTS + (uint64_t)m->cfg.nr_events * TD_FILE_EVENT_SIZE;
	uint32_t used = 0;

	m->cfg.rotate_ms = get32(p->buf + base + G_ROTATE_MS);
	if (m->cfg.rotate_ms < TOPDOWN_ROTATE_MIN_MS ||
	    m->cfg.rotate_ms > TOPDOWN_ROTATE_MAX_MS)
		return fail(p, base + G_ROTATE_MS,
			    "rotation interval %u ms outside %u..%u",
			    m->cfg.rotate_ms, TOPDOWN_ROTATE_MIN_MS,
			    TOPDOWN_ROTATE_MAX_MS);
	for (uint32_t g = 0; g < m->cfg.nr_groups; g++) {
		uint64_t off = base + G_GROUPS + (uint64_t)g * TD_FILE_GROUP_SIZE;
		const uint8_t *e = p->buf + off;
		struct topdown_group *grp = &m->cfg.groups[g];

		grp->nr_events = get32(e + GE_NR_EVENTS);
		if (!grp->nr_events || grp->nr_events > TOPDOWN_MAX_EVENTS)
			return fail(p, off + GE_NR_EVENTS,
				    "group %u: %u events, outside 1..%d", g,
				    grp->nr_events, TOPDOWN_MAX_EVENTS);
		grp->flags = get32(e + GE_FLAGS);
		if (grp->flags)
			return fail(p, off + GE_FLAGS,
				    "group %u: flags 0x%x, must be 0", g,
				    grp->flags);
		for (uint32_t j = 0; j < TOPDOWN_MAX_EVENTS; j++) {
			uint8_t ev = e[GE_EVENTS + j];

			grp->events[j] = ev;
			if (j >= grp->nr_events) {
				if (ev)
					return fail(p, off + GE_EVENTS + j,
						    "group %u: entry %u past its %u events is not zero",
						    g, j, grp->nr_events);
				continue;
			}
			if (ev >= m->cfg.nr_events)
				return fail(p, off + GE_EVENTS + j,
					    "group %u: event %u is pool entry %u, the pool has %u",
					    g, j, ev, m->cfg.nr_events);
			for (uint32_t k = 0; k < j; k++)
				if (grp->events[k] == ev)
					return fail(p, off + GE_EVENTS + j,
						    "group %u: pool entry %u twice (events %u and %u)",
						    g, ev, k, j);
			used |= 1u << ev;
		}
	}
	for (uint32_t i = 0; i < m->cfg.nr_events; i++)
		if (!(used & (1u << i)))
			return fail(p, H_EVENTS + (uint64_t)i * TD_FILE_EVENT_SIZE,
				    "event %u ('%s') is in no group", i,
				    td_pool_event(&m->cfg, i)->name);
	return 0;
}

static int parse_header(struct parse *p, struct td_file_meta *m)
{
	const uint8_t *b = p->buf;
	uint32_t v, need;
	bool groups;

	if (p->len < 8 || memcmp(b, TD_FILE_MAGIC, 8)) {
		if (p->len >= 8 && !memcmp(b + 1, "TDR", 3))
			return fail(p, 0,
				    "bad magic (line endings or high bit changed in transfer?)");
		return fail(p, 0, "not a tdctl record file (%s)",
			    p->len < 8 ? "shorter than the magic" :
			    "bad magic");
	}
	if (p->len < H_BYTE_ORDER + 4)
		return fail(p, p->len, "truncated: the header needs %d bytes, the file has %zu",
			    TD_FILE_FIXED_HEADER, p->len);
	m->version_major = get16(b + H_MAJOR);
	m->version_minor = get16(b + H_MINOR);
	if (m->version_major != TD_FILE_VERSION_MAJOR &&
	    m->version_major != TD_FILE_GROUPS_MAJOR)
		return fail(p, H_MAJOR,
			    "unsupported format version %u.%u (this tdctl reads %d.x and %d.x)",
			    m->version_major, m->version_minor,
			    TD_FILE_VERSION_MAJOR, TD_FILE_GROUPS_MAJOR);
	groups = m->version_major == TD_FILE_GROUPS_MAJOR;
	v = get32(b + H_BYTE_ORDER);
	if (v == 0x04030201u)
		return fail(p, H_BYTE_ORDER,
			    "byte-order marker is big-endian: the file was not written little-endian as the format requires");
	if (v != TD_FILE_BYTE_ORDER)
		return fail(p, H_BYTE_ORDER, "bad byte-order marker 0x%08x",
			    v);
	if (p->len < TD_FILE_FIXED_HEADER)
		return fail(p, p->len, "truncated: the header needs %d bytes, the file has %zu",
			    TD_FILE_FIXED_HEADER, p->len);

	v = get32(b + H_RECORD_SIZE);
	if (v != TOPDOWN_RECORD_SIZE)
		return fail(p, H_RECORD_SIZE,
			    "record size %u, expected %d", v,
			    TOPDOWN_RECORD_SIZE);
	m->nr_cpus = get32(b + H_NR_CPUS);
	if (!m->nr_cpus || m->nr_cpus > TD_FILE_MAX_CPUS)
		return fail(p, H_NR_CPUS, "nr_cpus %u outside 1..%d",
			    m->nr_cpus, TD_FILE_MAX_CPUS);
	m->cfg.nr_events = get32(b + H_NR_EVENTS);
	v = groups ? TOPDOWN_MAX_POOL : TOPDOWN_MAX_EVENTS;
	if (!m->cfg.nr_events || m->cfg.nr_events > v)
		return fail(p, H_NR_EVENTS, "nr_events %u outside 1..%u",
			    m->cfg.nr_events, v);
	need = TD_FILE_FIXED_HEADER + m->cfg.nr_events * TD_FILE_EVENT_SIZE;
	if (groups) {
		/* The group count sizes the header: read it first. */
		if (p->len < need + TD_FILE_GROUPS_FIXED)
			return fail(p, p->len,
				    "truncated: the header needs %u bytes, the file has %zu",
				    need + TD_FILE_GROUPS_FIXED, p->len);
		m->cfg.nr_groups = get32(b + need + G_NR_GROUPS);
		if (!m->cfg.nr_groups || m->cfg.nr_groups > TOPDOWN_MAX_GROUPS)
			return fail(p, need + G_NR_GROUPS,
				    "nr_groups %u outside 1..%d",
				    m->cfg.nr_groups, TOPDOWN_MAX_GROUPS);
		need += TD_FILE_GROUPS_FIXED +
			m->cfg.nr_groups * TD_FILE_GROUP_SIZE;
	}
	m->header_size = get32(b + H_HEADER_SIZE);
	if (m->version_minor == 0 ?
	    m->header_size != need :
	    m->header_size < need || m->header_size % 8 ||
	    m->header_size > TD_FILE_MAX_HEADER)
		return fail(p, H_HEADER_SIZE,
			    groups ? "header size %u, expected %u for %u events and %u groups" :
			    "header size %u, expected %u for %u events",
			    m->header_size, need, m->cfg.nr_events,
			    m->cfg.nr_groups);
	if (p->len < m->header_size)
		return fail(p, p->len, "truncated: the header needs %u bytes, the file has %zu",
			    m->header_size, p->len);

	m->start_ns = get64(b + H_START);
	m->start_realtime_ns = get64(b + H_START_REAL);
	m->cfg.flags = get32(b + H_FLAGS);
	if (m->cfg.flags & ~TOPDOWN_CONFIG_FLAGS_ALL)
		return fail(p, H_FLAGS, "unknown configuration flags 0x%x",
			    m->cfg.flags);
	m->cfg.ring_size = get32(b + H_RING_SIZE);
	v = m->cfg.ring_size;
	if (v && (v < TOPDOWN_RING_MIN_SIZE || v > TOPDOWN_RING_MAX_SIZE ||
		  (v & (v - 1))))
		return fail(p, H_RING_SIZE,
			    "ring size %u is not a power of two in %u..%u", v,
			    TOPDOWN_RING_MIN_SIZE, TOPDOWN_RING_MAX_SIZE);
	m->slots = get32(b + H_SLOTS);
	if (m->slots > 255)
		return fail(p, H_SLOTS, "slot width %u above 255", m->slots);
	if (get32(b + H_RESERVED))
		return fail(p, H_RESERVED, "reserved field is not zero");
	m->cfg.size = sizeof(m->cfg);
	if (get_str(p, H_LABEL, TOPDOWN_LABEL_LEN, m->cfg.label, "label", true) ||
	    get_str(p, H_ARCH, TD_FILE_ARCH_LEN, m->arch, "arch", false) ||
	    get_str(p, H_KERNEL, TD_FILE_KERNEL_LEN, m->kernel, "kernel", false) ||
	    get_str(p, H_HOST, TD_FILE_HOST_LEN, m->host, "host", false) ||
	    get_str(p, H_CPU, TD_FILE_CPU_LEN, m->cpu, "cpu", false) ||
	    get_str(p, H_TARGET, TD_FILE_TARGET_LEN, m->target, "target", false))
		return -1;
	if (parse_events(p, m))
		return -1;
	return groups ? parse_groups(p, m) : 0;
}

static int parse_trailer(struct parse *p, struct td_file *f, uint64_t off)
{
	struct td_file_meta *m = &f->meta;
	const uint8_t *t = p->buf + off;
	uint64_t n;

	n = get64(t + T_NR_RECORDS);
	if (n != f->nr_records)
		return fail(p, off + T_NR_RECORDS,
			    "the trailer counts %llu records, the file holds %llu",
			    (unsigned long long)n,
			    (unsigned long long)f->nr_records);
	m->stop_ns = get64(t + T_STOP);
	if (m->stop_ns < m->start_ns)
		return fail(p, off + T_STOP,
			    "stop time %llu before the start time %llu",
			    (unsigned long long)m->stop_ns,
			    (unsigned long long)m->start_ns);
	m->records_read = get64(t + T_READ);
	if (m->records_read < n)
		return fail(p, off + T_READ,
			    "%llu records read is fewer than the %llu kept",
			    (unsigned long long)m->records_read,
			    (unsigned long long)n);
	m->lost = calloc(m->nr_cpus, sizeof(*m->lost));
	if (!m->lost)
		return fail(p, off, "out of memory");
	for (uint32_t c = 0; c < m->nr_cpus; c++)
		m->lost[c] = get64(t + T_LOST + 8ull * c);
	off += T_LOST + 8ull * m->nr_cpus;
	if (get32(p->buf + off + 4))
		return fail(p, off + 4, "reserved trailer field is not zero");
	return 0;
}

/* Inlined into both callers: it runs once per record. */
static inline __attribute__((always_inline))
int check_record(struct parse *p, const struct td_file *f, uint64_t i,
		 uint64_t *last_seq)
{
	const struct td_file_meta *m = &f->meta;
	uint64_t off = f->records_offset + i * TOPDOWN_RECORD_SIZE;
	const uint8_t *r = p->buf + off;
	uint32_t cpu = get32(r + R_CPU), flags = get32(r + R_FLAGS);
	uint64_t seq = get64(r + R_SEQ), t = get64(r + R_TIME);
	uint32_t nev = m->cfg.nr_events;
	uint32_t known = REC_KNOWN_FLAGS;
	uint64_t any = 0;

	if (cpu >= m->nr_cpus)
		return fail(p, off + R_CPU, "record %llu: CPU %u, the file has %u",
			    (unsigned long long)i, cpu, m->nr_cpus);
	if (m->cfg.nr_groups) {
		/* 2.x: the deltas are those of the record's group. */
		uint32_t g = TOPDOWN_REC_GROUP(flags);

		known = REC_KNOWN_FLAGS_GROUPS;
		if (g >= m->cfg.nr_groups)
			return fail(p, off + R_FLAGS,
				    "record %llu: group %u, the file has %u",
				    (unsigned long long)i, g, m->cfg.nr_groups);
		nev = m->cfg.groups[g].nr_events;
		if ((flags & TOPDOWN_REC_ROTATED) &&
		    (flags & TOPDOWN_REC_ERROR_MASK) != (1u << nev) - 1)
			return fail(p, off + R_FLAGS,
				    "record %llu: rotated slice without the error flag of each of its group's %u events",
				    (unsigned long long)i, nev);
	}
	if (flags & ~known)
		return fail(p, off + R_FLAGS, "record %llu: unknown flags 0x%x",
			    (unsigned long long)i, flags & ~known);
	if ((flags & TOPDOWN_REC_ERROR_MASK) >> nev)
		return fail(p, off + R_FLAGS,
			    m->cfg.nr_groups ?
			    "record %llu: error flag for an event beyond the %u of its group" :
			    "record %llu: error flag for an event beyond the %u configured",
			    (unsigned long long)i, nev);
	if ((flags & TOPDOWN_REC_IDLE) &&
	    (get32(r + R_PID) || get32(r + R_TGID)))
		return fail(p, off + R_PID, "record %llu: idle task with pid %u",
			    (unsigned long long)i, get32(r + R_PID));
	if (r[R_COMM + TOPDOWN_COMM_LEN - 1])
		return fail(p, off + R_COMM + TOPDOWN_COMM_LEN - 1,
			    "record %llu: comm is not NUL-terminated",
			    (unsigned long long)i);
	if (t < m->start_ns || t > m->stop_ns)
		return fail(p, off + R_TIME,
			    "record %llu: time %llu outside the recording (%llu..%llu)",
			    (unsigned long long)i, (unsigned long long)t,
			    (unsigned long long)m->start_ns,
			    (unsigned long long)m->stop_ns);
	if (get64(r + R_DURATION) > t)
		return fail(p, off + R_DURATION,
			    "record %llu: slice of %llu ns ends at %llu",
			    (unsigned long long)i,
			    (unsigned long long)get64(r + R_DURATION),
			    (unsigned long long)t);
	/* The counts: none beyond the events, none where unreadable. Quick
	 * when there is nothing wrong; else the first offending one is
	 * reported, as a loop over them would.
	 */
	for (uint32_t e = nev; e < TOPDOWN_MAX_EVENTS; e++)
		any |= get64(r + R_DELTA + 8 * e);
	for (uint32_t e = 0; (flags & TOPDOWN_REC_ERROR_MASK) >> e; e++)
		if (flags & (1u << e))
			any |= get64(r + R_DELTA + 8 * e);
	for (uint32_t e = 0; any && e < TOPDOWN_MAX_EVENTS; e++) {
		uint64_t d = get64(r + R_DELTA + 8 * e);

		if (d && e >= nev)
			return fail(p, off + R_DELTA + 8 * e,
				    m->cfg.nr_groups ?
				    "record %llu: count for event %u, its group has %u" :
				    "record %llu: count for event %u, only %u configured",
				    (unsigned long long)i, e, nev);
		if (d && (flags & (1u << e)))
			return fail(p, off + R_DELTA + 8 * e,
				    "record %llu: count %llu for event %u marked unreadable",
				    (unsigned long long)i,
				    (unsigned long long)d, e);
	}
	/* Per CPU, records are stored in the order the CPU wrote them. */
	if (last_seq[cpu] && seq < last_seq[cpu])
		return fail(p, off + R_SEQ,
			    "record %llu: sequence %llu on CPU %u after %llu",
			    (unsigned long long)i, (unsigned long long)seq,
			    cpu, (unsigned long long)(last_seq[cpu] - 1));
	last_seq[cpu] = seq + 1;
	return 0;
}

/* Records checked, then summed, at a time (64 KiB). */
#define CRC_BLOCK	512

/* got: the CRC of everything before crc_off. */
static int check_crc(struct parse *p, uint64_t crc_off, uint32_t got)
{
	uint32_t want = get32(p->buf + crc_off);

	if (want == got)
		return 0;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* Let the fuzzer reach what comes after a valid file. */
	return 0;
#else
	return fail(p, crc_off,
		    "checksum 0x%08x does not match the content (0x%08x): the file is corrupt",
		    want, got);
#endif
}

/*
 * A file without its trailer (TD_FILE_SALVAGE): the whole records after
 * the header, up to the first one that does not check; no checksum to
 * verify. err says why reading stopped (empty: at the end of the file).
 */
static int parse_interrupted(struct parse *p, struct td_file *f,
			     td_file_block_fn fn, void *ctx)
{
	struct td_file_meta *m = &f->meta;
	uint64_t n = (p->len - m->header_size) / TOPDOWN_RECORD_SIZE;
	uint64_t good = 0, *last_seq;

	f->records_offset = m->header_size;
	f->records = p->buf + m->header_size;
	f->nr_records = n;
	m->stop_ns = UINT64_MAX;	/* unknown: no record is after it */
	m->lost = calloc(m->nr_cpus, sizeof(*m->lost));
	last_seq = calloc(m->nr_cpus, sizeof(*last_seq));
	if (!m->lost || !last_seq) {
		free(last_seq);
		return fail(p, 0, "out of memory");
	}
	p->err[0] = '\0';
	for (uint64_t i = 0; i < n; i += CRC_BLOCK) {
		uint64_t k = i, end = n - i < CRC_BLOCK ? n : i + CRC_BLOCK;

		while (k < end && !check_record(p, f, k, last_seq))
			k++;
		if (fn && k > i)
			fn(f, i, k - i, ctx);
		good = k;
		if (k < end)
			break;
	}
	free(last_seq);
	f->nr_records = good;
	m->stop_ns = m->start_ns;
	for (uint64_t i = 0; i < good; i++) {
		uint64_t t = get64(f->records + i * TOPDOWN_RECORD_SIZE + R_TIME);

		if (t > m->stop_ns)
			m->stop_ns = t;
	}
	m->records_read = good;
	f->interrupted = true;
	f->unread_bytes = p->len - m->header_size - good * TOPDOWN_RECORD_SIZE;
	if (!p->err[0] && f->unread_bytes)
		snprintf(p->err, p->errlen,
			 "offset %llu: %llu bytes, less than a record",
			 (unsigned long long)(m->header_size +
					      good * TOPDOWN_RECORD_SIZE),
			 (unsigned long long)f->unread_bytes);
	return 0;
}

static int parse_file(struct td_file *f, const uint8_t *buf, size_t len,
		      char *err, size_t errlen, td_file_block_fn fn, void *ctx,
		      unsigned int flags)
{
	struct parse p = { buf, len, err, errlen };
	struct td_file_meta *m = &f->meta;
	uint64_t body, trailer, *last_seq;
	uint32_t crc;

	memset(f, 0, sizeof(*f));
	if (parse_header(&p, m))
		return -1;
	if (m->cfg.nr_groups && !(flags & TD_FILE_GROUPS))
		return fail(&p, H_MAJOR,
			    "a recording with event groups (format %u.%u, %u groups of a pool of %u events): this command does not read groups",
			    m->version_major, m->version_minor,
			    m->cfg.nr_groups, m->cfg.nr_events);
	trailer = TD_FILE_TRAILER_FIXED + 8ull * m->nr_cpus;
	if (len < m->header_size + trailer ||
	    memcmp(buf + len - trailer, TD_FILE_END_MAGIC, 8)) {
		if (flags & TD_FILE_SALVAGE) {
			if (!parse_interrupted(&p, f, fn, ctx))
				return 0;
			td_file_free(f);
			return -1;
		}
		fail(&p, len < trailer ? 0 : len - trailer,
		     "no trailer at the end of the file (%zu bytes): the recording was interrupted or the file is truncated",
		     len);
		return TD_FILE_NO_TRAILER;
	}
	body = len - m->header_size - trailer;
	if (body % TOPDOWN_RECORD_SIZE)
		return fail(&p, m->header_size,
			    "the records take %llu bytes, not a whole number of %d-byte records (bytes inserted or removed)",
			    (unsigned long long)body, TOPDOWN_RECORD_SIZE);
	f->nr_records = body / TOPDOWN_RECORD_SIZE;
	f->records_offset = m->header_size;
	f->records = buf + m->header_size;
	if (parse_trailer(&p, f, len - trailer))
		goto err;
	last_seq = calloc(m->nr_cpus, sizeof(*last_seq));
	if (!last_seq) {
		fail(&p, 0, "out of memory");
		goto err;
	}
	/* The records in blocks, each checked and then summed while it is
	 * in the cache: one pass over the file from memory, not two.
	 */
	crc = td_file_crc32(0, buf, m->header_size);
	for (uint64_t i = 0; i < f->nr_records; i += CRC_BLOCK) {
		uint64_t n = f->nr_records - i < CRC_BLOCK ?
			     f->nr_records - i : CRC_BLOCK;

		for (uint64_t k = i; k < i + n; k++) {
			if (check_record(&p, f, k, last_seq)) {
				free(last_seq);
				goto err;
			}
		}
		crc = td_file_crc32(crc, f->records + i * TOPDOWN_RECORD_SIZE,
				    n * TOPDOWN_RECORD_SIZE);
		if (fn)
			fn(f, i, n, ctx);
	}
	free(last_seq);
	crc = td_file_crc32(crc, buf + len - trailer, trailer - 8);
	if (check_crc(&p, len - 8, crc))
		goto err;
	return 0;
err:
	td_file_free(f);
	return -1;
}

int td_file_parse(struct td_file *f, const uint8_t *buf, size_t len,
		  char *err, size_t errlen)
{
	return parse_file(f, buf, len, err, errlen, NULL, NULL,
			  TD_FILE_GROUPS) ? -1 : 0;
}

void td_file_record(const struct td_file *f, uint64_t i,
		    struct topdown_record *r)
{
	const uint8_t *p = f->records + i * TOPDOWN_RECORD_SIZE;

	r->seq = get64(p + R_SEQ);
	r->time_ns = get64(p + R_TIME);
	r->duration_ns = get64(p + R_DURATION);
	r->cgroup_id = get64(p + R_CGROUP);
	r->cpu = get32(p + R_CPU);
	r->pid = get32(p + R_PID);
	r->tgid = get32(p + R_TGID);
	r->flags = get32(p + R_FLAGS);
	memcpy(r->comm, p + R_COMM, TOPDOWN_COMM_LEN);
	for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
		r->delta[e] = get64(p + R_DELTA + 8 * e);
}

/* The file's record is the struct's layout, little-endian. */
_Static_assert(sizeof(struct topdown_record) == TOPDOWN_RECORD_SIZE &&
	       offsetof(struct topdown_record, seq) == R_SEQ &&
	       offsetof(struct topdown_record, time_ns) == R_TIME &&
	       offsetof(struct topdown_record, duration_ns) == R_DURATION &&
	       offsetof(struct topdown_record, cgroup_id) == R_CGROUP &&
	       offsetof(struct topdown_record, cpu) == R_CPU &&
	       offsetof(struct topdown_record, pid) == R_PID &&
	       offsetof(struct topdown_record, tgid) == R_TGID &&
	       offsetof(struct topdown_record, flags) == R_FLAGS &&
	       offsetof(struct topdown_record, comm) == R_COMM &&
	       offsetof(struct topdown_record, delta) == R_DELTA,
	       "struct topdown_record is not the file's record layout");

const struct topdown_record *td_file_records(const struct td_file *f)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!((uintptr_t)f->records % _Alignof(struct topdown_record)))
		return (const struct topdown_record *)f->records;
#endif
	return NULL;
}

void td_file_free(struct td_file *f)
{
	free(f->meta.lost);
	f->meta.lost = NULL;
}

/* ---- loading ---------------------------------------------------------- */

/*
 * A stream's header so far (b[0..len)): 1 a whole header that parses, 0
 * not enough of it yet, -1 not a record file's (nothing more is read: the
 * parser says why).
 */
static int stream_header(const uint8_t *b, size_t len)
{
	struct td_file_meta m;
	char why[8];
	struct parse p = { b, len, why, sizeof(why) };
	uint32_t size;

	if (memcmp(b, TD_FILE_MAGIC, len < 8 ? len : 8))
		return -1;
	if (len < TD_FILE_FIXED_HEADER)
		return 0;
	memset(&m, 0, sizeof(m));
	if (!parse_header(&p, &m))
		return 1;
	/* short of the header it announces, or wrong */
	size = get32(b + H_HEADER_SIZE);
	return len < size && size <= TD_FILE_MAX_HEADER ? 0 : -1;
}

/* What a stream may hold: half of this machine's memory, or of what the
 * process may have (RLIMIT_AS, RLIMIT_DATA).
 */
static uint64_t stream_max(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t max = pages > 0 && size > 0 ?
		       (uint64_t)pages * (uint64_t)size / 2 : UINT64_MAX;
	int res[] = { RLIMIT_AS, RLIMIT_DATA };
	struct rlimit rl;

	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		if (!getrlimit(res[i], &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur / 2 < max)
			max = rl.rlim_cur / 2;
	return max;
}

/*
 * Read a stream (stdin, a FIFO, a device): its header is checked first,
 * so that what is not a record file (/dev/zero) stops the reading at
 * once, and it may hold at most stream_max() bytes. 0 (then the parser
 * checks what was read), -1 with errno, or -2 with the limit in *max.
 */
static int read_all(int fd, struct td_file_image *img, uint64_t *max)
{
	size_t cap = 1 << 16;
	int header = 0;
	ssize_t n;

	*max = stream_max();
	img->buf = malloc(cap);
	if (!img->buf)
		return -1;
	while ((n = read(fd, img->buf + img->len, cap - img->len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		img->len += n;
		if (!header) {
			header = stream_header(img->buf, img->len);
			if (header < 0)
				return 0;
		}
		if (img->len == cap) {
			size_t ncap = cap * 2 < *max ? cap * 2 : (size_t)*max;
			uint8_t *b;

			if (ncap <= cap)
				return -2;
			b = realloc(img->buf, ncap);
			if (!b)
				return -1;
			img->buf = b;
			cap = ncap;
		}
	}
	return 0;
}

int td_file_load_flags(const char *path, struct td_file_image *img,
		       struct td_file *f, char *err, size_t errlen,
		       td_file_block_fn fn, void *ctx, unsigned int flags)
{
	bool is_stdin = !strcmp(path, "-");
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	char why[512];
	struct stat st;
	uint64_t max;
	int ret;

	memset(img, 0, sizeof(*img));
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (!is_stdin && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size) {
		/* Populated: the reader reads all of it at once. */
		void *p = mmap(NULL, st.st_size, PROT_READ,
			       MAP_PRIVATE | MAP_POPULATE, fd, 0);

		if (p != MAP_FAILED) {
			img->buf = p;
			img->len = st.st_size;
			img->mapped = true;
		}
	}
	ret = img->mapped ? 0 : read_all(fd, img, &max);
	if (ret) {
		if (ret == -2)
			snprintf(err, errlen,
				 "%s: a stream of more than %llu MiB (half of this machine's memory or of the process's limit): give a record file by name, which is mapped, not read",
				 is_stdin ? "stdin" : path,
				 (unsigned long long)(max >> 20));
		else
			snprintf(err, errlen, "reading %s: %s", path,
				 strerror(errno));
		if (!is_stdin)
			close(fd);
		td_file_unload(img, NULL);
		return -1;
	}
	if (!is_stdin)
		close(fd);
	ret = parse_file(f, img->buf, img->len, why, sizeof(why), fn, ctx,
			 flags);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, why);
		td_file_unload(img, NULL);
		return ret;
	}
	if (f->interrupted)
		snprintf(err, errlen, "%s", why);
	return 0;
}

void td_file_unload(struct td_file_image *img, struct td_file *f)
{
	if (f)
		td_file_free(f);
	if (img->mapped)
		munmap(img->buf, img->len);
	else
		free(img->buf);
	memset(img, 0, sizeof(*img));
}

/* ---- writing ---------------------------------------------------------- */

static int emit(struct td_file_writer *w, const uint8_t *p, size_t len)
{
	w->crc = td_file_crc32(w->crc, p, len);
	return fwrite(p, 1, len, w->out) == len ? 0 : -1;
}

static void put_str(uint8_t *dst, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);

	memcpy(dst, s, n);	/* the rest stays zero */
	for (size_t i = 0; i < n; i++)
		if (dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

/*
 * The events as the file stores them, in the order of the header: the
 * pool (nr_groups 0, or 2 and more groups) or, for one group, its events
 * in delta order, which is what the records of a one-group configuration
 * hold (the VER0 layout). nr_groups of the result is 0 for a 1.0 file.
 * -1 (EINVAL) for a configuration the format cannot hold.
 */
static int file_config(const struct topdown_config *in,
		       struct topdown_config *out)
{
	uint32_t n = in->nr_events, used = 0;

	*out = *in;
	if (!in->nr_groups)
		return n && n <= TOPDOWN_MAX_EVENTS ? 0 : -1;
	if (in->nr_groups > TOPDOWN_MAX_GROUPS || !n || n > TOPDOWN_MAX_POOL)
		return -1;
	for (uint32_t g = 0; g < in->nr_groups; g++) {
		const struct topdown_group *grp = &in->groups[g];

		if (!grp->nr_events || grp->nr_events > TOPDOWN_MAX_EVENTS)
			return -1;
		for (uint32_t j = 0; j < grp->nr_events; j++) {
			if (grp->events[j] >= n)
				return -1;
			for (uint32_t k = 0; k < j; k++)
				if (grp->events[k] == grp->events[j])
					return -1;
			used |= 1u << grp->events[j];
		}
	}
	if (used != (n == 32 ? ~0u : (1u << n) - 1))
		return -1;		/* a pool entry in no group */
	if (in->nr_groups == 1) {
		const struct topdown_group *grp = &in->groups[0];

		memset(out->events, 0, sizeof(out->events));
		for (uint32_t j = 0; j < grp->nr_events; j++)
			out->events[j] = *td_pool_event_c(in, grp->events[j]);
		out->nr_events = grp->nr_events;
		out->nr_groups = 0;
		out->rotate_ms = 0;
		memset(out->more_events, 0, sizeof(out->more_events));
		memset(out->groups, 0, sizeof(out->groups));
		return 0;
	}
	if (!out->rotate_ms)
		out->rotate_ms = TOPDOWN_ROTATE_DEFAULT_MS;
	if (out->rotate_ms < TOPDOWN_ROTATE_MIN_MS ||
	    out->rotate_ms > TOPDOWN_ROTATE_MAX_MS)
		return -1;
	return 0;
}

int td_file_write_header(struct td_file_writer *w, FILE *out,
			 const struct td_file_meta *m)
{
	struct topdown_config cfg;
	uint32_t nev, size;
	uint8_t *h, *gs;
	int ret;

	if (file_config(&m->cfg, &cfg) || !m->nr_cpus ||
	    m->nr_cpus > TD_FILE_MAX_CPUS) {
		errno = EINVAL;
		return -1;
	}
	nev = cfg.nr_events;
	size = TD_FILE_FIXED_HEADER + nev * TD_FILE_EVENT_SIZE;
	if (cfg.nr_groups)
		size += TD_FILE_GROUPS_FIXED + cfg.nr_groups * TD_FILE_GROUP_SIZE;
	h = calloc(1, size);
	if (!h)
		return -1;
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->nr_cpus = m->nr_cpus;
	memcpy(h + H_MAGIC, TD_FILE_MAGIC, 8);
	put16(h + H_MAJOR, cfg.nr_groups ? TD_FILE_GROUPS_MAJOR :
		TD_FILE_VERSION_MAJOR);
	put16(h + H_MINOR, cfg.nr_groups ? TD_FILE_GROUPS_MINOR :
		TD_FILE_VERSION_MINOR);
	put32(h + H_BYTE_ORDER, TD_FILE_BYTE_ORDER);
	put32(h + H_HEADER_SIZE, size);
	put32(h + H_RECORD_SIZE, TOPDOWN_RECORD_SIZE);
	put32(h + H_NR_CPUS, m->nr_cpus);
	put32(h + H_NR_EVENTS, nev);
	put64(h + H_START, m->start_ns);
	put64(h + H_START_REAL, m->start_realtime_ns);
	put32(h + H_FLAGS, cfg.flags);
	put32(h + H_RING_SIZE, cfg.ring_size);
	put32(h + H_SLOTS, m->slots);
	put_str(h + H_LABEL, TOPDOWN_LABEL_LEN, cfg.label);
	put_str(h + H_ARCH, TD_FILE_ARCH_LEN, m->arch);
	put_str(h + H_KERNEL, TD_FILE_KERNEL_LEN, m->kernel);
	put_str(h + H_HOST, TD_FILE_HOST_LEN, m->host);
	put_str(h + H_CPU, TD_FILE_CPU_LEN, m->cpu);
	put_str(h + H_TARGET, TD_FILE_TARGET_LEN, m->target);
	for (uint32_t i = 0; i < nev; i++) {
		const struct topdown_event *ev = td_pool_event_c(&cfg, i);
		uint8_t *e = h + H_EVENTS + i * TD_FILE_EVENT_SIZE;

		put32(e + E_TYPE, ev->type);
		put32(e + E_FLAGS, ev->flags);
		put64(e + E_CONFIG, ev->config);
		put64(e + E_CONFIG1, ev->config1);
		put64(e + E_CONFIG2, ev->config2);
		put_str(e + E_NAME, TOPDOWN_NAME_LEN, ev->name);
	}
	gs = h + H_EVENTS + nev * TD_FILE_EVENT_SIZE;
	if (cfg.nr_groups) {
		put32(gs + G_NR_GROUPS, cfg.nr_groups);
		put32(gs + G_ROTATE_MS, cfg.rotate_ms);
		for (uint32_t g = 0; g < cfg.nr_groups; g++) {
			uint8_t *e = gs + G_GROUPS + g * TD_FILE_GROUP_SIZE;

			put32(e + GE_NR_EVENTS, cfg.groups[g].nr_events);
			for (uint32_t j = 0; j < cfg.groups[g].nr_events; j++)
				e[GE_EVENTS + j] = cfg.groups[g].events[j];
		}
	}
	ret = emit(w, h, size);
	free(h);
	return ret;
}

int td_file_write_record(struct td_file_writer *w,
			 const struct topdown_record *r)
{
	uint8_t b[TOPDOWN_RECORD_SIZE];

	put64(b + R_SEQ, r->seq);
	put64(b + R_TIME, r->time_ns);
	put64(b + R_DURATION, r->duration_ns);
	put64(b + R_CGROUP, r->cgroup_id);
	put32(b + R_CPU, r->cpu);
	put32(b + R_PID, r->pid);
	put32(b + R_TGID, r->tgid);
	put32(b + R_FLAGS, r->flags);
	memcpy(b + R_COMM, r->comm, TOPDOWN_COMM_LEN);
	for (int e = 0; e < TOPDOWN_MAX_EVENTS; e++)
		put64(b + R_DELTA + 8 * e, r->delta[e]);
	w->nr_records++;
	return emit(w, b, sizeof(b));
}

int td_file_write_trailer(struct td_file_writer *w,
			  const struct td_file_meta *m)
{
	size_t size = TD_FILE_TRAILER_FIXED + 8ull * w->nr_cpus;
	uint8_t *t = calloc(1, size);
	int ret;

	if (!t)
		return -1;
	memcpy(t + T_MAGIC, TD_FILE_END_MAGIC, 8);
	put64(t + T_NR_RECORDS, w->nr_records);
	put64(t + T_STOP, m->stop_ns);
	put64(t + T_READ, m->records_read);
	for (uint32_t c = 0; c < w->nr_cpus; c++)
		put64(t + T_LOST + 8ull * c, m->lost ? m->lost[c] : 0);
	/* The checksum covers everything before it. */
	ret = emit(w, t, size - 8);
	put32(t + size - 8, w->crc);
	if (!ret && fwrite(t + size - 8, 1, 8, w->out) != 8)
		ret = -1;
	free(t);
	if (!ret && fflush(w->out))
		ret = -1;
	return ret;
}
