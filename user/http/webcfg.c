// SPDX-License-Identifier: GPL-2.0
/*
 * exporter-toolkit's web configuration file (see webcfg.h), parsed with
 * libyaml's document loader. The file is outside input: its size is
 * bounded, aliases are never followed into something that is not where
 * a value belongs (a node is checked for its kind before use, so an
 * alias cannot loop), duplicate keys are refused (YAML forbids them and
 * the toolkit's strict decoder refuses them too).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yaml.h>

#include "http/webcfg.h"

#define WEBCFG_MAX_BYTES	(64 * 1024)

/* Go's tls.CipherSuites() of TLS 1.2, as exporter-toolkit takes them
 * (its insecure list it refuses), with OpenSSL's names; the AEAD suites
 * first.
 */
const struct td_web_name td_web_ciphers[TD_WEB_CIPHERS] = {
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA" },
};

const struct td_web_name td_web_curves[TD_WEB_CURVES] = {
	{ "CurveP256", "P-256" }, { "CurveP384", "P-384" },
	{ "CurveP521", "P-521" }, { "X25519", "X25519" },
};

struct ctx {
	yaml_document_t *doc;
	const char *dir;
	struct td_webcfg *c;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int k = 0;

	if (n)
		k = snprintf(x->err, x->errlen, "line %lu: ",
			     (unsigned long)n->start_mark.line + 1);
	if (k < 0 || (size_t)k >= x->errlen)
		k = 0;
	va_start(ap, fmt);
	vsnprintf(x->err + k, x->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *tag_of(yaml_node_t *n)
{
	return n->tag ? (const char *)n->tag : "";
}

/* A scalar that is a string (plain, or quoted); its text in *s. */
static int scalar(struct ctx *x, yaml_node_t *n, const char *key,
		  const char **s)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return fail(x, n, "%s: expected a string", key);
	if (strcmp(tag_of(n), YAML_STR_TAG))
		return fail(x, n, "%s: a value with the tag %s is not supported",
			    key, tag_of(n));
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return fail(x, n, "%s: a NUL character in the value", key);
	*s = (const char *)n->data.scalar.value;
	return 0;
}

static int boolean(struct ctx *x, yaml_node_t *n, const char *key, bool *b)
{
	const char *s;

	if (scalar(x, n, key, &s))
		return -1;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))) {
		*b = true;
		return 0;
	}
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))) {
		*b = false;
		return 0;
	}
	return fail(x, n, "%s: expected true or false, not '%s'", key, s);
}

/* A path: absolute, or relative to the file's folder. */
static int file_path(struct ctx *x, yaml_node_t *n, const char *key, char **out)
{
	const char *s;
	size_t dl;

	if (scalar(x, n, key, &s))
		return -1;
	if (*out)
		return fail(x, n, "%s: given twice", key);
	if (!*s)
		return fail(x, n, "%s: an empty path", key);
	dl = s[0] == '/' || !x->dir ? 0 : strlen(x->dir);
	*out = malloc(dl + strlen(s) + 2);
	if (!*out)
		return fail(x, n, "out of memory");
	if (dl)
		sprintf(*out, "%s/%s", x->dir, s);
	else
		strcpy(*out, s);
	return 0;
}

/* YAML's null: an empty plain scalar, ~, null (libyaml's loader tags
 * every plain scalar as a string and leaves the rest to us).
 */
