/* SPDX-License-Identifier: MIT */
/*
 * markdown.c: an e-mail written in the app, as its reader sees it. Its
 * body is Markdown (the email module sends it as text and as cmark's
 * HTML); the thread shows the same HTML (messages.html) and the inbox's
 * preview its words, both read from cmark's one parse of it, so that
 * neither shows "**" where the reader sees bold.
 */
#include "conversations.h"

#include <cmark.h>
#include <stdlib.h>
#include <string.h>

/* cmark's options as the email module renders: a line break is a break;
 * raw HTML and unsafe links are left out (cmark's default). */
#define OPTIONS CMARK_OPT_HARDBREAKS

/* The text a node adds to the words, or NULL: its literal, a space for a
 * break, and one after each block that ends. */
static const char *words_of(cmark_node *node, cmark_event_type ev)
{
	switch (cmark_node_get_type(node)) {
	case CMARK_NODE_TEXT:
	case CMARK_NODE_CODE:
	case CMARK_NODE_CODE_BLOCK:
		return ev == CMARK_EVENT_ENTER ? cmark_node_get_literal(node) : NULL;
	case CMARK_NODE_SOFTBREAK:
	case CMARK_NODE_LINEBREAK:
		return " ";
	case CMARK_NODE_PARAGRAPH:
	case CMARK_NODE_HEADING:
		return ev == CMARK_EVENT_EXIT ? " " : NULL;
	default:
		return NULL;
	}
}

/* The words of `doc` on one line, in the arena; `size` bytes at most
 * (the source's length: its words are never longer). */
static const char *words(struct hl_req *req, cmark_node *doc, size_t size)
{
	char *out = hl_alloc(req, size + 1);
	size_t n = 0;
	cmark_iter *it = cmark_iter_new(doc);
	for (cmark_event_type ev; it && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
		const char *w = words_of(cmark_iter_get_node(it), ev);
		for (; w && *w && n < size; w++) {
			char c = *w == '\n' || *w == '\t' ? ' ' : *w;
			if (c != ' ' || (n && out[n - 1] != ' '))
				out[n++] = c;
		}
	}
	cmark_iter_free(it);
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

int conv_render(struct hl_req *req, const char *channel, const char *body,
		struct conv_rendering *out)
{
	out->html = out->words = NULL;
	if (strcmp(channel, "email"))
		return 0;
	size_t len = strlen(body);
	cmark_node *doc = cmark_parse_document(body, len, OPTIONS);
	char *html = doc ? cmark_render_html(doc, OPTIONS) : NULL;
	if (html) {
		out->html = hl_strndup(req, html, strlen(html));
		out->words = words(req, doc, len);
	}
	free(html);
	cmark_node_free(doc);
	return html ? 0 : HL_ENOMEM;
}
