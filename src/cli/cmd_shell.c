/*
** `trak shell TRACE`: interactive SQL over a trace, with line editing and history (libedit),
** kept in ~/.trak_history, statements spanning lines until a ';', and the dot commands .tables
*.schema .mode .timer
** .help .quit. Without a terminal it reads statements from stdin the same way.
*/
#include <histedit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

typedef struct shell {
  trak_processor *p;
  trak_cli_format format;
  int timer;
  char *buf; /* statement being collected */
  size_t len, cap;
} shell;

static const char help_text[] = ".tables            list the tables and views\n"
                                ".schema [TABLE]    show the columns of TABLE (or of every table)\n"
                                ".mode csv|table|json  output format (default table)\n"
                                ".timer on|off      print the time each statement takes\n"
                                ".help              this text\n"
                                ".quit              leave (also Ctrl-D)\n"
                                "SQL statements end with ';'.\n";

static const char *prompt_fn(EditLine *el) {
  shell *sh;
  el_get(el, EL_CLIENTDATA, &sh);
  return sh->len ? "   ...> " : "trak> ";
}

static void run_schema(shell *sh, const char *table) {
  const char *const *names = trak_processor_table_names();
  for (size_t i = 0; names[i]; i++) {
    if (table && *table && strcmp(table, names[i])) continue;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s LIMIT 0", names[i]);
    trak_query *q;
    trak_error err = {0};
    if (trak_query_open(sh->p, sql, &q, NULL, &err) || !q) continue;
    printf("%s(", names[i]);
    for (int c = 0; c < trak_query_column_count(q); c++)
      printf("%s%s", c ? ", " : "", trak_query_column_name(q, c));
    printf(")\n");
    trak_query_free(q);
  }
}

/* Returns 1 to quit. */
static int dot_command(shell *sh, char *line) {
  char *cmd = strtok(line, " \t\n");
  char *arg = strtok(NULL, " \t\n");
  if (!strcmp(cmd, ".quit") || !strcmp(cmd, ".exit")) return 1;
  if (!strcmp(cmd, ".help")) {
    fputs(help_text, stdout);
    for (const char *const *m = trak_perfetto_modules_list(); *m; m++)
      printf("%s%s\n",
             m == trak_perfetto_modules_list() ? "modules (INCLUDE PERFETTO MODULE name;): " : "  ",
             *m);
  } else if (!strcmp(cmd, ".tables")) {
    const char *const *names = trak_processor_table_names();
    for (size_t i = 0; names[i]; i++)
      printf("%s\n", names[i]);
  } else if (!strcmp(cmd, ".schema"))
    run_schema(sh, arg);
  else if (!strcmp(cmd, ".mode")) {
    if (!arg || trak_cli_parse_format(arg, &sh->format)) printf("usage: .mode csv|table|json\n");
  } else if (!strcmp(cmd, ".timer")) {
    sh->timer = arg && !strcmp(arg, "on");
  } else
    printf("unknown command %s (see .help)\n", cmd);
  return 0;
}

static void run_statement(shell *sh) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  trak_error err = {0};
  if (trak_cli_run_sql(stdout, sh->p, sh->buf, sh->format, &err))
    fprintf(stderr, "error: %s\n", err.message);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (sh->timer)
    printf("Run Time: %.3f s\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
  sh->len = 0;
  sh->buf[0] = 0;
}

/* Handles one input line. Returns 1 to quit. */
static int shell_line(shell *sh, const char *line) {
  size_t n = strlen(line);
  while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    n--;
  if (!sh->len && line[0] == '.') {
    char *copy = strndup(line, n);
    int quit = dot_command(sh, copy);
    free(copy);
    return quit;
  }
  if (sh->len + n + 2 > sh->cap) {
    sh->cap = (sh->len + n + 2) * 2;
    sh->buf = realloc(sh->buf, sh->cap);
  }
  memcpy(sh->buf + sh->len, line, n);
  sh->len += n;
  sh->buf[sh->len++] = '\n';
  sh->buf[sh->len] = 0;
  size_t end = sh->len;
  while (end && (sh->buf[end - 1] == '\n' || sh->buf[end - 1] == ' '))
    end--;
  if (end && sh->buf[end - 1] == ';')
    run_statement(sh);
  else if (!end)
    sh->len = 0;
  return 0;
}

int trak_cli_shell(int argc, char **argv) {
  if (argc != 2 || trak_cli_is_help(argv[1])) {
    fputs("usage: trak shell TRACE\nInteractive SQL; type .help for commands.\n",
          argc == 2 ? stdout : stderr);
    return argc == 2 ? 0 : 2;
  }
  shell sh = {0};
  sh.format = TRAK_CLI_TABLE;
  sh.cap = 256;
  sh.buf = calloc(1, sh.cap);
  if (trak_cli_open_trace("shell", argv[1], &sh.p)) {
    free(sh.buf);
    return 1;
  }
  if (isatty(0)) {
    EditLine *el = el_init("trak", stdin, stdout, stderr);
    History *hist = history_init();
    HistEvent ev;
    history(hist, &ev, H_SETSIZE, 1000);
    char hist_path[4096] = "";
    const char *home = getenv("HOME");
    if (home) snprintf(hist_path, sizeof hist_path, "%s/.trak_history", home);
    if (hist_path[0]) history(hist, &ev, H_LOAD, hist_path); /* history persists across runs */
    el_set(el, EL_CLIENTDATA, &sh);
    el_set(el, EL_PROMPT, prompt_fn);
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_HIST, history, hist);
    el_source(el, NULL);
    printf("trak shell: %llu events. Type .help for commands.\n",
           (unsigned long long)trak_processor_event_count(sh.p));
    const char *line;
    int count;
    while ((line = el_gets(el, &count)) != NULL && count > 0) {
      if (line[0] != '\n') history(hist, &ev, H_ENTER, line);
      if (shell_line(&sh, line)) break;
    }
    if (hist_path[0]) history(hist, &ev, H_SAVE, hist_path);
    history_end(hist);
    el_end(el);
  } else {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0)
      if (shell_line(&sh, line)) break;
    free(line);
    if (sh.len) run_statement(&sh);
  }
  free(sh.buf);
  trak_processor_free(sh.p);
  return 0;
}
