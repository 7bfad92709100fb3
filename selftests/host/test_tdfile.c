// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the record file code (user/file/tdfile.c): a round trip
 * through the writer and the parser, and two exhaustive properties of the
 * parser: every truncation and every single-byte change of a valid file is
 * refused with an error that names an offset inside the file, and none of
 * them crashes (run under ASan/UBSan by the fuzz corpus test as well).
 * Prints TAP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "file/tdfile.h"

#define TEST_CPUS	3
#define TEST_RECS	40

static struct topdown_record recs[TEST_RECS];
static uint64_t lost[TEST_CPUS] = { 0, 7, 1ull << 40 };

static void fill_meta(struct td_file_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->nr_cpus = TEST_CPUS;
	m->start_ns = 1000000000ull;
	m->start_realtime_ns = 1700000000ull * 1000000000ull;
	m->stop_ns = 9000000000ull;
	m->records_read = 1234;
	m->slots = 5;
	m->lost = lost;
	m->cfg.nr_events = 3;
	m->cfg.flags = TOPDOWN_OVERFLOW_OVERWRITE;
	m->cfg.ring_size = 65536;
	snprintf(m->cfg.label, sizeof(m->cfg.label), "set=generic");
	for (int i = 0; i < 3; i++) {
		m->cfg.events[i].type = 4 + i;
		m->cfg.events[i].flags = i == 2 ? TOPDOWN_EVENT_EXCLUDE_USER : 0;
		m->cfg.events[i].config = 0x1122334455667788ull + i;
		m->cfg.events[i].config1 = i;
		m->cfg.events[i].config2 = ~0ull - i;
		snprintf(m->cfg.events[i].name, TOPDOWN_NAME_LEN, "event%d", i);
	}
	snprintf(m->arch, sizeof(m->arch), "aarch64");
	snprintf(m->kernel, sizeof(m->kernel), "6.1.0-test");
	snprintf(m->host, sizeof(m->host), "unit");
	snprintf(m->cpu, sizeof(m->cpu), "test cpu");
	snprintf(m->target, sizeof(m->target), "command: true");
	for (int i = 0; i < TEST_RECS; i++) {
		struct topdown_record *r = &recs[i];

		memset(r, 0, sizeof(*r));
		r->cpu = i % TEST_CPUS;
		r->seq = 10 + i;
		r->time_ns = 2000000000ull + i * 1000000ull;
		r->duration_ns = 500000 + i;
		r->cgroup_id = 77 + i % 2;
		r->pid = i % 7 ? 100 + i % 5 : 0;
		r->tgid = r->pid ? 100 : 0;
		r->flags = r->pid ? (i % 2 ? TOPDOWN_REC_PREEMPTED : 0) :
			   TOPDOWN_REC_IDLE;
		if (i == 13)	/* an unreadable counter */
			r->flags |= 1u << 1;
		snprintf(r->comm, sizeof(r->comm), "task-%d", i % 5);
		for (int e = 0; e < 3; e++)
			if (!(r->flags & (1u << e)))
				r->delta[e] = (uint64_t)(i + 1) << (8 * e + 20);
	}
}

/* A whole file of the writer's, in memory. */
static uint8_t *write_file(const struct td_file_meta *m,
			   const struct topdown_record *r, int nr, size_t *len)
{
	struct td_file_writer w;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || td_file_write_header(&w, f, m))
		return NULL;
	for (int i = 0; i < nr; i++)
		if (td_file_write_record(&w, &r[i]))
			return NULL;
	if (td_file_write_trailer(&w, m))
		return NULL;
	fclose(f);
	return (uint8_t *)buf;
}

static uint8_t *write_image(size_t *len)
{
	struct td_file_meta m;

	fill_meta(&m);
	return write_file(&m, recs, TEST_RECS, len);
}