static bool is_null(yaml_node_t *n)
{
	const char *v;

	if (!n || n->type != YAML_SCALAR_NODE)
		return false;
	if (!strcmp(tag_of(n), YAML_NULL_TAG))
		return true;
	v = (const char *)n->data.scalar.value;
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !strcmp(tag_of(n), YAML_STR_TAG) &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") ||
		!strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* A mapping with string keys, each key once: its pairs in *p, *np. */
static int pairs(struct ctx *x, yaml_node_t *n, const char *key,
		 yaml_node_pair_t **p, size_t *np)
{
	*p = NULL;
	*np = 0;
	if (is_null(n))
		return 0;	/* "key:" and nothing: an empty mapping */
	if (!n || n->type != YAML_MAPPING_NODE)
		return fail(x, n, "%s: expected a mapping (KEY: VALUE lines)",
			    key);
	*p = n->data.mapping.pairs.start;
	*np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (*np > TD_WEB_USERS_MAX)
		return fail(x, n, "%s: more than %d keys", key,
			    TD_WEB_USERS_MAX);
	for (size_t i = 0; i < *np; i++) {
		yaml_node_t *k = yaml_document_get_node(x->doc, (*p)[i].key);
		const char *ks;

		if (scalar(x, k, key, &ks))
			return -1;
		for (size_t j = 0; j < i; j++) {
			yaml_node_t *k2 = yaml_document_get_node(x->doc,
								 (*p)[j].key);

			if (!strcmp((const char *)k2->data.scalar.value, ks))
				return fail(x, k, "%s: the key '%s' is given twice",
					    key, ks);
		}
	}
	return 0;
}

static const char *key_of(struct ctx *x, yaml_node_pair_t *p,
			  yaml_node_t **kn, yaml_node_t **vn)
{
	*kn = yaml_document_get_node(x->doc, p->key);
	*vn = yaml_document_get_node(x->doc, p->value);
	return (const char *)(*kn)->data.scalar.value;
}

static int tls_version(struct ctx *x, yaml_node_t *n, const char *key, int *v)
{
	static const struct { const char *name; int v; } vers[] = {
		{ "TLS10", 0x0301 }, { "TLS11", 0x0302 },
		{ "TLS12", 0x0303 }, { "TLS13", 0x0304 },
	};
	const char *s;

	if (scalar(x, n, key, &s))
		return -1;
	for (size_t i = 0; i < sizeof(vers) / sizeof(vers[0]); i++)
		if (!strcmp(s, vers[i].name)) {
			*v = vers[i].v;
			return 0;
		}
	return fail(x, n, "%s: '%s' is not one of TLS10, TLS11, TLS12, TLS13",
		    key, s);
}

/* A list of names of a table (cipher_suites, curve_preferences): the
 * indices in idx[], *nidx of them; null or [] is none (the defaults).
 */
static int name_list(struct ctx *x, yaml_node_t *n, const char *key,
		     const struct td_web_name *tab, int ntab,
		     unsigned char *idx, int *nidx)
{
	static const char *const tls13[] = {
		"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
		"TLS_CHACHA20_POLY1305_SHA256",
	};

	*nidx = 0;
	if (is_null(n))
		return 0;
	if (!n || n->type != YAML_SEQUENCE_NODE)
		return fail(x, n, "%s: expected a list ([NAME, ...] or - NAME lines)", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(x->doc, *it);
		const char *s;
		int k = -1;

		if (scalar(x, e, key, &s))
			return -1;
		for (int i = 0; i < ntab; i++)
			if (!strcmp(s, tab[i].go))
				k = i;
		for (size_t i = 0; k < 0 && tab == td_web_ciphers &&
		     i < sizeof(tls13) / sizeof(tls13[0]); i++)
			if (!strcmp(s, tls13[i]))
				return fail(x, e, "%s: %s is a TLS 1.3 suite: the suites "
					    "of TLS 1.3 are not chosen (Go ignores them here "
					    "too); list TLS 1.2 suites", key, s);
		if (k < 0) {
			char names[1024];
			size_t o = 0;

			for (int i = 0; i < ntab && o < sizeof(names); i++)
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
						      i ? ", " : "", tab[i].go);
			return fail(x, e, "%s: '%s' is not one of %s", key, s, names);
		}
		for (int i = 0; i < *nidx; i++)
			if (idx[i] == k)
				return fail(x, e, "%s: %s is given twice", key, s);
		idx[(*nidx)++] = (unsigned char)k;
	}
	return 0;
}

