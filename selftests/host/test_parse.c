// SPDX-License-Identifier: GPL-2.0
/*
 * user/base/count.c (counts as perf stat prints them) and
 * user/base/json_read.c (flat JSON objects, one per line).
 */
#include <stdint.h>
#include <string.h>

#include "base/count.h"
#include "base/json_read.h"
#include "tap.h"

static void count_ok(const char *s, uint64_t want)
{
	char err[160] = "";
	uint64_t v = 0;
	int r = td_parse_count(s, strlen(s), &v, err, sizeof(err));

	ok(!r && v == want, "count '%s' = %llu (got %llu%s%s)", s,
	   (unsigned long long)want, (unsigned long long)v, *err ? ", " : "",
	   err);
}

static void count_bad(const char *s, const char *why)
{
	char err[160] = "";
	uint64_t v = 0;
	int r = td_parse_count(s, strlen(s), &v, err, sizeof(err));

	ok(r && strstr(err, why), "count '%s' refused: %s (%s)", s, why, err);
}

struct seen {
	int n;
	char keys[8][64], vals[8][64];
	enum jr_type types[8];
};

static int member(const struct jr_member *m, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->keys[s->n], 64, "%.*s", (int)m->key_len, m->key);
		snprintf(s->vals[s->n], 64, "%.*s", (int)m->val_len, m->val);
		s->types[s->n] = m->type;
	}
	s->n++;
	return 0;
}

static int stop(const struct jr_member *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return 7;
}

static int elem(const char *text, size_t len, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8)
		snprintf(s->vals[s->n], 64, "%.*s", (int)len, text);
	s->n++;
	return 0;
}

