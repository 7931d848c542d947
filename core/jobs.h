/* SPDX-License-Identifier: MIT */
/*
 * jobs.h: the tick-job scheduler, one thread that runs the modules' job
 * slices one after the other.
 *
 * A slice runs inside a write transaction on the write connection; its
 * writes and its new cursor commit together, so a crash never loses or
 * repeats a slice's progress. Each job's cursor, run count, failures and
 * last duration live in the job_state table. A slice that fails is rolled
 * back and its job backs off (the period doubles per failure, up to an
 * hour); the first success restores the period. A slice over the budget is
 * logged.
 */
#ifndef HL_JOBS_H
#define HL_JOBS_H

#include "db.h"
#include "module.h"

#define JOB_SLICE_BUDGET_MS 40

struct jobs;

/* Start the thread. Returns 0 or HL_ENOMEM / HL_EIO. */
int jobs_start(struct jobs **out, struct mod_job *list, int n, struct db *db);
/* Finish the running slice and stop the thread (NULL is ignored). */
void jobs_stop(struct jobs *j);

#endif