static int parse_tls(struct ctx *x, yaml_node_t *n)
{
	static const char *const auth[] = {
		"NoClientCert", "RequestClientCert", "RequireAnyClientCert",
		"VerifyClientCertIfGiven", "RequireAndVerifyClientCert",
	};
	struct td_webcfg *c = x->c;
	yaml_node_t *min_node = NULL;
	yaml_node_pair_t *p;
	size_t np;

	if (pairs(x, n, "tls_server_config", &p, &np))
		return -1;
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn, *vn;
		const char *k = key_of(x, &p[i], &kn, &vn), *s;
		bool found = false;

		if (!strcmp(k, "cert_file")) {
			if (file_path(x, vn, "tls_server_config.cert_file", &c->cert_file))
				return -1;
		} else if (!strcmp(k, "key_file")) {
			if (file_path(x, vn, "tls_server_config.key_file", &c->key_file))
				return -1;
		} else if (!strcmp(k, "client_ca_file")) {
			if (file_path(x, vn, "tls_server_config.client_ca_file",
				      &c->client_ca_file))
				return -1;
		} else if (!strcmp(k, "client_auth_type")) {
			if (scalar(x, vn, "tls_server_config.client_auth_type", &s))
				return -1;
			for (size_t a = 0; a < sizeof(auth) / sizeof(auth[0]); a++)
				if (!strcmp(s, auth[a])) {
					c->client_auth = (enum td_client_auth)a;
					found = true;
				}
			if (!found && *s)
				return fail(x, vn, "tls_server_config.client_auth_type: '%s' is "
					    "not one of NoClientCert, RequestClientCert, "
					    "RequireAnyClientCert, VerifyClientCertIfGiven, "
					    "RequireAndVerifyClientCert", s);
		} else if (!strcmp(k, "min_version")) {
			if (tls_version(x, vn, "tls_server_config.min_version",
					&c->min_version))
				return -1;
			min_node = vn;
		} else if (!strcmp(k, "max_version")) {
			if (tls_version(x, vn, "tls_server_config.max_version",
					&c->max_version))
				return -1;
		} else if (!strcmp(k, "prefer_server_cipher_suites")) {
			if (boolean(x, vn, "tls_server_config.prefer_server_cipher_suites",
				    &c->prefer_server_ciphers))
				return -1;
		} else if (!strcmp(k, "cipher_suites")) {
			if (name_list(x, vn, "tls_server_config.cipher_suites",
				      td_web_ciphers, TD_WEB_CIPHERS, c->ciphers,
				      &c->nciphers))
				return -1;
		} else if (!strcmp(k, "curve_preferences")) {
			if (name_list(x, vn, "tls_server_config.curve_preferences",
				      td_web_curves, TD_WEB_CURVES, c->curves,
				      &c->ncurves))
				return -1;
		} else if (!strcmp(k, "client_allowed_sans") ||
			   !strcmp(k, "cert") || !strcmp(k, "key") ||
			   !strcmp(k, "client_ca")) {
			return fail(x, kn, "tls_server_config.%s: not supported by tdctl serve "
				    "(it would be ignored): remove it", k);
		} else {
			return fail(x, kn, "tls_server_config: unknown key '%s'", k);
		}
	}
	/* The toolkit's rules (web/tls_config.go): TLS needs both files.
	 * The toolkit serves plain HTTP when neither file nor any client
	 * CA setting is given, ignoring min_version and the rest; here only
	 * an empty tls_server_config means plain HTTP, and any key in it
	 * asks for TLS (a key is never ignored).
	 */
	if (!np)
		return 0;
	if (!c->cert_file)
		return fail(x, n, "tls_server_config: missing cert_file");
	if (!c->key_file)
		return fail(x, n, "tls_server_config: missing key_file");
	if (c->client_ca_file && c->client_auth == TD_CA_NONE)
		return fail(x, n, "tls_server_config: client_ca_file is given but client_auth_type "
			    "is NoClientCert: no client certificate would be checked");
	if (!c->client_ca_file && (c->client_auth == TD_CA_VERIFY_IF_GIVEN ||
				   c->client_auth == TD_CA_REQUIRE_VERIFY))
		return fail(x, n, "tls_server_config: client_auth_type %s needs client_ca_file, "
			    "the CAs that verify client certificates",
			    auth[c->client_auth]);
	if (c->min_version > c->max_version)
		return fail(x, n, "tls_server_config: min_version is above max_version");
	/* OpenSSL 3 makes TLS 1.0 and 1.1 handshakes only at security
	 * level 0 (their signatures use SHA-1 and MD5), which would weaken
	 * TLS 1.2 and 1.3 as well; Debian sets level 2. Accepted, they
	 * would fail every such handshake: refused here, as every key that
	 * cannot be honoured.
	 */
	if (c->min_version < 0x0303)
		return fail(x, min_node, "tls_server_config.min_version: TLS1%d is not "
			    "supported: OpenSSL refuses TLS 1.0 and 1.1 at its "
			    "security level (write TLS12 or TLS13)",
			    c->min_version - 0x0301);
	c->tls = true;
	return 0;
}