int main(void)
{
	struct seen s = { 0 };
	const char *txt;
	char deep[64];
	char err[160];

	count_ok("0", 0);
	count_ok("3922334305", 3922334305ull);
	count_ok("3,922,334,305", 3922334305ull);
	count_ok("  1,000  ", 1000);
	count_ok("3922334305.000000", 3922334305ull);
	count_ok("1427.652000", 1428);
	count_ok("0.5", 1);
	count_ok("0.49", 0);
	count_ok(".5", 1);
	count_ok("2e6", 2000000);
	count_ok("1.5E+9", 1500000000);
	count_ok("25e-1", 3);
	count_ok("0x1f", 31);
	count_ok("18446744073709551615", UINT64_MAX);
	count_ok("18,446,744,073,709,551,615.4", UINT64_MAX);
	count_ok("1.8446744073709551615e19", UINT64_MAX);
	count_ok("0e99999", 0);
	count_bad("", "not a count");
	count_bad("1,00,000", "not a count");
	count_bad("1,0000", "not a count");
	count_bad(",100", "not a count");
	count_bad("100,", "not a count");
	count_bad("1.2.3", "not a count");
	count_bad("1e", "not a count");
	count_bad("e5", "not a count");
	count_bad("-1", "negative");
	count_bad("+1", "no sign");
	count_bad("nan", "not a count");
	count_bad("inf", "not a count");
	count_bad("0xfffffffffffffffff", "exceeds 64 bits");
	count_bad("18446744073709551616", "exceeds 64 bits");
	count_bad("18446744073709551615.5", "exceeds 64 bits");
	count_bad("1e20", "exceeds 64 bits");

	ok(!json_read_flat(" {\"counter-value\" : \"3922334305.000000\", "
			   "\"unit\" : \"\", \"event\" : \"cpu_cycles\", "
			   "\"pcnt-running\" : 66.65, \"x\": null, \"t\": true, "
			   "\"f\": false}\n", member, &s, err, sizeof(err)) &&
	   s.n == 7 &&
	   !strcmp(s.keys[0], "counter-value") && s.types[0] == JR_STRING &&
	   !strcmp(s.vals[0], "3922334305.000000") && !strcmp(s.vals[1], "") &&
	   !strcmp(s.vals[2], "cpu_cycles") && s.types[3] == JR_NUMBER &&
	   !strcmp(s.vals[3], "66.65") && s.types[4] == JR_NULL &&
	   s.types[5] == JR_TRUE && s.types[6] == JR_FALSE,
	   "json: a perf stat -j line, every value kind");
	memset(&s, 0, sizeof(s));
	ok(!json_read_flat("{\"a\\\"b\\\\c\\/d\\u00e9\\ud83d\\ude00\": -1.5e3}", member,
			   &s, err, sizeof(err)) && s.n == 1 &&
	   !strcmp(s.keys[0], "a\"b\\c/d\xc3\xa9\xf0\x9f\x98\x80") &&
	   !strcmp(s.vals[0], "-1.5e3"),
	   "json: escapes, \\u into UTF-8 (surrogate pairs), a number's text");
	memset(&s, 0, sizeof(s));
	ok(!json_read_flat("{}", member, &s, err, sizeof(err)) && !s.n,
	   "json: an empty object");
	ok(json_read_flat("{\"a\": {\"b\": 1}}", member, &s, err, sizeof(err)) &&
	   strstr(err, "nested"), "json: nested objects refused (%s)", err);
	ok(json_read_flat("{\"a\": [1]}", member, &s, err, sizeof(err)) &&
	   strstr(err, "nested"), "json: arrays refused (%s)", err);
	ok(json_read_flat("{\"a\": 1} x", member, &s, err, sizeof(err)) &&
	   strstr(err, "after"), "json: text after the object refused (%s)", err);
	ok(json_read_flat("{\"a\": 01}", member, &s, err, sizeof(err)),
	   "json: a leading zero refused");
	ok(json_read_flat("{\"a\": 1,}", member, &s, err, sizeof(err)),
	   "json: a trailing comma refused");
	ok(json_read_flat("{\"a\\x\": 1}", member, &s, err, sizeof(err)),
	   "json: an unknown escape refused");
	ok(json_read_flat("{\"\\udc00\": 1}", member, &s, err, sizeof(err)),
	   "json: a lone low surrogate refused");
	ok(json_read_flat("{\"a\": 1", member, &s, err, sizeof(err)),
	   "json: an unterminated object refused");
	ok(json_read_flat("{\"a\": 1}", stop, NULL, err, sizeof(err)) == 7,
	   "json: the callback's value stops the parse and is returned");

	/* nested values: json_read_object() gives their text */
	memset(&s, 0, sizeof(s));
	txt = "{\"seq\":3,\"counts\":{\"a\":1,\"b\":[2,{\"c\":\"}\"}]},\"x\":null}";
	ok(!json_read_object(txt, strlen(txt), member, &s, err, sizeof(err)) &&
	   s.n == 3 && s.types[1] == JR_OBJECT &&
	   !strcmp(s.vals[1], "{\"a\":1,\"b\":[2,{\"c\":\"}\"}]}") &&
	   s.types[2] == JR_NULL,
	   "json: json_read_object() passes a nested object as its text (%s)", err);
	memset(&s, 0, sizeof(s));
	txt = "{\"a\": {\"b\": 1]}";
	ok(json_read_object(txt, strlen(txt), member, &s, err, sizeof(err)) &&
	   strstr(err, "column"),
	   "json: a bad nested object refused (%s)", err);
	memset(deep, '[', sizeof(deep));
	snprintf(deep, sizeof(deep), "{\"a\":%.*s1%.*s}", JR_MAX_DEPTH, "[[[[[[[[[[[[[[[[[[[[",
		 JR_MAX_DEPTH, "]]]]]]]]]]]]]]]]]]]]");
	ok(json_read_object(deep, strlen(deep), member, &s, err, sizeof(err)),
	   "json: nesting deeper than JR_MAX_DEPTH refused (%s)", err);
	memset(&s, 0, sizeof(s));
	txt = " [{\"a\":1}, [2], \"s\" ,3] ";
	ok(!json_read_array(txt, strlen(txt), elem, &s, err, sizeof(err)) &&
	   s.n == 4 && !strcmp(s.vals[0], "{\"a\":1}") &&
	   !strcmp(s.vals[1], "[2]") && !strcmp(s.vals[2], "\"s\"") &&
	   !strcmp(s.vals[3], "3"),
	   "json: json_read_array() gives each element's text (%s)", err);
	ok(json_read_array("[1,]", 4, elem, &s, err, sizeof(err)) &&
	   json_read_array("[1] 2", 5, elem, &s, err, sizeof(err)) &&
	   json_read_array("[1\0]", 4, elem, &s, err, sizeof(err)),
	   "json: a trailing comma, text after the array, a NUL refused");
	return tap_done();
}
