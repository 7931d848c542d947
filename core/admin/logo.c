/* SPDX-License-Identifier: MIT */
/*
 * logo.c: the logos invoices (their public pages and PDFs) show: the
 * agency's, which an agency admin uploads (PUT /api/admin/agency/logo,
 * the image as the body) or takes away (DELETE), and a sub-account's own,
 * which its admins upload the same way (PUT /api/location/logo, for the
 * current sub-account). Anyone may fetch one by its key (GET
 * /api/logos/:key), since a client opens an invoice without signing in. Only PNG, JPEG and WebP are taken, told by their
 * first bytes whatever the upload calls itself: an SVG may carry script
 * and is refused rather than cleaned. Its size in pixels, read from its
 * header, is at most LOGO_MAX_PX a side: a small file may unpack to an
 * image too large to draw (a PDF decodes a PNG whole). Each upload gets
 * a new random key, so an address names one image for good and is cached for a year.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "request/request.h"
#include "request/router.h"

#include <sodium.h>
#include <stdint.h>
#include <string.h>

#define LOGO_MAX_KB 512
#define LOGO_MAX_PX 4096
#define IMMUTABLE "public, max-age=31536000, immutable"

static int put_agency_logo(struct hl_req *req);
static int delete_agency_logo(struct hl_req *req);
static int put_location_logo(struct hl_req *req);
static int delete_location_logo(struct hl_req *req);
static int get_logo(struct hl_req *req);

static const struct hl_route routes[] = {
	{ .method = "PUT", .pattern = "/api/admin/agency/logo", .handler = put_agency_logo,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION | HL_ROUTE_RAW_BODY,
	  .max_body_kb = LOGO_MAX_KB },
	{ .method = "DELETE", .pattern = "/api/admin/agency/logo", .handler = delete_agency_logo,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "PUT", .pattern = "/api/location/logo", .handler = put_location_logo,
	  .access = HL_ACCESS_LOCATION_ADMIN, .flags = HL_ROUTE_RAW_BODY, .max_body_kb = LOGO_MAX_KB },
	{ .method = "DELETE", .pattern = "/api/location/logo", .handler = delete_location_logo,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/logos/:key", .handler = get_logo,
	  .access = HL_ACCESS_PUBLIC },
};

int logo_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* The image type its first bytes say, or NULL for anything else. */
static const char *image_type(const unsigned char *b, size_t len)
{
	if (len >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (len >= 3 && !memcmp(b, "\xff\xd8\xff", 3))
		return "image/jpeg";
	if (len >= 12 && !memcmp(b, "RIFF", 4) && !memcmp(b + 8, "WEBP", 4))
		return "image/webp";
	return NULL;
}

static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t le24(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
}

/* A JPEG's size, from its frame header (SOF0..SOF15 but DHT, JPG, DAC),
 * walking the segments before it: 0, or -1 when there is none. */
static int jpeg_size(const unsigned char *b, size_t len, uint32_t *w, uint32_t *h)
{
	size_t i = 2;
	while (i + 4 <= len) {
		if (b[i] != 0xff)
			return -1;
		unsigned m = b[i + 1];
		if (m == 0xff) { /* a fill byte */
			i++;
			continue;
		}
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd8)) { /* markers without a length */
			i += 2;
			continue;
		}
		size_t seg = (size_t)b[i + 2] << 8 | b[i + 3];
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
			if (seg < 7 || i + 9 > len)
				return -1;
			*h = (uint32_t)b[i + 5] << 8 | b[i + 6];
			*w = (uint32_t)b[i + 7] << 8 | b[i + 8];
			return 0;
		}
		if (m == 0xd9 || m == 0xda || seg < 2) /* the image ends, or its data starts */
			return -1;
		i += 2 + seg;
	}
	return -1;
}

/* A WebP's size, from its first chunk: the canvas of an extended one
 * (VP8X), else the frame of a lossy (VP8) or lossless (VP8L) one. */
static int webp_size(const unsigned char *b, size_t len, uint32_t *w, uint32_t *h)
{
	if (len >= 30 && !memcmp(b + 12, "VP8X", 4)) {
		*w = le24(b + 24) + 1, *h = le24(b + 27) + 1;
		return 0;
	}
	if (len >= 30 && !memcmp(b + 12, "VP8 ", 4) && !memcmp(b + 23, "\x9d\x01\x2a", 3)) {
		*w = ((uint32_t)b[26] | (uint32_t)b[27] << 8) & 0x3fff;
		*h = ((uint32_t)b[28] | (uint32_t)b[29] << 8) & 0x3fff;
		return 0;
	}
	if (len >= 25 && !memcmp(b + 12, "VP8L", 4) && b[20] == 0x2f) {
		uint32_t bits = le24(b + 21) | (uint32_t)b[24] << 24;
		*w = (bits & 0x3fff) + 1, *h = (bits >> 14 & 0x3fff) + 1;
		return 0;
	}
	return -1;
}

/* The image's width and height in pixels, from its header: 0, or -1 when
 * the header cannot be read. */
static int image_size(const char *type, const unsigned char *b, size_t len, uint32_t *w,
		      uint32_t *h)
{
	if (!strcmp(type, "image/png")) {
		if (len < 24 || memcmp(b + 12, "IHDR", 4))
			return -1;
		*w = be32(b + 16), *h = be32(b + 20);
		return 0;
	}
	return !strcmp(type, "image/jpeg") ? jpeg_size(b, len, w, h) : webp_size(b, len, w, h);
}