/* The toolkit's security headers and the values it allows. */
static int parse_headers(struct ctx *x, yaml_node_t *n)
{
	static const char *const names[TD_WEB_HEADERS_MAX] = {
		"Content-Security-Policy", "X-Frame-Options",
		"X-Content-Type-Options", "X-XSS-Protection",
		"Strict-Transport-Security",
	};
	struct td_webcfg *c = x->c;
	yaml_node_pair_t *p;
	size_t np;

	if (pairs(x, n, "http_server_config.headers", &p, &np))
		return -1;
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn, *vn;
		const char *k = key_of(x, &p[i], &kn, &vn), *v;
		int h = -1;

		for (int j = 0; j < TD_WEB_HEADERS_MAX; j++)
			if (!strcasecmp(k, names[j]))
				h = j;
		for (int j = 0; h >= 0 && j < c->nheaders; j++)
			if (!strcmp(c->headers[j].name, names[h]))
				return fail(x, kn, "http_server_config.headers: %s is given twice",
					    names[h]);
		if (h < 0)
			return fail(x, kn, "http_server_config.headers: '%s' is not one of "
				    "Content-Security-Policy, X-Frame-Options, "
				    "X-Content-Type-Options, X-XSS-Protection, "
				    "Strict-Transport-Security", k);
		if (scalar(x, vn, k, &v))
			return -1;
		for (const char *q = v; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				return fail(x, vn, "http_server_config.headers.%s: "
					    "a control character in the value", k);
		if (h == 1 && strcasecmp(v, "deny") && strcasecmp(v, "sameorigin"))
			return fail(x, vn, "http_server_config.headers.X-Frame-Options: '%s' is "
				    "not deny or sameorigin", v);
		if (h == 2 && strcasecmp(v, "nosniff"))
			return fail(x, vn, "http_server_config.headers.X-Content-Type-Options: "
				    "'%s' is not nosniff", v);
		c->headers[c->nheaders].name = strdup(names[h]);
		c->headers[c->nheaders].value = strdup(v);
		if (!c->headers[c->nheaders].name ||
		    !c->headers[c->nheaders].value) {
			c->nheaders++;
			return fail(x, vn, "out of memory");
		}
		c->nheaders++;
	}
	return 0;
}

static int parse_http(struct ctx *x, yaml_node_t *n)
{
	yaml_node_pair_t *p;
	size_t np;

	if (pairs(x, n, "http_server_config", &p, &np))
		return -1;
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn, *vn;
		const char *k = key_of(x, &p[i], &kn, &vn);
		bool b;

		if (!strcmp(k, "http2")) {
			if (boolean(x, vn, "http_server_config.http2", &b))
				return -1;
			if (b)
				return fail(x, vn, "http_server_config.http2: true is not "
					    "supported: tdctl serve speaks HTTP/1.1 only "
					    "(write false)");
		} else if (!strcmp(k, "headers")) {
			if (parse_headers(x, vn))
				return -1;
		} else {
			return fail(x, kn, "http_server_config: unknown key '%s'", k);
		}
	}
	return 0;
}

/* bcrypt as crypt(3) reads it: $2a$, $2b$ or $2y$, two digits of cost,
 * '$', 53 characters of salt and hash in bcrypt's base64.
 */
