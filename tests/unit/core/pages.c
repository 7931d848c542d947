/* SPDX-License-Identifier: MIT */
/*
 * Tests core/http/pages.c and its door in core/platform/module.c (hl_add_pages_): a
 * table declared with ABI 1.5's element size (no data, no uses), 1.6's
 * (no flags), and a later, bigger one, read field by field; a smaller one
 * refused; each rule of an entry refused with a reason naming the entry;
 * a path another module or the core has refused; nothing left once a failed init is undone; and the
 * menu in order, then load order, then table order.
 */
#include "../../../core/platform/module.c" /* struct hl_mod, undo */
#include "../../../core/http/pages.c"  /* struct pages */

#include "../test.h"

/* The entry as ABI 1.5 declares it. */
struct page_1_5 {
	const char *path, *script, *label;
	enum hl_access access;
	int order;
};

/* The entry as ABI 1.6 declares it: no flags. */
struct page_1_6 {
	const char *path, *script, *label;
	enum hl_access access;
	int order;
	const char *data;
	const char *const *uses;
};

/* An entry of a later minor, with a field this core does not know. */
struct page_later {
	const char *path, *script, *label;
	enum hl_access access;
	int order;
	const char *data;
	const char *const *uses;
	unsigned flags;
	const char *search;
	const char *icon;
};

static struct modules set;

static struct hl_mod *module(const char *name)
{
	struct hl_mod *m = calloc(1, sizeof(*m));
	if (!set.router)
		set.router = router_new(); /* undo removes routes too */
	m->name = strdup(name);
	m->path = strdup(name);
	m->set = &set;
	m->in_init = 1;
	return m;
}

/* Forget a refusal, as the next test's module would start without one. */
static void forget(struct hl_mod *m)
{
	m->failed = 0;
	free(m->reason);
	m->reason = NULL;
}

static void drop(struct hl_mod *m)
{
	undo(m);
	forget(m);
	free(m->name);
	free(m->path);
	free(m);
}

static void test_sizes(void)
{
	struct hl_mod *m = module("alpha");
	static const struct page_1_5 old[] = {
		{ "/old", "old.js", "Old", HL_ACCESS_AGENCY, 7 },
		{ "/old/:id", "old.js", NULL, HL_ACCESS_USER, 8 },
	};
	CHECK_INT(sizeof(old[0]), HL_PAGE_SIZE_1_5);
	CHECK_INT(hl_add_pages_(m, (const void *)old, 2, sizeof(old[0])), 0);
	static const struct page_later later[] = {
		{ "/later", "later.js", "Later", HL_ACCESS_ADMIN, -3, "/api/later", NULL,
		  HL_PAGE_PHONE_HOME, "later-search.js", "star" },
	};
	CHECK_INT(hl_add_pages_(m, (const void *)later, 1, sizeof(later[0])), 0);
	static const struct page_1_6 six[] = {
		{ "/six", "six.js", "Six", HL_ACCESS_USER, 6, "/api/six", NULL },
	};
	CHECK_INT(hl_add_pages_(m, (const void *)six, 1, sizeof(six[0])), 0);
	CHECK_INT(m->npages, 4);
	CHECK_INT(m->pages[2].flags, HL_PAGE_PHONE_HOME);
	CHECK_STR(m->pages[3].data, "/api/six");
	CHECK_INT(m->pages[3].flags, 0); /* 1.6's: none */
	CHECK_STR(m->pages[0].path, "/old");
	CHECK_STR(m->pages[0].label, "Old");
	CHECK_INT(m->pages[0].access, HL_ACCESS_AGENCY);
	CHECK_INT(m->pages[1].order, 8);
	CHECK(m->pages[1].label == NULL);
	CHECK_STR(m->pages[2].script, "later.js");
	CHECK_INT(m->pages[2].access, HL_ACCESS_ADMIN);
	CHECK_INT(m->pages[2].order, -3);
	CHECK_STR(m->pages[2].data, "/api/later");
	CHECK_STR(m->pages[2].search, "later-search.js");
	CHECK(m->pages[0].data == NULL && m->pages[0].uses == NULL); /* 1.5's: none */
	CHECK_INT(m->failed, 0);

	/* Smaller than ABI 1.5's entry: the module is refused. */
	CHECK_INT(hl_add_pages_(m, (const void *)old, 1, HL_PAGE_SIZE_1_5 - sizeof(int)), HL_EABI);
	CHECK_INT(m->failed, HL_EABI);
	CHECK_INT(m->npages, 4);
	drop(m);

	/* Outside init. */
	m = module("alpha");
	m->in_init = 0;
	CHECK_INT(hl_add_pages_(m, (const void *)old, 2, sizeof(old[0])), HL_ESTATE);
	CHECK_INT(m->npages, 0);
	drop(m);
}

