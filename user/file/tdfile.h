/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record file of `tdctl record` (read by report, dump -i, top -i):
 * a header with everything needed to decode the records on another
 * machine, the raw records, and a trailer with what is only known at the
 * end. Every integer is little-endian on disk, whatever the machine.
 * Documentation/file-format.rst is the specification; this is the only
 * code that reads or writes the format.
 *
 * Readers validate every field before use: td_file_parse() either accepts
 * a whole file or names the byte offset and what is wrong there.
 */
#ifndef TDCTL_TDFILE_H
#define TDCTL_TDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/topdown.h>

#include "evset/evset.h"

#define TD_FILE_MAGIC		"\x89TDR\r\n\x1a\n"
#define TD_FILE_END_MAGIC	"\x89TDE\r\n\x1a\n"
/* Version 1.0: one group of up to 8 events. 2.0: event groups (a pool
 * of up to 32 events, up to 8 groups, rotation); a new major because the
 * records change meaning (delta[j] is the j-th event of the record's
 * group), which a 1.x reader must refuse rather than misread.
 */
#define TD_FILE_VERSION_MAJOR	1
#define TD_FILE_VERSION_MINOR	0
#define TD_FILE_GROUPS_MAJOR	2
#define TD_FILE_GROUPS_MINOR	0
#define TD_FILE_BYTE_ORDER	0x01020304u
#define TD_FILE_FIXED_HEADER	704	/* header bytes before the events */
#define TD_FILE_EVENT_SIZE	64
#define TD_FILE_GROUPS_FIXED	8	/* 2.0: nr_groups, rotate_ms */
#define TD_FILE_GROUP_SIZE	16	/* 2.0: one struct topdown_group */
#define TD_FILE_TRAILER_FIXED	40	/* trailer bytes besides lost[] */
#define TD_FILE_MAX_CPUS	8192
#define TD_FILE_MAX_HEADER	(1u << 20)
/* The record file that record writes and report, timeline read by default. */
#define TD_DEFAULT_FILE		"tdctl.data"

#define TD_FILE_ARCH_LEN	64
#define TD_FILE_KERNEL_LEN	64
#define TD_FILE_HOST_LEN	64
#define TD_FILE_CPU_LEN		128
#define TD_FILE_TARGET_LEN	256

/* Everything but the records. */
struct td_file_meta {
	uint16_t version_major, version_minor;	/* set by the parser */
	uint32_t header_size;			/* set by the parser */
	uint32_t nr_cpus;
	uint64_t start_ns;		/* CLOCK_MONOTONIC of the recorder */
	uint64_t start_realtime_ns;	/* wall clock at start */
	uint64_t stop_ns;		/* trailer */
	uint64_t records_read;		/* trailer: read, before selection */
	uint32_t slots;			/* slot width of the set, 0: none */
	/* label, nr_events, events[] (name, type, flags, config*), flags
	 * and ring_size; cpus_ptr/cpus_size are not stored (0). Version 2.0
	 * (groups): nr_events counts the pool (td_pool_event()), nr_groups,
	 * groups[] and rotate_ms are set; 1.0: nr_groups is 0.
	 */
	struct topdown_config cfg;
	char arch[TD_FILE_ARCH_LEN];
	char kernel[TD_FILE_KERNEL_LEN];
	char host[TD_FILE_HOST_LEN];
	char cpu[TD_FILE_CPU_LEN];
	char target[TD_FILE_TARGET_LEN];	/* what was recorded */
	uint64_t *lost;			/* nr_cpus entries (trailer) */
};

/* A parsed file: points into the caller's buffer, which must outlive it. */
struct td_file {
	struct td_file_meta meta;
	uint64_t nr_records;
	const uint8_t *records;		/* nr_records * 128 bytes */
	uint64_t records_offset;	/* file offset of the first record */
	/* TD_FILE_SALVAGE read a file without its trailer: records up to
	 * the last good one; unread_bytes after them were not used.
	 */
	bool interrupted;
	uint64_t unread_bytes;
};

/* Check a whole file image, of any version this tdctl knows (1.x, and
 * 2.x with groups). 0, or -1 with "offset N: what" in err.
 * f->meta.lost is allocated (td_file_free()).
 */
int td_file_parse(struct td_file *f, const uint8_t *buf, size_t len,
		  char *err, size_t errlen);
/* Record i of a parsed file, converted to the host's byte order. */
void td_file_record(const struct td_file *f, uint64_t i,
		    struct topdown_record *r);
/* The records as an array of the host's struct, without copying: on a
 * little-endian host (the file's byte order) with the records aligned;
 * NULL otherwise (then use td_file_record()).
 */
const struct topdown_record *td_file_records(const struct td_file *f);
void td_file_free(struct td_file *f);
/* CRC-32 (IEEE, zlib's) of buf[0..len), continued from crc (0 to start). */
uint32_t td_file_crc32(uint32_t crc, const void *buf, size_t len);

/* A whole file ("-" for stdin), mapped or read. */
struct td_file_image {
	uint8_t *buf;
	size_t len;
	bool mapped;
};

/*
 * Map or read a whole file and parse it: 0, or -1 with the message, which
 * names the file and the offset, in err. fn (NULL: none) is called as
 * fn(f, first, n, ctx) for each block of records as soon as it has been
 * checked, in file order, while it is still in the cache: a reader that
 * needs one pass (report) reads the file from memory once. The file as a
 * whole is only valid if this returns 0: what fn computed must be thrown
 * away otherwise (a later record or the checksum is bad).
 */
typedef void (*td_file_block_fn)(const struct td_file *f, uint64_t first,
				 uint64_t n, void *ctx);
/*
 * Flags: TD_FILE_SALVAGE: a file whose trailer is missing
 * (an interrupted recording, a truncated file) is read up to its last
 * good record instead of refused: f->interrupted is then set, the stop
 * time is the last record's, the lost counts are unknown (0), and err
 * says where and why reading stopped. Without it, such a file returns
 * TD_FILE_NO_TRAILER (a header that does not parse is refused either way).
 */
#define TD_FILE_SALVAGE		(1u << 0)
/* TD_FILE_GROUPS: the caller reads recordings with event groups (format
 * 2.x, cfg.nr_groups > 0). Without it such a file is refused with a
 * message that says so: a reader that sums delta[j] across records
 * would add up different events.
 */
#define TD_FILE_GROUPS		(1u << 1)
#define TD_FILE_NO_TRAILER	(-2)
int td_file_load_flags(const char *path, struct td_file_image *img,
		       struct td_file *f, char *err, size_t errlen,
		       td_file_block_fn fn, void *ctx, unsigned int flags);
void td_file_unload(struct td_file_image *img, struct td_file *f);

/* Writing: header first, records as they come, trailer at the end; the
 * output need not be seekable. Errors: -1 with errno set (EINVAL: a
 * configuration the format cannot hold). The version follows the
 * configuration: without groups (nr_groups 0) or with one group, 1.0
 * (one group as the events of its records, in delta order), so that
 * every reader of 1.0 reads it; with 2 or more groups, 2.0.
 */
struct td_file_writer {
	FILE *out;
	uint32_t crc;
	uint32_t nr_cpus;
	uint64_t nr_records;
};

int td_file_write_header(struct td_file_writer *w, FILE *out,
			 const struct td_file_meta *m);
int td_file_write_record(struct td_file_writer *w,
			 const struct topdown_record *r);
/* m->stop_ns, m->records_read and m->lost[] go into the trailer. */
int td_file_write_trailer(struct td_file_writer *w,
			  const struct td_file_meta *m);

#endif
