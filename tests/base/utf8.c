/*
 * tests/base/utf8.c - the one UTF-8 check (base/utf8.h) and its two
 * users: the IR's escaping of names (ir_escape_ctl) and the manager's
 * JSON strings (pm_json_str) keep and escape the same byte sequences.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/utf8.h"
#include "model/internal.h"
#include "manager/jsonstr.h"
#include "../lib/tap.h"

struct seq {
	const char *bytes, *what;
	size_t len;		/* base_utf8_len's answer */
	unsigned cp;
};

static const struct seq seqs[] = {
	{ "a", "ASCII", 1, 'a' },
	{ "\x1b", "ESC (a control is one ASCII byte)", 1, 0x1b },
	{ "\xc3\xa9", "U+00E9", 2, 0xe9 },
	{ "\xc2\x85", "U+0085 (C1 NEL)", 2, 0x85 },
	{ "\xe2\x82\xac", "U+20AC", 3, 0x20ac },
	{ "\xf0\x9f\x98\x80", "U+1F600", 4, 0x1f600 },
	{ "\xf4\x8f\xbf\xbf", "U+10FFFF", 4, 0x10ffff },
	{ "\x80", "a stray continuation byte", 0, 0 },
	{ "\xc0\xaf", "overlong '/' (C0)", 0, 0 },
	{ "\xc1\xbf", "overlong (C1 lead)", 0, 0 },
	{ "\xe0\x80\xaf", "overlong in three bytes", 0, 0 },
	{ "\xf0\x80\x80\xaf", "overlong in four bytes", 0, 0 },
	{ "\xed\xa0\x80", "a surrogate (U+D800)", 0, 0 },
	{ "\xf4\x90\x80\x80", "above U+10FFFF", 0, 0 },
	{ "\xf5\x80\x80\x80", "lead byte F5", 0, 0 },
	{ "\xe2\x82", "cut short by the NUL", 0, 0 },
	{ "\xe2\x82" "a", "cut short by ASCII", 0, 0 },
};

/* pm_json_str's output for s, without the quotes (static buffer:
 * this test's own). */
static const char *json(const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t n;

	if (!f)
		return "";
	pm_json_str(f, s);
	fclose(f);
	n = strlen(buf);
	if (n >= 2) {
		buf[n - 1] = 0;
		return buf + 1;
	}
	return buf;
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		const struct seq *q = &seqs[i];
		unsigned cp = 0;
		size_t n = base_utf8_len(q->bytes, &cp);
		char esc[64];
		const char *j;
		int shown, kept;

		tap_ok(n == q->len && (!n || cp == q->cp),
		       "base_utf8_len: %s: %zu (U+%04X)", q->what, n, cp);
		/* The IR shows a well-formed character that is not a
		 * control as is, and escapes every other byte as \xNN. */
		ir_escape_ctl(esc, sizeof(esc), q->bytes);
		shown = !strcmp(esc, q->bytes);
		tap_ok(shown == (n > 0 && cp >= 0x20 && cp != 0x7f &&
				 !(cp >= 0x80 && cp <= 0x9f)),
		       "ir_escape_ctl %s %s", shown ? "keeps" : "escapes",
		       q->what);
		/* JSON copies every well-formed non-ASCII character and
		 * writes a byte that is not one as a lone surrogate. */
		j = json(q->bytes);
		kept = !strcmp(j, q->bytes);
		if (n > 1 || (n == 1 && cp >= 0x20))
			tap_ok(kept, "pm_json_str copies %s", q->what);
		else if (n == 1)
			tap_ok(!strcmp(j, "\\u001b"), "pm_json_str escapes %s",
			       q->what);
		else
			tap_ok(!strncmp(j, "\\udc", 4),
			       "pm_json_str writes %s as \\udcXX: %s", q->what,
			       j);
	}
	return tap_done();
}