static void test_round_trip(const uint8_t *img, size_t len)
{
	struct td_file_meta want;
	struct td_file f;
	char err[512] = "";
	bool same = true;

	fill_meta(&want);
	ok(len == 704 + 3 * 64 + TEST_RECS * 128 + 40 + 8 * TEST_CPUS,
	   "file size is header + records + trailer (%zu)", len);
	if (!ok(!td_file_parse(&f, img, len, err, sizeof(err)),
		"the writer's file parses (%s)", err))
		return;
	ok(f.meta.version_major == 1 && f.meta.version_minor == 0 &&
	   f.meta.header_size == 704 + 3 * 64, "version 1.0, header size");
	ok(f.meta.nr_cpus == TEST_CPUS && f.meta.start_ns == want.start_ns &&
	   f.meta.stop_ns == want.stop_ns &&
	   f.meta.start_realtime_ns == want.start_realtime_ns &&
	   f.meta.records_read == 1234 && f.meta.slots == 5,
	   "CPUs, times, records read, slots");
	ok(!strcmp(f.meta.cfg.label, "set=generic") &&
	   f.meta.cfg.nr_events == 3 && f.meta.cfg.ring_size == 65536 &&
	   f.meta.cfg.flags == TOPDOWN_OVERFLOW_OVERWRITE,
	   "label and configuration");
	for (int i = 0; i < 3; i++) {
		const struct topdown_event *a = &f.meta.cfg.events[i];
		const struct topdown_event *b = &want.cfg.events[i];

		same &= a->type == b->type && a->flags == b->flags &&
			a->config == b->config && a->config1 == b->config1 &&
			a->config2 == b->config2 && !strcmp(a->name, b->name);
	}
	ok(same, "events: type, flags, configs, names");
	ok(!strcmp(f.meta.arch, "aarch64") && !strcmp(f.meta.kernel, "6.1.0-test") &&
	   !strcmp(f.meta.host, "unit") && !strcmp(f.meta.cpu, "test cpu") &&
	   !strcmp(f.meta.target, "command: true"), "text fields");
	ok(f.meta.lost[0] == 0 && f.meta.lost[1] == 7 &&
	   f.meta.lost[2] == 1ull << 40, "per-CPU lost counts");
	same = f.nr_records == TEST_RECS;
	for (uint64_t i = 0; same && i < f.nr_records; i++) {
		struct topdown_record r;

		td_file_record(&f, i, &r);
		same = !memcmp(&r, &recs[i], sizeof(r));
	}
	ok(same, "%d records come back bit for bit", TEST_RECS);
	ok(img[12] == 0x04 && img[13] == 0x03 && img[32] == 0x00 &&
	   img[33] == 0xca && img[34] == 0x9a && img[35] == 0x3b,
	   "integers are little-endian on disk (byte order, start_ns)");
	td_file_free(&f);
}

/* The error names an offset within the file: "offset N: ...". */
static bool offset_error(const char *err, size_t len)
{
	unsigned long long off;

	return sscanf(err, "offset %llu: ", &off) == 1 && off <= len &&
	       strlen(err) > 20;
}

static void test_truncations(const uint8_t *img, size_t len)
{
	size_t bad = 0, first_bad = 0;
	char err[512];
	struct td_file f;

	for (size_t l = 0; l < len; l++) {
		uint8_t *copy = malloc(l ? l : 1);	/* exact size for ASan */

		memcpy(copy, img, l);
		if (!td_file_parse(&f, copy, l, err, sizeof(err)) ||
		    !offset_error(err, l)) {
			if (!bad++)
				first_bad = l;
		}
		free(copy);
	}
	ok(!bad, "all %zu truncations refused with an offset (%zu wrong, first at %zu)",
	   len, bad, first_bad);
}

static void test_byte_changes(const uint8_t *img, size_t len)
{
	static const uint8_t xors[] = { 0x01, 0x80, 0xff };
	size_t bad = 0, first_bad = 0, checksum = 0;
	uint8_t *copy = malloc(len);
	char err[512];
	struct td_file f;

	for (size_t i = 0; i < len; i++) {
		for (size_t x = 0; x < sizeof(xors); x++) {
			memcpy(copy, img, len);
			copy[i] ^= xors[x];
			if (!td_file_parse(&f, copy, len, err, sizeof(err)) ||
			    !offset_error(err, len)) {
				if (!bad++)
					first_bad = i;
			} else if (strstr(err, "checksum")) {
				checksum++;
			}
		}
	}
	free(copy);
	ok(!bad, "all %zu single-byte changes refused with an offset (%zu wrong, first at %zu)",
	   3 * len, bad, first_bad);
	ok(checksum > 0 && checksum < 3 * len,
	   "field checks catch some, the checksum the rest (%zu by checksum)",
	   checksum);
}

