/* SPDX-License-Identifier: MIT */
/*
 * words.h: the fictional words perf-seed builds its data from. Every name,
 * company and address made from them is invented; domains end in .test,
 * which can never be a real address.
 */
#ifndef SEED_WORDS_H
#define SEED_WORDS_H

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const first_names[] = {
	"Ada", "Aiko", "Alba", "Amir", "Ana", "Anders", "Anna", "Arjun", "Aylin", "Ben", "Bianca",
	"Bruno", "Carla", "Chen", "Chiara", "Dara", "David", "Dmitri", "Elena", "Elif", "Emil",
	"Emma", "Eva", "Farah", "Felix", "Fiona", "Gabriel", "Grace", "Hana", "Hugo", "Ines",
	"Ivan", "Jade", "James", "Jonas", "Julia", "Kai", "Karim", "Lara", "Leon", "Lina", "Luca",
	"Maja", "Malik", "Marta", "Mateo", "Mia", "Nadia", "Nils", "Noah", "Nora", "Omar", "Olga",
	"Paula", "Pedro", "Priya", "Rafael", "Rosa", "Sami", "Sara", "Sofia", "Tariq", "Tom",
	"Uma", "Vera", "Viktor", "Wen", "Yara", "Yusuf", "Zoe",
};

static const char *const last_names[] = {
	"Abara", "Berg", "Castell", "Dahl", "Eberle", "Ferreira", "Gallo", "Hartmann", "Ibarra",
	"Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn",
	"Rossi", "Santos", "Tanaka", "Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zeller", "Alvarez",
	"Brandt", "Costa", "Duarte", "Engel", "Fischer", "Grant", "Holm", "Iversen", "Jovanovic",
	"Keller", "Lopez", "Meyer", "Novak", "Olsen", "Park", "Reyes", "Schmidt", "Torres",
	"Vogel", "Wagner", "Young",
};

static const char *const company_words[] = {
	"Acorn", "Apex", "Aurora", "Beacon", "Birch", "Bright", "Cedar", "Clear", "Cobalt", "Crest",
	"Delta", "Ember", "Evergreen", "Falcon", "Fern", "Golden", "Granite", "Harbor", "Horizon",
	"Iris", "Juniper", "Keystone", "Lantern", "Lumen", "Maple", "Meadow", "Nimbus", "North",
	"Oak", "Orbit", "Pine", "Prism", "Quarry", "Radiant", "River", "Sage", "Silver", "Summit",
	"Tide", "Timber", "Unity", "Vale", "Vertex", "Willow", "Zenith",
};

static const char *const company_kinds[] = {
	"Dental", "Fitness", "Roofing", "Realty", "Law", "Bakery", "Auto", "Spa", "Clinic",
	"Plumbing", "Studio", "Landscaping", "Coffee", "Insurance", "Solar", "Pets", "Salon",
	"Cleaning", "Consulting", "Events",
};

static const char *const sources[] = {
	"website form", "facebook ad", "google ad", "referral", "walk-in", "phone call",
	"instagram", "import", "webinar", "partner",
};

/* Tag names in order of popularity: the first ones carry most contacts. */
static const char *const tag_names[] = {
	"lead", "customer", "newsletter", "hot", "follow-up", "vip", "webinar", "cold", "referral",
	"event-2026", "trial", "churn-risk", "partner", "wholesale", "local", "review-asked",
	"birthday-club", "quote-sent", "no-show", "unsubscribed",
};

static const char *const stage_names[] = {
	"New lead", "Contacted", "Qualified", "Proposal sent", "Negotiation", "Closing",
};
static const int stage_probability[] = { 5, 15, 30, 50, 70, 90 };

static const char *const deal_kinds[] = {
	"Website redesign", "SEO retainer", "Ads management", "Social media package",
	"Email campaign", "Brand refresh", "Video production", "Local listings",
	"Reputation management", "Landing pages",
};

static const char *const channels[] = {
	"sms", "email", "whatsapp", "facebook", "instagram", "webchat", "phone",
};

static const char *const inbound_texts[] = {
	"Hi, is the offer from your ad still available?",
	"Can we move our appointment to Thursday afternoon?",
	"Thanks, got the quote. A few questions about the second option.",
	"What are your opening hours on Saturday?",
	"I filled in the form on your website but heard nothing back yet.",
	"Please send the invoice to our accounts address.",
	"Great work on the last campaign, the numbers look good!",
	"Is there parking near your office?",
	"Could you call me back this afternoon?",
	"We would like to add two more locations to the plan.",
};

static const char *const outbound_texts[] = {
	"Thanks for reaching out! When would suit you for a quick call?",
	"Your appointment is confirmed. See you then.",
	"Here is the quote we talked about; happy to walk you through it.",
	"Just checking in: did you have a chance to look at the proposal?",
	"We open at 9 on Saturdays. Anything else I can help with?",
	"Reminder: your invoice is due at the end of the week.",
	"Thanks for the kind words, we'll keep it up!",
	"Welcome aboard! Your onboarding call is in the calendar.",
};

static const char *const task_titles[] = {
	"Call back", "Send proposal", "Follow up on quote", "Book onboarding call",
	"Ask for a review", "Prepare monthly report", "Check invoice payment", "Update ad budget",
	"Schedule photo shoot", "Confirm appointment",
};

static const char *const invoice_lines[] = {
	"Monthly SEO retainer", "Google Ads management", "Landing page design",
	"Social media content (8 posts)", "Email newsletter setup", "Photography session",
	"Reputation management", "Consulting (hourly)", "Ad spend pass-through", "Setup fee",
};

static const char *const payment_methods[] = { "card", "bank_transfer", "cash", "check", "other" };

static const char *const widget_kinds[] = {
	"contacts_new", "pipeline_value", "deals_won", "messages", "tasks_open", "invoices_due",
};
static const char *const widget_titles[] = {
	"New contacts", "Pipeline value", "Deals won", "Messages", "Open tasks", "Invoices due",
};

static const char *const cities[] = {
	"Springfield", "Riverton", "Lakeside", "Fairview", "Greenville", "Madison", "Clinton",
	"Georgetown", "Salem", "Franklin", "Arlington", "Ashland", "Dover", "Milton", "Oxford",
};

#endif
