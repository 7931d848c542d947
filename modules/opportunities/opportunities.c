/* SPDX-License-Identifier: MIT */
/*
 * opportunities.c: the opportunities module: a location's pipelines, their
 * ordered stages and the deals that move along them: its routes,
 * migrations and pages. Every query is scoped by the current location
 * (hl_location_id); "assigned only" users see and
 * touch only the deals they own. Each write publishes an opportunity.*,
 * pipeline.* or stage.* event; a deal's carry its contact, which the
 * contacts module counts as the contact's activity. Its browser pages
 * are the board, a deal's page and a new deal's form (webui/).
 */
#include "opportunities.h"

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

/* The board and the record show contacts' names: a rename drops them. */
/* Each deal's contact, by its id: contacts added keep the answer. */
#define DEAL_READS "opportunities stages pipelines contacts:lookup"

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/opportunities", .handler = opp_board,
	  .cache_ms = 60000, .reads = DEAL_READS },
	{ .method = "GET", .pattern = "/api/opportunities/:id",
	  .record = "opportunity", .record_sql = DEAL_RECORD_SQL,
	  .cache_ms = 60000, .reads = DEAL_READS },
	{ .method = "POST", .pattern = "/api/opportunities", .handler = opp_create },
	{ .method = "PATCH", .pattern = "/api/opportunities/:id", .handler = opp_change },
	{ .method = "DELETE", .pattern = "/api/opportunities/:id", .handler = opp_delete },
	{ .method = "GET", .pattern = "/api/pipelines", .handler = pipelines_list,
	  .cache_ms = 60000, .reads = "pipelines stages" },
	{ .method = "POST", .pattern = "/api/pipelines", .handler = pipelines_create },
	{ .method = "PATCH", .pattern = "/api/pipelines/:id", .handler = pipelines_change },
	{ .method = "DELETE", .pattern = "/api/pipelines/:id", .handler = pipelines_delete },
	{ .method = "POST", .pattern = "/api/pipelines/:id/stages", .handler = stages_create },
	{ .method = "PATCH", .pattern = "/api/stages/:id", .handler = stages_change },
	{ .method = "DELETE", .pattern = "/api/stages/:id", .handler = stages_delete },
};

/* The browser pages (webui/board.js): the board, in the menu, opening
 * with its deals; a deal's page and a new deal's form, reached from it. */
static const char *const board_uses[] = { "board.css", "board-columns.js", "board-moves.js", "board-drag.js",
	"board-keys.js", NULL };

static const struct hl_page pages[] = {
	{ .path = "/opportunities", .script = "board.js", .label = "Opportunities", .order = 30,
	  .data = "/api/opportunities", .uses = board_uses, .search = "search.js" },
	{ .path = "/opportunities/:id", .script = "board.js", .order = 30 },
};

/* What is kept by the sub-account's days, made again when its zone changes
 * (through the migration's moves view, which knows how a day is counted). */
static const struct hl_recount recounts[] = {
	{ "closed_days", "DELETE FROM closed_days WHERE location_id = :location" },
	{ "closed_days", "INSERT INTO closed_day_moves SELECT location_id, status, closed_at, 1,"
	  " value_cents FROM opportunities WHERE location_id = :location"
	  " AND status IN ('won', 'lost') AND closed_at IS NOT NULL" },
};

/* The records people know, as the audit log names them. */
static const struct hl_record_kind records[] = {
	{ .table = "pipelines", .noun = "pipeline",
	  .name_sql = "SELECT name FROM pipelines WHERE id = :id" },
	{ .table = "stages", .noun = "stage", .name_sql = "SELECT name FROM stages WHERE id = :id" },
	{ .table = "opportunities", .noun = "deal",
	  .name_sql = "SELECT name FROM opportunities WHERE id = :id" },
};

HL_MODULE(.name = "opportunities", .version = "0.2.0", .requires = requires,
	  .summary = "pipelines, their stages and deals", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records));