/* Register a table of `good` then `bad`; the reason the module is refused. */
static const char *refused(struct hl_mod *m, struct hl_page bad, int want)
{
	struct hl_page t[2] = { { .path = "/fine", .script = "fine.js" }, bad };
	forget(m);
	undo(m);
	CHECK_INT(hl_add_pages(m, t), want);
	CHECK_INT(m->failed, want);
	CHECK_INT(m->npages, 1); /* the good one, until undo */
	return m->reason ? m->reason : "";
}

#define REFUSED(...) refused(m, (struct hl_page){ __VA_ARGS__ }, HL_EINVAL)

static void test_rules(void)
{
	struct hl_mod *m = module("alpha");
	char label[80];
	CHECK(strstr(REFUSED(.script = "x.js"), "page 2 (no path): a page needs a path"));
	CHECK(strstr(REFUSED(.path = "x", .script = "x.js"), "page 2 (x): pattern must start"));
	CHECK(strstr(REFUSED(.path = "/a//b", .script = "x.js"), "page 2 (/a//b): pattern has an empty"));
	CHECK(strstr(REFUSED(.path = "/a/:Id", .script = "x.js"), "parameter names"));
	CHECK(strstr(REFUSED(.path = "/a?b", .script = "x.js"), "'%' or '?'"));
	static const char *const scripts[] = { NULL, "", ".js", "../x.js", "/x.js", "x/y.js",
		"x..js", ".x.js", "x.mjs", "x.js ", "x y.js", "x.JS", "x%2e.js" };
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		const char *why = REFUSED(.path = "/a", .script = scripts[i]);
		if (!strstr(why, "page 2 (/a): the script must be"))
			printf("script %s: %s\n", scripts[i] ? scripts[i] : "NULL", why);
		CHECK(strstr(why, "page 2 (/a): the script must be"));
	}
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .label = ""), "the label must be"));
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .label = "bad \xff"), "the label must be"));
	memset(label, 'l', 65);
	label[65] = '\0';
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .label = label), "the label must be"));
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .access = (enum hl_access)99),
		     "the access is not"));
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .access = (enum hl_access)-1),
		     "the access is not"));
	static const char *const datas[] = { "", "/api", "api/x", "/x/api/y", "/api/../x",
		"/api/x?y=1", "/api/x y", "/api/\"x" };
	for (size_t i = 0; i < sizeof(datas) / sizeof(datas[0]); i++)
		CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .data = datas[i]), "the data must be"));
	static const char *const bad_uses[][3] = { { "" }, { "x.mjs" }, { "../x.css" }, { "//x.js" },
		{ "x/y.css" }, { "x.css", ".y.js" } };
	for (size_t i = 0; i < sizeof(bad_uses) / sizeof(bad_uses[0]); i++)
		CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .uses = bad_uses[i]), "uses must list"));
	static const char *const nine[] = { "1.js", "2.js", "3.js", "4.js", "5.js", "6.js", "7.js",
		"8.js", "9.js", NULL };
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .uses = nine), "uses must list"));
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .label = "A", .flags = 4), "the flags are"));
	CHECK(strstr(REFUSED(.path = "/a", .script = "x.js", .flags = HL_PAGE_PHONE_HOME),
		     "the phone's home page needs a menu entry"));
	CHECK(strstr(REFUSED(.path = "/a/:id", .script = "x.js", .label = "A", .flags = HL_PAGE_PHONE_HOME),
		     "the phone's home page needs a menu entry"));

	/* What the rules let through. */
	forget(m);
	undo(m);
	label[64] = '\0'; /* 64 characters */
	static const char *const uses[] = { "a.css", "/chart.js", "/b-c_d.1.css", "2.js", "3.js",
		"4.js", "5.js", "6.js", NULL };
	struct hl_page fine[] = {
		{ .path = "/", .script = "home.js" },
		{ .path = "/a-b/c_d.e/:id/x", .script = "Page_1.0-beta.js", .label = label,
		  .data = "/api/a-b/c_d.e/:id", .uses = uses },
		{ .path = "/z", .script = "z.js", .label = "Ünïcode ☃", .access = HL_ACCESS_PUBLIC },
	};
	CHECK_INT(hl_add_pages(m, fine), 0);
	CHECK_INT(m->npages, 3);
	drop(m);
}

