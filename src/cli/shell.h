/*
** What the files of `trak shell` share: cmd_shell.c (the loop, dot commands, Ctrl-C) and
** shell_complete.c (tab completion).
*/
#ifndef TRAK_CLI_SHELL_H
#define TRAK_CLI_SHELL_H

#include <histedit.h>

#include "cli/cli.h"

/* The dot commands, NULL-terminated. */
extern const char *const trak_cli_shell_dot_commands[];

/* The processor of the shell an EditLine belongs to. */
trak_processor *trak_cli_shell_processor(EditLine *el);

/* Completions of the word ending at `cursor` in `line`: returns their count and sets *out to a
** malloc'ed array of malloc'ed strings (NULL when none; the caller frees both) and
** *word_start to where the word begins. */
size_t trak_cli_shell_complete(trak_processor *p, const char *line, size_t cursor,
                               size_t *word_start, char ***out);

/* The libedit function bound to Tab: completes in place or lists the choices. */
unsigned char trak_cli_shell_complete_key(EditLine *el, int ch);

#endif /* TRAK_CLI_SHELL_H */
