/* Colour slots and themes. A theme file names a style per slot (themes/NAME.theme, tl-theme(5));
 * the default theme is compiled in and every other theme is read on top of it. */
#ifndef TL_THEME_H
#define TL_THEME_H
#include <stddef.h>
#include <stdint.h>

#include "util/confpath.h"

/* X(enum, name in theme files, character in :dump-attrs) */
#define TL_SLOTS(X)                                                                                \
	X(NORMAL, "normal", '.')                                                                   \
	X(RULER, "ruler", 'r')                                                                     \
	X(STATUS, "status", 's')                                                                   \
	X(MESSAGE, "message", 'g')                                                                 \
	X(ERROR, "error", 'E')                                                                     \
	X(TITLE, "title", 'T')                                                                     \
	X(LABEL, "label", 'l')                                                                     \
	X(LABEL_CURRENT, "label.current", 'L')                                                     \
	X(RANK, "rank", 'R')                                                                       \
	X(CURSOR, "cursor", 'C')                                                                   \
	X(SELECTION, "selection", 'S')                                                             \
	X(MATCH, "match", 'M')                                                                     \
	X(MARK, "mark", 'K')                                                                       \
	X(FREE, "free", 'f')                                                                       \
	X(COMPUTE, "compute", 'c')                                                                 \
	X(COMM, "comm", 'm')                                                                       \
	X(COMM_EXPOSED, "comm.exposed", 'x')                                                       \
	X(COMM_TASK, "comm.task", 'n')                                                             \
	X(MEMCPY, "memcpy", 'y')                                                                   \
	X(MSTX, "mstx", 't')                                                                       \
	X(STEP, "step", 'p')                                                                       \
	X(OTHER, "other", 'o')                                                                     \
	X(HOST, "host", 'h')                                                                       \
	X(STAGE, "stage", '0')                                                                     \
	X(STAGE_ROLLOUT, "stage.rollout", '1')                                                     \
	X(STAGE_REWARD, "stage.reward", '2')                                                       \
	X(STAGE_REF, "stage.ref_logprob", '3')                                                     \
	X(STAGE_OLD, "stage.actor_logprob", '4')                                                   \
	X(STAGE_VALUES, "stage.values", '5')                                                       \
	X(STAGE_ADV, "stage.advantage", '6')                                                       \
	X(STAGE_ACTOR, "stage.actor_update", '7')                                                  \
	X(STAGE_CRITIC, "stage.critic_update", '8')                                                \
	X(STAGE_WEIGHTS, "stage.weight_sync", '9')                                                 \
	X(DETAIL, "detail", 'd')                                                                   \
	X(DETAIL_KEY, "detail.key", 'k')                                                           \
	X(PP_FORWARD, "pp.forward", 'F')                                                           \
	X(PP_BACKWARD, "pp.backward", 'B')                                                         \
	X(DIFF_LONGER, "diff.longer", 'G')                                                         \
	X(DIFF_SHORTER, "diff.shorter", 'H')                                                       \
	X(COMPARE_B, "compare.b", 'b')                                                             \
	X(LINK, "link", 'J')                                                                       \
	X(HEAT1, "heat.1", 'U')                                                                    \
	X(HEAT2, "heat.2", 'V')                                                                    \
	X(HEAT3, "heat.3", 'W')                                                                    \
	X(HEAT4, "heat.4", 'X')                                                                    \
	X(HEAT5, "heat.5", 'Y')                                                                    \
	X(COUNTER, "counter", 'u')                                                                 \
	X(COUNTER_PEAK, "counter.peak", 'Z')                                                       \
	X(FINDING, "finding", 'Q')                                                                 \
	X(CRITICAL, "critical", 'P')

#define SLOT_ENUM_(e, n, c) SLOT_##e,
enum { TL_SLOTS(SLOT_ENUM_) SLOT__COUNT };
#undef SLOT_ENUM_

enum {
	THEME_BOLD = 1,
	THEME_REVERSE = 2,
	THEME_UNDERLINE = 4,
	THEME_DIM = 8,
	THEME_ITALIC = 16,
	THEME_BLINK = 32,
};

#define THEME_DEFAULT_COLOR (-1)

typedef struct theme_style {
	int16_t fg, bg;   /* 256-colour indexes, or THEME_DEFAULT_COLOR */
	int16_t fg8, bg8; /* the 8-colour fallback */
	uint16_t attr;    /* THEME_* with colour */
	uint16_t mono;    /* THEME_* without colour */
	uint8_t has_color, has_mono;
} theme_style;

typedef struct tl_theme {
	char name[64];
	theme_style slot[SLOT__COUNT];
} tl_theme;

const char *theme_slot_name(int slot);
char theme_slot_char(int slot);
/* The slot of a stage slice: stage.NAME when the theme knows it, else stage. */
int theme_stage_slot(const char *stage_name);

/* Parses theme text over *t. origin names it in messages. Returns TL_CONF_OK, or
 * TL_CONF_BAD_LINE with "origin:LINE: problem" in err (the other lines still apply). */
tl_conf_status theme_parse(tl_theme *, const char *text, const char *origin, char *err,
                           size_t errlen);
/* Loads the built-in default, then NAME on top of it: a path (with a '/'), a file
 * $XDG_CONFIG_HOME/tl/NAME.theme, or a built-in theme. NAME NULL: the user's default.theme
 * when there is one. Returns TL_CONF_OK; TL_CONF_BAD_LINE with a message when a line is bad
 * (the rest applies); TL_CONF_UNREADABLE when NAME cannot be found or read. */
tl_conf_status theme_load(tl_theme *, const char *name, char *err, size_t errlen);

/* Finds the user's or the built-in file NAME.EXT; returns its text (malloc'd) or NULL, and a
 * description of where it came from in origin. Shared with the keymap loader. */
char *config_file_read(const char *name, const char *ext, char *origin, size_t originlen);
/* The user's own default.EXT (in the config folder) when there is one, as config_file_read. */
char *config_user_default(const char *ext, char *origin, size_t originlen);

/* The compiled-in files of themes/ and keymaps/ (builtin.c, generated at build time). */
const char *builtin_file(const char *name, const char *ext);
const char *builtin_name(size_t i, const char *ext); /* NULL past the end */

#endif
