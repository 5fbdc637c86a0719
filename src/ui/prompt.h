/* The prompt on the message line: ':' for commands, '/' for a search. Line editing, a bounded
 * history shared by both (Up and Down recall the lines of the same prompt), and Tab completion
 * of :-command and action names. */
#ifndef TL_UI_PROMPT_H
#define TL_UI_PROMPT_H
#include <stddef.h>

typedef struct tl_ui tl_ui;

typedef struct ui_prompt {
	int active;
	char ch; /* ':' or '/' */
	char buf[512];
	size_t len;
	char **hist; /* "<ch><line>", oldest first */
	size_t nhist, hcap, hpos;
} ui_prompt;

/* Opens the prompt with ch and initial text. */
void prompt_start(tl_ui *, char ch, const char *text);
/* Edits the line with a key. Returns 1 when the line was entered (Enter): the prompt is closed
 * and the line (without ch) is in line. */
int prompt_key(tl_ui *, int key, char *line, size_t len);
void prompt_free(ui_prompt *);

#endif
