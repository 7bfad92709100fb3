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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static uint8_t *write_image(size_t *len)
{
	struct td_file_writer w;
	struct td_file_meta m;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	fill_meta(&m);
	if (!f || td_file_write_header(&w, f, &m))
		return NULL;
	for (int i = 0; i < TEST_RECS; i++)
		if (td_file_write_record(&w, &recs[i]))
			return NULL;
	if (td_file_write_trailer(&w, &m))
		return NULL;
	fclose(f);
	return (uint8_t *)buf;
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
	return tap_done();
}
