/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve's TLS context, made from exporter-toolkit's tls_server_config
 * (webcfg.h) with OpenSSL.
 */
#ifndef TD_HTTP_TLS_H
#define TD_HTTP_TLS_H

#include <openssl/ssl.h>

#include "http/webcfg.h"

/* A server context for w's certificate, key, versions, cipher suites,
 * curves and client authentication (Go's tls.ClientAuthType in
 * OpenSSL's terms), an SSL_CTX; NULL after p_err() naming what the file
 * asked.
 */
struct ssl_ctx_st *td_http_tls_context(const struct td_webcfg *w);

#endif