static int parse_users(struct ctx *x, yaml_node_t *n)
{
	static const char b64[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	struct td_webcfg *c = x->c;
	yaml_node_pair_t *p;
	size_t np;

	if (pairs(x, n, "basic_auth_users", &p, &np))
		return -1;
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn, *vn;
		const char *k = key_of(x, &p[i], &kn, &vn), *h;
		int cost;

		if (!*k || strchr(k, ':') || strlen(k) >= 256)
			return fail(x, kn, "basic_auth_users: '%s' is not a user name "
				    "(1 to 255 characters, no ':')", k);
		for (const char *q = k; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				return fail(x, kn,
					    "basic_auth_users: a control character in a user name");
		if (scalar(x, vn, "basic_auth_users", &h))
			return -1;
		if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
		    !strchr("aby", h[2]) || h[2] == '\0' || h[3] != '$' ||
		    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' ||
		    h[6] != '$' || strspn(h + 7, b64) != 53)
			return fail(x, vn, "basic_auth_users.%s: not a bcrypt hash "
				    "($2b$NN$ and 53 characters; htpasswd -nbBC 10 USER "
				    "PASSWORD makes one)", k);
		cost = (h[4] - '0') * 10 + (h[5] - '0');
		if (cost < 4 || cost > 14)
			return fail(x, vn, "basic_auth_users.%s: bcrypt cost %d: tdctl serve "
				    "takes 4 to 14 (each check of a new password costs 2^cost "
				    "rounds on the exporter's one checking thread)", k, cost);
		c->users[c->nusers].name = strdup(k);
		c->users[c->nusers].hash = strdup(h);
		c->nusers++;
		if (!c->users[c->nusers - 1].name || !c->users[c->nusers - 1].hash)
			return fail(x, vn, "out of memory");
	}
	return 0;
}

int td_webcfg_parse(const char *text, size_t n, const char *dir,
		    struct td_webcfg *c, char *err, size_t errlen)
{
	struct ctx x = { .dir = dir, .c = c, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc, more;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	size_t np;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->min_version = 0x0303;
	c->max_version = 0x0304;
	c->prefer_server_ciphers = true;
	if (errlen)
		err[0] = '\0';
	if (n > WEBCFG_MAX_BYTES)
		return fail(&x, NULL, "larger than %d bytes", WEBCFG_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return fail(&x, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, n);
	if (!yaml_parser_load(&parser, &doc)) {
		fail(&x, NULL, "line %lu: %s%s%s",
		     (unsigned long)parser.problem_mark.line + 1,
		     parser.problem ? parser.problem : "not YAML",
		     parser.context ? " " : "",
		     parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {		/* an empty file: plain HTTP, no users */
		ret = 0;
		goto out;
	}
	/* One document only. */
	if (!yaml_parser_load(&parser, &more)) {
		fail(&x, NULL, "line %lu: %s",
		     (unsigned long)parser.problem_mark.line + 1,
		     parser.problem ? parser.problem : "not YAML");
		goto out;
	}
	if (yaml_document_get_root_node(&more)) {
		yaml_document_delete(&more);
		fail(&x, NULL, "more than one YAML document");
		goto out;
	}
	yaml_document_delete(&more);
	if (pairs(&x, root, "the file", &p, &np))
		goto out;
	for (size_t i = 0; i < np; i++) {
		yaml_node_t *kn, *vn;
		const char *k = key_of(&x, &p[i], &kn, &vn);

		if (!strcmp(k, "tls_server_config")) {
			if (parse_tls(&x, vn))
				goto out;
		} else if (!strcmp(k, "http_server_config")) {
			if (parse_http(&x, vn))
				goto out;
		} else if (!strcmp(k, "basic_auth_users")) {
			if (parse_users(&x, vn))
				goto out;
		} else {
			fail(&x, kn, "unknown key '%s' (tdctl serve reads tls_server_config, "
			     "http_server_config, basic_auth_users)", k);
			goto out;
		}
	}
	ret = 0;
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (ret)
		td_webcfg_free(c);
	return ret;
}

int td_webcfg_load(const char *file, struct td_webcfg *c, char *err,
		   size_t errlen)
{
	char *buf = malloc(WEBCFG_MAX_BYTES + 1), *dir, *slash;
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	memset(c, 0, sizeof(*c));
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		free(buf);
		return -1;
	}
	while ((n = read(fd, buf + len, WEBCFG_MAX_BYTES + 1 - len)) > 0) {
		len += (size_t)n;
		if (len > WEBCFG_MAX_BYTES)
			break;
	}
	if (n < 0) {
		snprintf(err, errlen, "cannot read: %s", strerror(errno));
		close(fd);
		free(buf);
		return -1;
	}
	close(fd);
	dir = strdup(file);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	ret = td_webcfg_parse(buf, len, slash ? dir : NULL, c, err, errlen);
	free(dir);
	free(buf);
	return ret;
}

void td_webcfg_free(struct td_webcfg *c)
{
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	for (int i = 0; i < c->nheaders; i++) {
		free(c->headers[i].name);
		free(c->headers[i].value);
	}
	for (int i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	memset(c, 0, sizeof(*c));
}