static void test_empty_and_names(void)
{
	struct td_file_writer w;
	struct td_file_meta m;
	struct td_file f;
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	fill_meta(&m);
	/* Control characters in text fields are replaced, not written. */
	snprintf(m.host, sizeof(m.host), "bad\nhost");
	td_file_write_header(&w, out, &m);
	td_file_write_trailer(&w, &m);
	fclose(out);
	ok(!td_file_parse(&f, (uint8_t *)buf, len, err, sizeof(err)) &&
	   f.nr_records == 0 && !strcmp(f.meta.host, "bad?host"),
	   "a file without records parses; control characters become '?' (%s)",
	   err);
	td_file_free(&f);
	free(buf);
}

/* Bit by bit, from the polynomial: what the fast ways must match. */
static uint32_t crc_ref(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

/* Every length and alignment up to a few folding blocks, continued at
 * every split, and the known check value of "123456789".
 */
static void test_crc(void)
{
	static uint8_t buf[1024 + 16];
	uint64_t x = 0x2545f4914f6cdd1dull;
	int bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	for (size_t len = 0; len <= 1024 && bad < 5; len++) {
		size_t off = len % 16, split = (len * 7) % (len + 1);
		uint32_t want = crc_ref(0, buf + off, len);

		if (td_file_crc32(0, buf + off, len) != want ||
		    td_file_crc32(td_file_crc32(0, buf + off, split),
				  buf + off + split, len - split) != want) {
			printf("# crc of %zu bytes at +%zu: 0x%08x, want 0x%08x\n",
			       len, off, td_file_crc32(0, buf + off, len), want);
			bad++;
		}
	}
	ok(!bad && td_file_crc32(0, "123456789", 9) == 0xcbf43926u &&
	   crc_ref(0, (const uint8_t *)"123456789", 9) == 0xcbf43926u,
	   "CRC-32 of every length 0..1024, split anywhere, as bit by bit");
}

/* ---- format 2.0: event groups ------------------------------------------ */

#define G_POOL	10
#define G_RECS	30

static const uint8_t g_events[3][8] = {
	{ 0, 1, 2 }, { 0, 3, 4, 5, 6, 7, 8, 9 }, { 9, 0 },
};

static const uint32_t g_nr[3] = { 3, 8, 2 };
static struct topdown_record grecs[G_RECS];

static void fill_meta_groups(struct td_file_meta *m)
{
	fill_meta(m);
	memset(&m->cfg, 0, sizeof(m->cfg));
	m->cfg.size = sizeof(m->cfg);
	m->cfg.nr_events = G_POOL;
	m->cfg.ring_size = 65536;
	snprintf(m->cfg.label, sizeof(m->cfg.label), "set=generic level=2");
	for (int i = 0; i < G_POOL; i++) {
		struct topdown_event *ev = td_pool_event(&m->cfg, i);

		ev->type = 4;
		ev->config = 0x100 + i;
		ev->config1 = i * 3;
		snprintf(ev->name, TOPDOWN_NAME_LEN, "pool%d", i);
	}
	m->cfg.nr_groups = 3;
	m->cfg.rotate_ms = 0;		/* the default: written as 20 */
	for (int g = 0; g < 3; g++) {
		m->cfg.groups[g].nr_events = g_nr[g];
		memcpy(m->cfg.groups[g].events, g_events[g], 8);
	}
	for (int i = 0; i < G_RECS; i++) {
		struct topdown_record *r = &grecs[i];
		uint32_t g = (i / 4) % 3;

		memset(r, 0, sizeof(*r));
		r->cpu = i % 2;
		r->seq = 1 + i;
		r->time_ns = 2000000000ull + i * 1000000ull;
		r->duration_ns = 400000 + i;
		r->pid = 200 + i % 3;
		r->tgid = 200;
		snprintf(r->comm, sizeof(r->comm), "g-%d", i % 3);
		r->flags = g << TOPDOWN_REC_GROUP_SHIFT;
		if (i % 4 == 0 && i) {
			r->flags |= TOPDOWN_REC_ROTATED | ((1u << g_nr[g]) - 1);
			continue;
		}
		if (i == 7)
			r->flags |= 1u << 1;
		for (uint32_t j = 0; j < g_nr[g]; j++)
			if (!(r->flags & (1u << j)))
				r->delta[j] = 1000ull * (i + 1) + j;
	}
}

static void test_groups_round_trip(const uint8_t *img, size_t len)
{
	struct td_file_meta want;
	struct td_file f;
	char err[512] = "";
	bool same = true;
	size_t hs = 712 + G_POOL * 64 + 3 * 16;

	fill_meta_groups(&want);
	if (!ok(!td_file_parse(&f, img, len, err, sizeof(err)),
		"2.0: the writer's file with groups parses (%s)", err))
		return;
	ok(f.meta.version_major == 2 && f.meta.version_minor == 0 &&
	   f.meta.header_size == hs && len == hs + G_RECS * 128 + 40 + 8 * 3,
	   "2.0: version 2.0, header 712 + 64 * pool + 16 * groups (%u)",
	   f.meta.header_size);
	ok(f.meta.cfg.nr_events == G_POOL && f.meta.cfg.nr_groups == 3 &&
	   f.meta.cfg.rotate_ms == TOPDOWN_ROTATE_DEFAULT_MS,
	   "2.0: pool of %d, 3 groups, rotate_ms 0 stored as the default (%u)",
	   G_POOL, f.meta.cfg.rotate_ms);
	for (int i = 0; i < G_POOL; i++) {
		const struct topdown_event *a = td_pool_event_c(&f.meta.cfg, i);
		const struct topdown_event *b = td_pool_event_c(&want.cfg, i);

		same &= a->type == b->type && a->config == b->config &&
			a->config1 == b->config1 && !strcmp(a->name, b->name);
	}
	for (int g = 0; g < 3; g++)
		same &= f.meta.cfg.groups[g].nr_events == g_nr[g] &&
			!memcmp(f.meta.cfg.groups[g].events, g_events[g], 8);
	ok(same, "2.0: the pool (past 8: more_events) and the groups come back");
	same = f.nr_records == G_RECS;
	for (uint64_t i = 0; same && i < f.nr_records; i++) {
		struct topdown_record r;

		td_file_record(&f, i, &r);
		same = !memcmp(&r, &grecs[i], sizeof(r));
	}
	ok(same, "2.0: %d records (groups, rotated, errors) bit for bit",
	   G_RECS);
	/* The groups section at 704 + 64 * pool: nr_groups, rotate_ms, then
	 * group 1's nr_events and its pool indexes.
	 */
	ok(img[704 + 640] == 3 && img[704 + 644] == 20 &&
	   img[704 + 648 + 16] == 8 && img[704 + 648 + 16 + 8 + 7] == 9 &&
	   img[8] == 2 && img[28] == G_POOL,
	   "2.0: bytes of the groups section where file-format.rst puts them");
	td_file_free(&f);
}

/* The example of file-format.rst, "Groups": its bytes. */
static void test_groups_doc_example(void)
{
	static const uint8_t want[40] = {
		2, 0, 0, 0, 0x14, 0, 0, 0,
		2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
		2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0,
	};
	struct td_file_meta m;
	size_t len = 0;
	uint8_t *img;

	fill_meta(&m);		/* cycles, instructions, branch-misses */
	m.cfg.nr_groups = 2;
	m.cfg.rotate_ms = 20;
	m.cfg.groups[0] = (struct topdown_group){ 2, 0, { 0, 1 } };
	m.cfg.groups[1] = (struct topdown_group){ 2, 0, { 0, 2 } };
	img = write_file(&m, NULL, 0, &len);
	ok(img && img[16] == 0xa8 && img[17] == 0x03 && img[28] == 3 &&
	   !memcmp(img + 896, want, sizeof(want)),
	   "2.0: file-format.rst's example, byte for byte");
	free(img);
}

/* One group is the VER0 layout: a 1.0 file, the group's events in delta
 * order, which every 1.x reader reads.
 */
static void test_one_group_is_v1(void)
{
	struct td_file_meta m;
	struct td_file f;
	char err[512] = "";
	size_t len = 0;
	uint8_t *img;

	fill_meta(&m);
	m.cfg.nr_groups = 1;
	m.cfg.groups[0] = (struct topdown_group){ 3, 0, { 2, 0, 1 } };
	img = write_file(&m, recs, TEST_RECS, &len);
	if (!ok(img && !td_file_parse(&f, img, len, err, sizeof(err)),
		"one group: the file parses (%s)", err))
		return;
	ok(f.meta.version_major == 1 && f.meta.cfg.nr_groups == 0 &&
	   f.meta.cfg.nr_events == 3 &&
	   !strcmp(f.meta.cfg.events[0].name, "event2") &&
	   !strcmp(f.meta.cfg.events[1].name, "event0") &&
	   !strcmp(f.meta.cfg.events[2].name, "event1") &&
	   f.meta.header_size == 704 + 3 * 64,
	   "one group: format 1.0, the events in the group's order");
	td_file_free(&f);
	free(img);
}

/* Configurations the format cannot hold: EINVAL, nothing written. */
static const char *const writer_bad[] = {
	"9 groups", "a group of 0 events", "a group of 9 events",
	"a pool index past the pool", "a pool entry twice in a group",
	"a pool entry in no group", "a pool of 33", "rotate_ms 60001",
};

static void break_config(struct topdown_config *c, int i)
{
	switch (i) {
	case 0:
		c->nr_groups = 9;
		break;
	case 1:
		c->groups[2].nr_events = 0;
		break;
	case 2:
		c->groups[1].nr_events = 9;
		break;
	case 3:
		c->groups[2].events[0] = G_POOL;
		break;
	case 4:
		c->groups[0].events[2] = 1;
		break;
	case 5:
		c->groups[0].nr_events = 2;
		break;
	case 6:
		c->nr_events = 33;
		break;
	case 7:
		c->rotate_ms = 60001;
		break;
	}
}

static void test_groups_writer_refuses(void)
{
	struct td_file_writer w;
	int wrong = 0;

	for (size_t i = 0; i < sizeof(writer_bad) / sizeof(writer_bad[0]); i++) {
		struct td_file_meta m;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		fill_meta_groups(&m);
		break_config(&m.cfg, i);
		errno = 0;
		if (!td_file_write_header(&w, f, &m) || errno != EINVAL) {
			printf("# writer accepted: %s\n", writer_bad[i]);
			wrong++;
		}
		fclose(f);
		ok(len == 0, "writer: %s refused before writing", writer_bad[i]);
		free(buf);
	}
	ok(!wrong, "writer: every malformed group configuration is EINVAL");
}

/* The commands that do not read groups get a clear refusal. */
static void test_groups_flag(const uint8_t *img, size_t len)
{
	char path[] = "/tmp/td-groups-XXXXXX", err[600] = "";
	struct td_file_image im;
	struct td_file f;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, img, len) != (ssize_t)len) {
		ok(false, "temporary file");
		return;
	}
	close(fd);
	ok(td_file_load_flags(path, &im, &f, err, sizeof(err), NULL, NULL, 0) &&
	   strstr(err, "offset 8: a recording with event groups (format 2.0, 3 groups"),
	   "a loader without TD_FILE_GROUPS refuses 2.0 at offset 8 (%s)", err);
	ok(!td_file_load_flags(path, &im, &f, err, sizeof(err), NULL, NULL,
			       TD_FILE_GROUPS) && f.meta.cfg.nr_groups == 3,
	   "with TD_FILE_GROUPS it reads it");
	td_file_unload(&im, &f);
	unlink(path);
}

int main(void)
{
	size_t len = 0;
	uint8_t *img;

	setvbuf(stdout, NULL, _IOLBF, 0);
	img = write_image(&len);
	if (!ok(img, "the writer writes to a memory stream"))
		return 1;
	test_round_trip(img, len);
	test_truncations(img, len);
	test_byte_changes(img, len);
	test_empty_and_names();
	test_crc();
	free(img);

	{
		struct td_file_meta gm;

		fill_meta_groups(&gm);
		img = write_file(&gm, grecs, G_RECS, &len);
	}
	if (!ok(img, "2.0: the writer writes a configuration with groups"))
		return 1;
	test_groups_round_trip(img, len);
	test_truncations(img, len);
	test_byte_changes(img, len);
	test_groups_flag(img, len);
	free(img);
	test_groups_doc_example();
	test_one_group_is_v1();
	test_groups_writer_refuses();
	return tap_done();
}
