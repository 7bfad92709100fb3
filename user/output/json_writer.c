// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/topdown.h>

#include "output/fmt.h"
#include "output/json_writer.h"
#include "output/text.h"

#define JSONW_MAX_DEPTH 64

struct json_writer {
	FILE *out;
	int depth;
	bool pretty;
	/* Per level: whether a value was already written (comma needed). */
	bool has_item[JSONW_MAX_DEPTH];
	bool after_name;
	bool stream;	/* a pretty stream's array is open */
};

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (self)
		self->out = f;
	return self;
}

void jsonw_destroy(json_writer_t **self)
{
	if (!*self)
		return;
	if ((*self)->has_item[0])
		fputc('\n', (*self)->out);
	fflush((*self)->out);
	free(*self);
	*self = NULL;
}

void jsonw_pretty(json_writer_t *self, bool on)
{
	self->pretty = on;
}

int jsonw_depth(const json_writer_t *self)
{
	return self->depth;
}

void jsonw_flush(json_writer_t *self)
{
	fflush(self->out);
}

void jsonw_newline(json_writer_t *self)
{
	if (self->depth == 0 && self->has_item[0]) {
		fputc('\n', self->out);
		self->has_item[0] = false;
	}
	fflush(self->out);
}

void jsonw_stream_begin(json_writer_t *self)
{
	if (!self->pretty || self->stream)
		return;
	jsonw_start_array(self);
	self->stream = true;
}

void jsonw_stream_end(json_writer_t *self)
{
	if (!self->stream)
		return;
	self->stream = false;
	jsonw_end_array(self);
	jsonw_newline(self);
}

static void indent(json_writer_t *self)
{
	fputc('\n', self->out);
	for (int i = 0; i < self->depth; i++)
		fputs("    ", self->out);
}

/* Separator before a new value or name at the current level. */
static void begin_item(json_writer_t *self)
{
	if (self->after_name) {
		self->after_name = false;
		return;
	}
	if (self->depth > 0 && self->has_item[self->depth])
		fputc(',', self->out);
	if (self->pretty && self->depth > 0)
		indent(self);
	else if (self->depth == 0 && self->has_item[0])
		fputc('\n', self->out);	/* a stream of documents */
	self->has_item[self->depth] = true;
}

static void open_level(json_writer_t *self, char c)
{
	begin_item(self);
	fputc(c, self->out);
	if (self->depth < JSONW_MAX_DEPTH - 1)
		self->depth++;
	self->has_item[self->depth] = false;
}

static void close_level(json_writer_t *self, char c)
{
	bool had = self->has_item[self->depth];

	if (self->depth > 0)
		self->depth--;
	if (self->pretty && had)
		indent(self);
	fputc(c, self->out);
}

void jsonw_start_object(json_writer_t *self)
{
	open_level(self, '{');
}

void jsonw_end_object(json_writer_t *self)
{
	close_level(self, '}');
}

void jsonw_start_array(json_writer_t *self)
{
	open_level(self, '[');
}

void jsonw_end_array(json_writer_t *self)
{
	close_level(self, ']');
}

size_t jsonw_escape(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *p = dst;
	int k;

	*p++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
		case '\\':
			*p++ = '\\';
			*p++ = (char)c;
			break;
		case '\n':
			*p++ = '\\';
			*p++ = 'n';
			break;
		case '\t':
			*p++ = '\\';
			*p++ = 't';
			break;
		case '\r':
			*p++ = '\\';
			*p++ = 'r';
			break;
		default:
			/* Valid UTF-8 passes; control bytes and bytes that
			 * do not form UTF-8 are escaped one by one.
			 */
			k = c >= 0x80 ? td_utf8_char((const unsigned char *)s + i,
						     len - i) : 0;
			if (k > 1) {
				memcpy(p, s + i, k);
				p += k;
				i += k - 1;
			} else if (c < 0x20 || c >= 0x7f) {
				memcpy(p, "\\u00", 4);
				p[4] = hex[c >> 4];
				p[5] = hex[c & 15];
				p += 6;
			} else {
				*p++ = (char)c;
			}
		}
	}
	*p++ = '"';
	return p - dst;
}