static int answer_key(struct hl_req *req, const char *key)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "logo_url");
	if (key)
		hl_json_string(j, hl_sprintf(req, "/api/logos/%s", key));
	else
		hl_json_null(j);
	hl_json_object_end(j);
	return 0;
}

/* Whose logo a route changes: the agency's (the caller's) or the current
 * sub-account's, in its own table. */
struct owner {
	const char *table, *column, *entity;
	int64_t id;
};

static struct owner agency_of(struct hl_req *req)
{
	return (struct owner){ "agency_logos", "agency_id", "agency", req->who.agency_id };
}

static struct owner location_of(struct hl_req *req)
{
	return (struct owner){ "location_logos", "location_id", "location", hl_location_id(req) };
}

/* PUT: 200 {"logo_url"}. */
static int put_logo(struct hl_req *req, struct owner o)
{
	size_t len;
	const unsigned char *body = (const unsigned char *)hl_body(req, &len);
	const char *type = image_type(body, len);
	if (!len)
		return hl_reply_error(req, 422, "validation", "logo: the body is the image, and it is empty");
	if (len > LOGO_MAX_KB * 1024)
		return hl_reply_error(req, 413, "too_large", "logo: an image of at most %d KB",
				      LOGO_MAX_KB);
	if (!type)
		return hl_reply_error(req, 415, "unsupported_media_type", "logo: a PNG, JPEG or WebP"
				      " image (an SVG is not taken: save it as PNG)");
	uint32_t w, h;
	if (image_size(type, body, len, &w, &h))
		return hl_reply_error(req, 422, "validation", "logo: the image's size cannot be read:"
				      " the file is damaged, or not a whole image");
	if (!w || !h || w > LOGO_MAX_PX || h > LOGO_MAX_PX)
		return hl_reply_error(req, 422, "validation", "logo: an image of at most %d x %d"
				      " pixels (this one is %u x %u): make it smaller", LOGO_MAX_PX,
				      LOGO_MAX_PX, (unsigned)w, (unsigned)h);
	unsigned char raw[16];
	char key[sizeof(raw) * 2 + 1];
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(key, sizeof(key), raw, sizeof(raw));
	/* table and column are the literals of agency_of and location_of */
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), hl_sprintf(req, "INSERT INTO %s (%s, key,"
		" content_type, content) VALUES (:owner, :key, :type, :content)"
		" ON CONFLICT (%s) DO UPDATE SET key = excluded.key,"
		" content_type = excluded.content_type, content = excluded.content,"
		" updated_at = strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', 'now')", o.table, o.column, o.column));
	hl_bind_int(st, ":owner", o.id);
	hl_bind_text(st, ":key", key);
	hl_bind_text(st, ":type", type);
	hl_bind_blob(st, ":content", body, len);
	if (hl_step_changes(st) < 0 ||
	    audit_note(req, 0, hl_sprintf(req, "%s.logo_changed", o.entity), o.entity, o.id))
		return HL_EDB;
	return answer_key(req, key);
}

/* DELETE: 200 {"logo_url": null}, whether there was one or not. */
static int delete_logo(struct hl_req *req, struct owner o)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), hl_sprintf(req, "DELETE FROM %s"
				   " WHERE %s = :owner", o.table, o.column));
	hl_bind_int(st, ":owner", o.id);
	int64_t gone = hl_step_changes(st);
	if (gone < 0 ||
	    (gone && audit_note(req, 0, hl_sprintf(req, "%s.logo_removed", o.entity), o.entity, o.id)))
		return HL_EDB;
	return answer_key(req, NULL);
}

static int put_agency_logo(struct hl_req *req)
{
	return put_logo(req, agency_of(req));
}

static int delete_agency_logo(struct hl_req *req)
{
	return delete_logo(req, agency_of(req));
}

static int put_location_logo(struct hl_req *req)
{
	return put_logo(req, location_of(req));
}

static int delete_location_logo(struct hl_req *req)
{
	return delete_logo(req, location_of(req));
}

/* GET /api/logos/:key: the image, for a year. The key is random (32 hex
 * digits): it says nothing of the agency and cannot be guessed. */
static int get_logo(struct hl_req *req)
{
	const char *key = hl_param(req, "key");
	if (!key || strlen(key) != 32 || strspn(key, "0123456789abcdef") != 32)
		return hl_reply_error(req, 404, "not_found", "no such logo");
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT content_type, content FROM agency_logos"
				   " WHERE key = :key UNION ALL SELECT content_type, content"
				   " FROM location_logos WHERE key = :key");
	hl_bind_text(st, ":key", key);
	if (!st)
		return HL_EDB;
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		sqlite3_reset(st);
		return step == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such logo") : HL_EDB;
	}
	/* the type is one of the table's CHECK, literals that outlive us */
	const char *type = (const char *)sqlite3_column_text(st, 0);
	type = !strcmp(type, "image/png") ? "image/png" : !strcmp(type, "image/jpeg") ? "image/jpeg"
										: "image/webp";
	int rc = hl_reply_raw(req, 200, type, sqlite3_column_blob(st, 1),
			      (size_t)sqlite3_column_bytes(st, 1));
	sqlite3_reset(st);
	req->cache_control = IMMUTABLE;
	return rc;
}
