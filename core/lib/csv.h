/* SPDX-License-Identifier: MIT */
/*
 * csv.h: what the CSV reader (csv.c, the public hl_csv_* API) shares with
 * the writer (request/csv_write.c): the rule for text a spreadsheet would
 * run as a formula.
 */
#ifndef HL_CSV_H
#define HL_CSV_H

#include <stddef.h>

/* Whether s[0..n) is text a spreadsheet would run as a formula: =, +, -,
 * @, TAB or CR first, perhaps after a run of ' (which a spreadsheet hides
 * and the writer's guard adds to). The one rule of the writer's guard and
 * the reader's (hl_csv_field) removal of it. */
int csv_formula(const char *s, size_t n);

#endif
