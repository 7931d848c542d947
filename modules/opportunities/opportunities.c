/* SPDX-License-Identifier: MIT */
/*
 * opportunities.c: the opportunities module: a location's pipelines, their
 * ordered stages and the deals that move along them: its routes,
 * migrations and pages. Every query is scoped by the current location
 * (hl_location_id); "assigned only" users see and
 * touch only the deals they own. Each write publishes an opportunity.*,
 * pipeline.* or stage.* event; a deal's carry its contact, which the
 * contacts module counts as the contact's activity. Its browser pages
 * are the board, a deal's page and a new deal's form (webui/). A deal
 * has notes and a history of what happened to it (notes.c).
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
	{ .method = "GET", .pattern = "/api/opportunities/:id/notes", .handler = deal_notes_list,
	  .cache_ms = 60000, .reads = "deal_notes opportunities" },
	{ .method = "POST", .pattern = "/api/opportunities/:id/notes", .handler = deal_notes_add },
	{ .method = "DELETE", .pattern = "/api/opportunities/:id/notes/:note", .handler = deal_notes_delete },
	{ .method = "GET", .pattern = "/api/opportunities/:id/history", .handler = deal_history_list,
	  .cache_ms = 60000, .reads = "deal_history opportunities" },
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
	{ .table = "deal_notes", .noun = "note",
	  .name_sql = "SELECT 'on ' || o.name FROM deal_notes n JOIN opportunities o"
		      " ON o.id = n.opportunity_id WHERE n.id = :id" },
};

/* How a deal's events read on its contact's timeline and its history. A
 * line is read when the event is handled, after its request: what may
 * have changed by then (the stage it was made in, the stages it moved
 * between) comes from the event's data, not from the deal. */
#define DEAL_LINE(what) "SELECT 'Deal ' || name || " what ", '/opportunities/' || id" \
	" FROM opportunities WHERE id = :subject AND location_id = :location"
#define STAGE_NAME(which) "(SELECT name FROM stages WHERE id = json_extract(:data, '$." which "'))"

static const struct hl_event_line event_lines[] = {
	{ "opportunity.created", DEAL_LINE("' created in ' || ifnull(" STAGE_NAME("stage")
	  ", 'a stage since deleted')") },
	{ "opportunity.stage_changed", DEAL_LINE("' moved from ' || ifnull(" STAGE_NAME("from")
	  ", 'a stage since deleted') || ' to ' || ifnull(" STAGE_NAME("to") ", 'a stage since deleted')") },
	{ "opportunity.won", DEAL_LINE("' won'") },
	{ "opportunity.lost", DEAL_LINE("' lost'") },
	{ "opportunity.abandoned", DEAL_LINE("' abandoned'") },
	{ "opportunity.reopened", DEAL_LINE("' reopened'") },
	{ "opportunity.note_added", "SELECT 'Note on deal ' || o.name || ': ' || substr(n.body, 1, 300),"
	  " '/opportunities/' || o.id FROM deal_notes n JOIN opportunities o ON o.id = n.opportunity_id"
	  " WHERE n.id = json_extract(:data, '$.note_id') AND n.location_id = :location" },
};

/* A deal's own events, kept as its history (notes.c). */
static const struct hl_event_handler handlers[] = {
	{ .event = "opportunity.*", .handle = history_add },
};

/* What other modules may ask of a deal (lookup.c): the tasks module,
 * linking a task to one. */
static const struct hl_service services[] = {
	{ "opportunities.get", opp_get },
};

HL_MODULE(.name = "opportunities", .version = "0.2.0", .requires = requires,
	  .summary = "pipelines, their stages and deals", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records),
	  .handlers = HL_TABLE(handlers), .event_lines = HL_TABLE(event_lines),
	  .services = HL_TABLE(services));