static void test_taken_paths(void)
{
	set.order = calloc(4, sizeof(*set.order));
	struct hl_mod *a = module("alpha"), *b = module("beta");
	struct hl_page mine[] = { { .path = "/contacts/:id", .script = "c.js" } };
	CHECK_INT(hl_add_pages(a, mine), 0);
	a->in_init = 0;
	set.order[set.norder++] = a;

	refused(b, (struct hl_page){ .path = "/contacts/:x", .script = "x.js" }, HL_EEXIST);
	CHECK(strstr(b->reason, "page 2 (/contacts/:x): module 'alpha' has a page there"));
	refused(b, (struct hl_page){ .path = "/system", .script = "x.js" }, HL_EEXIST);
	CHECK(strstr(b->reason, "module 'core' has a page there"));
	refused(b, (struct hl_page){ .path = "/fine", .script = "x.js" }, HL_EEXIST); /* its own */
	CHECK(strstr(b->reason, "module 'beta' has a page there"));

	/* Other shapes are other places. */
	forget(b);
	undo(b);
	struct hl_page near[] = { { .path = "/contacts", .script = "x.js" },
				  { .path = "/contacts/new", .script = "x.js" },
				  { .path = "/contacts/:id/notes", .script = "x.js" } };
	CHECK_INT(hl_add_pages(b, near), 0);

	/* A failed init leaves nothing behind. */
	undo(b);
	CHECK_INT(b->npages, 0);
	CHECK(b->pages == NULL);
	CHECK_INT(hl_add_pages(b, mine), HL_EEXIST);
	drop(b);
	set.norder = 0;
	drop(a);
	free(set.order);
	set.order = NULL;
}

static void test_same_path(void)
{
	CHECK(page_same_path("/a/:id", "/a/:x"));
	CHECK(page_same_path("/", "/"));
	CHECK(!page_same_path("/a", "/a/:id"));
	CHECK(!page_same_path("/a/:id", "/a"));
	CHECK(!page_same_path("/a/b", "/a/:b"));
	CHECK(!page_same_path("/ab", "/a"));
}

static void test_menu_order(void)
{
	set.order = calloc(4, sizeof(*set.order));
	struct hl_mod *a = module("alpha"), *b = module("beta");
	struct hl_page ta[] = {
		{ .path = "/a1", .script = "a1.js", .label = "A1", .order = 20 },
		{ .path = "/a2", .script = "a2.js", .order = 10 },
		{ .path = "/a3", .script = "a3.js", .order = 20 },
	};
	struct hl_page tb[] = {
		{ .path = "/b1", .script = "b1.js", .order = 20 },
		{ .path = "/b0", .script = "b0.js", .order = 5, .access = HL_ACCESS_AGENCY },
		{ .path = "/b9", .script = "b9.js", .order = 90 },
	};
	CHECK_INT(hl_add_pages(a, ta), 0);
	set.order[set.norder++] = a;
	CHECK_INT(hl_add_pages(b, tb), 0);
	set.order[set.norder++] = b;
	struct pages *menu = NULL;
	CHECK_INT(pages_load(&menu, &set, NULL), 0);
	static const char *const want[][3] = {
		{ "beta", "/b0", "/modules/beta/b0.js" },   { "alpha", "/a2", "/modules/alpha/a2.js" },
		{ "alpha", "/a1", "/modules/alpha/a1.js" }, { "alpha", "/a3", "/modules/alpha/a3.js" },
		{ "beta", "/b1", "/modules/beta/b1.js" },   { "core", "/system", "/system.js" },
		{ "beta", "/b9", "/modules/beta/b9.js" },   { "core", "/settings", "/settings.js" },
	};
	CHECK_INT(menu ? menu->n : -1, 8);
	for (int i = 0; menu && i < menu->n && i < 8; i++) {
		CHECK_STR(menu->e[i].module, want[i][0]);
		CHECK_STR(menu->e[i].path, want[i][1]);
		CHECK_STR(menu->e[i].script, want[i][2]);
	}
	if (menu && menu->n == 8) {
		CHECK_INT(menu->e[0].access, HL_ACCESS_AGENCY);
		CHECK_STR(menu->e[2].label, "A1");
		CHECK(menu->e[1].label == NULL);
		CHECK_STR(menu->e[5].label, "System");
		CHECK_INT(menu->e[5].access, HL_ACCESS_ADMIN);
		CHECK_STR(menu->e[7].label, "Settings");
		CHECK_INT(menu->e[7].access, HL_ACCESS_USER);
	}
	pages_free(menu);
	set.norder = 0;
	drop(a);
	drop(b);
	free(set.order);
	set.order = NULL;
}

static void release(void)
{
	router_free(set.router);
	set.router = NULL;
}

TEST_MAIN(test_sizes, test_rules, test_taken_paths, test_same_path, test_menu_order, release)