static void put_escaped(FILE *out, const char *s, size_t len)
{
	char buf[6 * 256 + 2];

	/* In pieces, each quoted: the quotes between them are dropped. */
	fputc('"', out);
	do {
		size_t n = len < 256 ? len : 256, w;

		/* not inside a UTF-8 character */
		while (n < len && n > 252 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		w = jsonw_escape(buf, s, n);

		fwrite(buf + 1, 1, w - 2, out);
		s += n;
		len -= n;
	} while (len);
	fputc('"', out);
}

const char *jsonw_raw_begin(json_writer_t *self)
{
	const char *sep = "";

	if (self->pretty)
		return NULL;
	if (self->after_name) {
		self->after_name = false;
		return sep;
	}
	if (self->depth > 0 && self->has_item[self->depth])
		sep = ",";
	else if (self->depth == 0 && self->has_item[0])
		sep = "\n";
	self->has_item[self->depth] = true;
	return sep;
}

void jsonw_raw_value(json_writer_t *self, const char *s, size_t len)
{
	bool in_str = false, esc = false, in_token = false;

	if (!self->pretty) {
		begin_item(self);
		fwrite(s, 1, len, self->out);
		return;
	}
	/* Structure and scalars through the writer's own steps, so the
	 * layout is what the calls for each name and value would give.
	 */
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (in_str) {
			fputc(c, self->out);
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
			continue;
		}
		switch (c) {
		case ',':
			in_token = false;
			break;
		case ':':
			in_token = false;
			fputs(": ", self->out);
			self->after_name = true;
			break;
		case '{':
		case '[':
			in_token = false;
			open_level(self, c);
			break;
		case '}':
		case ']':
			in_token = false;
			close_level(self, c);
			break;
		case '"':
			in_token = false;
			begin_item(self);
			fputc(c, self->out);
			in_str = true;
			break;
		default:
			if (!in_token) {
				begin_item(self);
				in_token = true;
			}
			fputc(c, self->out);
			break;
		}
	}
}

void jsonw_name(json_writer_t *self, const char *name)
{
	begin_item(self);
	put_escaped(self->out, name, strlen(name));
	fputs(self->pretty ? ": " : ":", self->out);
	self->after_name = true;
}

void jsonw_string(json_writer_t *self, const char *value)
{
	jsonw_string_n(self, value, strlen(value));
}

void jsonw_string_n(json_writer_t *self, const char *value, size_t len)
{
	size_t n = 0;

	while (n < len && value[n])
		n++;
	begin_item(self);
	put_escaped(self->out, value, n);
}

void jsonw_uint(json_writer_t *self, uint64_t value)
{
	begin_item(self);
	fprintf(self->out, "%llu", (unsigned long long)value);
}

void jsonw_int(json_writer_t *self, int64_t value)
{
	begin_item(self);
	fprintf(self->out, "%lld", (long long)value);
}

void jsonw_float(json_writer_t *self, double value)
{
	char buf[TD_FMT_MAX + 1];

	begin_item(self);
	if (isfinite(value))
		fwrite(buf, 1, (size_t)td_fmt_shortest(buf, value), self->out);
	else
		fputs("null", self->out);
}

void jsonw_bool(json_writer_t *self, bool value)
{
	begin_item(self);
	fputs(value ? "true" : "false", self->out);
}

void jsonw_null(json_writer_t *self)
{
	begin_item(self);
	fputs("null", self->out);
}

void jsonw_string_field(json_writer_t *self, const char *name, const char *v)
{
	jsonw_name(self, name);
	jsonw_string(self, v);
}

void jsonw_uint_field(json_writer_t *self, const char *name, uint64_t v)
{
	jsonw_name(self, name);
	jsonw_uint(self, v);
}

void jsonw_int_field(json_writer_t *self, const char *name, int64_t v)
{
	jsonw_name(self, name);
	jsonw_int(self, v);
}

void jsonw_float_field(json_writer_t *self, const char *name, double v)
{
	jsonw_name(self, name);
	jsonw_float(self, v);
}

void jsonw_bool_field(json_writer_t *self, const char *name, bool v)
{
	jsonw_name(self, name);
	jsonw_bool(self, v);
}

void jsonw_null_field(json_writer_t *self, const char *name)
{
	jsonw_name(self, name);
	jsonw_null(self);
}

void jsonw_event_fields(json_writer_t *self, const struct topdown_event *e)
{
	jsonw_string_field(self, "name", e->name);
	jsonw_uint_field(self, "type", e->type);
	jsonw_uint_field(self, "config", e->config);
	jsonw_uint_field(self, "config1", e->config1);
	jsonw_uint_field(self, "config2", e->config2);
}
