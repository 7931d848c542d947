/* SPDX-License-Identifier: MIT */
/*
 * mobile.h: the mobile module's parts. mobile.c registers them;
 * counters.c answers the home screen's counters of the current location
 * and of each sub-account the user may open; inbox.c the newest
 * conversations of all of them merged; deals.c the user's open deals by
 * stage.
 *
 * Answers hold only what the phone shows. The user's sub-accounts are
 * those of the core's location_users view (MY_LOCATIONS); reading them
 * all is one statement, never one per sub-account.
 */
#ifndef MOBILE_H
#define MOBILE_H

#include <hyperlevel/hyperlevel.h>


/* The sub-accounts the caller (:user) may open, disabled ones left out. */
#define MY_LOCATIONS \
	"(SELECT lu.location_id FROM location_users lu JOIN locations l ON l.id = lu.location_id" \
	" WHERE lu.user_id = :user AND l.disabled_at IS NULL)"

int mobile_summary(struct hl_req *req);   /* counters.c */
int mobile_projects(struct hl_req *req);
int mobile_inbox(struct hl_req *req);     /* inbox.c */
int mobile_deals(struct hl_req *req);     /* deals.c */

#endif
