/* SPDX-License-Identifier: MIT */
/*
 * settings.c: a sub-account's invoice settings (migration 008's
 * invoice_settings): the business its invoices come from when it is not
 * the agency, and the notes and terms a new invoice starts with. Every
 * user reads them (the form starts from them); its admins change them.
 */
#include "invoices.h"

#include <string.h>

static const struct field {
	const char *key;
	size_t max;
} fields[] = {
	{ "business_name", 200 }, { "address", ADDRESS_MAX }, { "email", 200 },
	{ "phone", 50 }, { "tax_id", 50 }, { "notes", NOTE_MAX }, { "terms", NOTE_MAX },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int answer(struct hl_req *req, int status)
{
	/* the agency's, for what a sub-account without its own prints */
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT coalesce(s.business_name, '') AS business_name,"
		" coalesce(s.address, '') AS address, coalesce(s.email, '') AS email,"
		" coalesce(s.phone, '') AS phone, coalesce(s.tax_id, '') AS tax_id,"
		" coalesce(s.notes, '') AS notes, coalesce(s.terms, '') AS terms,"
		" '/api/logos/' || sl.key AS logo_url,"
		" json_object('name', a.name, 'address', a.address, 'email', a.email, 'phone', a.phone,"
		"  'tax_id', a.tax_id, 'logo_url', '/api/logos/' || g.key) AS json_agency"
		" FROM locations lo JOIN agencies a ON a.id = lo.agency_id"
		" LEFT JOIN agency_logos g ON g.agency_id = a.id"
		" LEFT JOIN invoice_settings s ON s.location_id = lo.id"
		" LEFT JOIN location_logos sl ON sl.location_id = lo.id WHERE lo.id = :location");
	return hl_reply_row(req, status, st, "sub-account");
}

/* GET /api/invoice-settings: {"business_name", "address", "email",
 * "phone", "tax_id", "notes", "terms", "logo_url" (the sub-account's own,
 * which the core keeps: PUT /api/location/logo), "agency": {...}}. */
int invoices_settings_get(struct hl_req *req)
{
	return answer(req, 200);
}

/* PUT /api/invoice-settings: every member, each text ("" for none). */
int invoices_settings_put(struct hl_req *req)
{
	static const char *const keys[] = { "business_name", "address", "email", "phone", "tax_id",
					    "notes", "terms", NULL };
	const char *v[NFIELDS];
	int rc = hl_fields_only(req, 0, keys);
	for (size_t i = 0; rc >= 0 && i < NFIELDS; i++)
		if ((rc = hl_field_text(req, 0, fields[i].key, fields[i].max, &v[i])) != HL_FIELD_SET)
			v[i] = "";
	if (rc < 0)
		return rc;
	if (*v[2] && !hl_is_email(v[2]))
		return hl_reply_invalid(req, "email", "an e-mail address, like billing@example.com");
	if (!*v[0] && (*v[1] || *v[2] || *v[3] || *v[4]))
		return hl_reply_invalid(req, "business_name", "the name of the business these details"
					" are of (without one, invoices show the agency's)");
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO invoice_settings (location_id,"
		" business_name, address, email, phone, tax_id, notes, terms) VALUES (:location,"
		" :business_name, :address, :email, :phone, :tax_id, :notes, :terms)"
		" ON CONFLICT (location_id) DO UPDATE SET business_name = excluded.business_name,"
		" address = excluded.address, email = excluded.email, phone = excluded.phone,"
		" tax_id = excluded.tax_id, notes = excluded.notes, terms = excluded.terms");
	for (size_t i = 0; i < NFIELDS; i++)
		hl_bind_text(st, hl_sprintf(req, ":%s", fields[i].key), v[i]);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return answer(req, 200);
}
