/* SPDX-License-Identifier: MIT */
/*
 * request.h: the request context a handler sees (struct hl_req), and what
 * the HTTP layer does with it before and after the handler.
 *
 * One hl_req belongs to each HTTP worker thread and is reused for every
 * request that thread serves: its arena, body and answer buffers keep their
 * memory, so a small request allocates nothing. Everything a request borrows
 * (its read connection, the write lock) is given back when its transaction
 * ends (http/dispatch.c).
 */
#ifndef HL_REQUEST_H
#define HL_REQUEST_H

#include <hyperlevel/hyperlevel.h>

#include "lib/arena.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "request/router.h"

#include <stdint.h>

/* Room kept in front of the answer's body for its headers, so that headers
 * and body leave in one write without copying the body. */
#define HEAD_ROOM 1024

struct server;
struct guard_slot;

enum role { ROLE_NONE, ROLE_AGENCY_ADMIN, ROLE_AGENCY_USER, ROLE_LOCATION_ADMIN,
	    ROLE_LOCATION_USER };

static inline int role_is_agency(enum role role)
{
	return role == ROLE_AGENCY_ADMIN || role == ROLE_AGENCY_USER;
}

/* Who is calling, from a session cookie or an API token. */
struct identity {
	int64_t user_id;        /* 0: nobody signed in */
	int64_t agency_id;
	enum role role;
	int assigned_only;
	int64_t token_id;       /* the API token used, or 0 for a session */
	int64_t token_location; /* the one location a scoped token may open */
	unsigned char session[32]; /* hash of the session token, for logout */
	int64_t expires_at;     /* when the session or token ends (unix s; 0: never) */
};

struct query_pair {
	char *name, *value;
};

struct hl_req {
	struct server *srv;
	struct mg_connection *conn;
	const char *method;
	const char *path;           /* raw (still percent-encoded), no query */
	size_t path_len;
	const char *query_string;   /* raw, or NULL */
	struct arena arena;
	struct route_match match;
	char *params[ROUTE_MAX_PARAMS]; /* decoded lazily */
	struct query_pair *query;
	int nquery;                 /* parsed before the handler runs */
	struct buf body;            /* the request body */
	int body_read;              /* all of it was read */
	int large_body;             /* it holds one of the server's large places */
	long long started_us;       /* when it began (now_us) */
	size_t sent;                /* bytes of the answer sent, head included */
	int cut;                    /* the answer was cut short: close the connection */
	struct json_doc json;       /* parsed body of a JSON route */
	int has_json;
	struct identity who;        /* the caller, once auth_admit ran */
	int64_t location_id;        /* the current location, or 0 */
	char zone[64];              /* its time zone, once hl_location_zone read it */
	char country[3];            /* its country, once hl_location_country read it */
	struct hl_db *reader;
	struct hl_db *writer;
	int no_reader;              /* hl_read found none free in time (503) */
	struct guard_slot *guard;   /* the worker's slot (guard.h), kept across requests */
	void *cache_entry;          /* the cache entry this request computes */
	int metrics_slot;           /* what answered: a route id, or see metrics.h */
	size_t plain_len;           /* the body's size before compression, when the
	                             * answer came compressed (0: not known) */
	int asked_user;             /* the handler asked who the user is */
	int uncached;               /* hl_answer_uncached: the cache keeps nothing */
	struct {                    /* what auth_rights_changed noted */
		int changed;
		int64_t user, location; /* 0: anyone's, any */
	} rights;
	uint64_t statements;        /* statement runs on its connections so far */

	/* The answer. */
	int status;
	const char *content_type;
	const char *cache_control; /* NULL: no-store */
	const char *csp;            /* the Content-Security-Policy; NULL: answer_csp.
	                             * Must outlive the request. */
	int encoded;                /* the body is final as it is (a precompressed
	                             * file, a cached variant, a stream): the HTTP
	                             * layer never compresses it */
	struct buf out;             /* HEAD_ROOM bytes, then the body */
	struct buf packed;          /* the same, compressed (swapped with out) */
	struct buf headers;         /* extra header lines, "Name: value\r\n"; kept
	                             * when the answer is replaced */
	struct hl_json writer_json;
	int replied;
	struct stream *stream;      /* a streamed answer being sent (stream.c) */
	int streamed;               /* the answer was streamed: already sent */
	size_t stream_sent;         /* body bytes a stream sent, compressed */

	/* A request answered inside another (dispatch_inside): its
	 * headers are the outer one's connection's, but for those named here
	 * (name, value pairs, NULL-terminated; a NULL value: absent). It
	 * never sends anything itself. */
	const char *const *headers_set;
	struct hl_req *nested;      /* the worker's request for that, made on
	                             * first use and kept */
};

void request_init(struct hl_req *r, struct server *srv);
void request_release(struct hl_req *r);
/* Prepare for a new request (after the last one's transaction ended). */
void request_begin(struct hl_req *r, struct mg_connection *conn, const char *method,
		   const char *path, size_t path_len, const char *query);
/* Forget the request's memory (after the answer was sent). A worker keeps
 * its buffers up to this size for the connection's next request; bigger
 * ones are freed: a hundred workers would otherwise each keep their
 * biggest answer. All of them go when the connection closes
 * (request_release). */
#define REQUEST_BUFFER_KEPT (64 * 1024)
void request_end(struct hl_req *r);

/* Give the read connection back before a slow step (it is lent again on
 * the next hl_read). */
void request_return_reader(struct hl_req *r);
/* Answer 503: "busy" with Retry-After: 1 when no read connection came free
 * in time (r->no_reader), else "the database is not available". */
void request_reply_unavailable(struct hl_req *r);

/* Answer body helpers for the core itself. */
void request_reset_answer(struct hl_req *r);
void request_add_header(struct hl_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* End a streamed answer after its handler: the last bytes and the final
 * chunk when `ok`, else the body stays cut short. Frees the encoder. */
void stream_end(struct hl_req *r, int ok);
/* For writers that append to r->out themselves (csv_write.c), around the
 * append. stream_body_open: 1 to append, 0 to skip it (a HEAD answer), or
 * HL_ESTATE / HL_EIO as hl_stream_write says. stream_body_added: after
 * `added` bytes were appended, sends a chunk when one is full; 0, HL_EIO
 * (the client has gone) or HL_ENOMEM. */
int stream_body_open(struct hl_req *r);
int stream_body_added(struct hl_req *r, size_t added);

/* Split the query string into r->query; HL_EINVAL when a part has a bad
 * escape or a NUL (the good parts are kept). */
int request_parse_query(struct hl_req *r);

/* Percent-decode s[0..n) into the arena ('+' as space when `plus`);
 * NULL when the result would hold a NUL byte, bad escapes or bytes that
 * are not UTF-8. */
char *request_decode(struct hl_req *r, const char *s, size_t n, int plus);

#endif
