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
 * and the writer's guard adds to). The rule of the reader's (hl_csv_field)
 * removal of the guard, and of the writer's guard but for text that is a
 * signed number alone (csv_write.c). */
int csv_formula(const char *s, size_t n);

#endif
