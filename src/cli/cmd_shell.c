/*
** `trak shell TRACE`: interactive SQL over a trace. On a terminal: line editing, history in
** ~/.trak_history and tab completion (libedit), and Ctrl-C that stops the running statement
** (or clears the line being typed) and returns to the prompt. Statements span lines until a
** ';'. Dot commands: .tables .schema .mode .headers .output .once .read .timer .bail .help
** .quit. Without a terminal it reads statements from stdin the same way and, unless
** `-bail off`, stops at the first error with exit status 1.
*/
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "cli/shell.h"

#define MAX_READ_DEPTH 16

typedef struct shell {
  trak_processor *p;
  trak_cli_output o; /* o.out: stdout, the .output file or the .once file */
  FILE *output;      /* .output FILE, or NULL for stdout */
  FILE *once;        /* .once FILE for the next statement, or NULL */
  int timer;
  int interactive;    /* on a terminal: SIGINT is blocked but for statements and the prompt */
  int bail;           /* stop at the first error */
  int failed;         /* an error happened */
  int read_depth;     /* nesting of .read */
  const char *source; /* where lines come from, for error messages (NULL: the prompt) */
  unsigned line_no;   /* of `source` */
  unsigned stmt_line; /* where the statement being collected starts */
  char *buf;          /* statement being collected */
  size_t len, cap;
} shell;

const char *const trak_cli_shell_dot_commands[] = {
    ".bail", ".exit", ".headers", ".help",   ".mode",  ".once", ".output",
    ".quit", ".read", ".schema",  ".tables", ".timer", NULL};

static const char help_text[] =
    ".tables               list the tables and views\n"
    ".schema [TABLE]       show the columns of TABLE (or of every table)\n"
    ".mode table|csv|json|tp  output format (default table; `text` is table)\n"
    ".headers on|off       print column names (default on)\n"
    ".output [FILE]        send results to FILE (replaced), or back to the screen\n"
    ".once FILE            send the next statement's results to FILE\n"
    ".read FILE            run the statements and dot commands in FILE\n"
    ".timer on|off         print the time each statement takes\n"
    ".bail on|off          stop at the first error (default on when input is not a terminal)\n"
    ".help                 this text\n"
    ".quit                 leave (also .exit, Ctrl-D)\n"
    "SQL statements end with ';'. Tab completes table, column and command names; Ctrl-C\n"
    "stops a running statement or clears the line.\n";

/* ---- Ctrl-C ------------------------------------------------------------------------------ */

/* On a terminal SIGINT stays blocked except while a statement runs and while the prompt waits
** for a key (ppoll unblocks it atomically), so a Ctrl-C never falls between checking the flag
** and blocking in read(). The handler interrupts the statement running on `sigint_p`
** (sqlite3_interrupt only sets a flag, which is safe from a handler) and notes the signal for
** the prompt. */
static trak_processor *volatile sigint_p;
static volatile sig_atomic_t sigint_seen;
static sigset_t sigint_set;  /* {SIGINT} */
static sigset_t prompt_mask; /* the mask while waiting for a key: SIGINT open */

static void on_sigint(int sig) {
  (void)sig;
  sigint_seen = 1;
  if (sigint_p) trak_processor_interrupt(sigint_p);
}

/* libedit's character reader (EL_GETCFN): one UTF-8 character from stdin, or -1 (errno EINTR)
** as soon as Ctrl-C is pressed, 0 at end of input. A byte that cannot continue a character
** ends it as U+FFFD and is read again as the start of the next one. */
static int read_key(EditLine *el, wchar_t *wc) {
  (void)el;
  static int held = -1; /* a byte read but not yet used */
  char buf[MB_LEN_MAX];
  size_t n = 0;
  for (;;) {
    if (held >= 0) {
      buf[n++] = (char)held;
      held = -1;
    } else {
      if (sigint_seen) {
        errno = EINTR;
        return -1;
      }
      struct pollfd pfd = {0, POLLIN, 0};
      if (ppoll(&pfd, 1, NULL, &prompt_mask) < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      ssize_t got = read(0, buf + n, 1);
      if (got == 0) return 0;
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return -1;
      }
      n++;
    }
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t k = mbrtowc(wc, buf, n, &st);
    if (k == (size_t)-2 && n < sizeof buf) continue; /* a multibyte character goes on */
    if (k == (size_t)-1 || k == (size_t)-2) {
      if (n > 1) held = (unsigned char)buf[n - 1];
      *wc = 0xfffd;
    }
    return 1;
  }
}

/* ---- errors and output ------------------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static void shell_error(shell *sh, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (sh->source)
    fprintf(stderr, "trak shell: %s:%u: ", sh->source, sh->stmt_line ? sh->stmt_line : sh->line_no);
  else
    fputs("error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  sh->failed = 1;
}

static FILE *open_output(shell *sh, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) shell_error(sh, "%s: %s", path, strerror(errno));
  return f;
}

static void close_output(FILE **f) {
  if (*f) fclose(*f);
  *f = NULL;
}

/* ---- dot commands ----------------------------------------------------------------------- */

static int read_file(shell *sh, const char *path);

static void run_schema(shell *sh, const char *table) {
  const char *const *names = trak_processor_table_names();
  for (size_t i = 0; names[i]; i++) {
    if (table && *table && strcmp(table, names[i])) continue;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM %s LIMIT 0", names[i]);
    trak_query *q;
    trak_error err = {0};
    if (trak_query_open(sh->p, sql, &q, NULL, &err) || !q) continue;
    fprintf(sh->o.out, "%s(", names[i]);
    for (int c = 0; c < trak_query_column_count(q); c++)
      fprintf(sh->o.out, "%s%s", c ? ", " : "", trak_query_column_name(q, c));
    fprintf(sh->o.out, ")\n");
    trak_query_free(q);
  }
}

/* Parses "on" / "off" into *flag; anything else is an error naming the command. */
static void on_off(shell *sh, const char *cmd, const char *arg, int *flag) {
  if (arg && !strcmp(arg, "on"))
    *flag = 1;
  else if (arg && !strcmp(arg, "off"))
    *flag = 0;
  else
    shell_error(sh, "usage: %s on|off", cmd);
}

/* Runs one dot command line (modified in place). Returns 1 to quit. */
static int dot_command(shell *sh, char *line) {
  char *cmd = strtok(line, " \t\n");
  char *arg = strtok(NULL, " \t\n");
  sh->o.out = sh->output ? sh->output : stdout;
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
      fprintf(sh->o.out, "%s\n", names[i]);
  } else if (!strcmp(cmd, ".schema")) {
    run_schema(sh, arg);
  } else if (!strcmp(cmd, ".mode")) {
    if (!arg || trak_cli_parse_format(arg, &sh->o.format))
      shell_error(sh, "usage: .mode table|csv|json|tp");
  } else if (!strcmp(cmd, ".headers")) {
    on_off(sh, cmd, arg, &sh->o.headers);
  } else if (!strcmp(cmd, ".timer")) {
    on_off(sh, cmd, arg, &sh->timer);
  } else if (!strcmp(cmd, ".bail")) {
    on_off(sh, cmd, arg, &sh->bail);
  } else if (!strcmp(cmd, ".output")) {
    close_output(&sh->output);
    if (arg && strcmp(arg, "stdout")) sh->output = open_output(sh, arg);
  } else if (!strcmp(cmd, ".once")) {
    close_output(&sh->once);
    if (!arg)
      shell_error(sh, "usage: .once FILE");
    else
      sh->once = open_output(sh, arg);
  } else if (!strcmp(cmd, ".read")) {
    if (!arg)
      shell_error(sh, "usage: .read FILE");
    else
      return read_file(sh, arg);
  } else {
    shell_error(sh, "unknown command %s (see .help)", cmd);
  }
  fflush(sh->o.out);
  return 0;
}

/* ---- statements ------------------------------------------------------------------------- */

static void run_statement(shell *sh) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  trak_error err = {0};
  sh->o.out = sh->once ? sh->once : sh->output ? sh->output : stdout;
  sigint_p = sh->p;
  if (sh->interactive) sigprocmask(SIG_UNBLOCK, &sigint_set, NULL);
  /* A Ctrl-C since the line was read, before the handler could reach the statement, counts
  ** too (sqlite3_interrupt does nothing while no statement runs). */
  int rc = sigint_seen ? trak_error_set(&err, TRAK_EINVAL, "interrupted")
                       : trak_cli_run_sql(&sh->o, sh->p, sh->buf, &err);
  if (sh->interactive) sigprocmask(SIG_BLOCK, &sigint_set, NULL);
  sigint_p = NULL;
  fflush(sh->o.out);
  close_output(&sh->once);
  if (rc) shell_error(sh, "%s", err.message);
  clock_gettime(CLOCK_MONOTONIC, &b);
  if (sh->timer)
    printf("Run Time: %.3f s\n", (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
  sh->len = 0;
  sh->buf[0] = 0;
  sh->stmt_line = 0;
}

/* Handles one input line. Returns 1 to quit (after .quit, or an error when bailing). */
static int shell_line(shell *sh, const char *line) {
  size_t n = strlen(line);
  while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    n--;
  sh->line_no++;
  if (!sh->len && line[0] == '.') {
    char *copy = strndup(line, n);
    int quit = dot_command(sh, copy);
    free(copy);
    return quit || (sh->failed && sh->bail);
  }
  if (sh->len + n + 2 > sh->cap) {
    sh->cap = (sh->len + n + 2) * 2;
    sh->buf = realloc(sh->buf, sh->cap);
    if (!sh->buf) abort();
  }
  if (!sh->len) sh->stmt_line = sh->line_no;
  memcpy(sh->buf + sh->len, line, n);
  sh->len += n;
  sh->buf[sh->len++] = '\n';
  sh->buf[sh->len] = 0;
  size_t end = sh->len;
  while (end && (sh->buf[end - 1] == '\n' || sh->buf[end - 1] == ' ' || sh->buf[end - 1] == '\t'))
    end--;
  if (end && sh->buf[end - 1] == ';')
    run_statement(sh);
  else if (!end)
    sh->len = 0;
  return sh->failed && sh->bail;
}

/* Runs the lines of `f` (named `name` in errors); a statement left without its ';' at the end
** runs too. Returns 1 to quit. */
static int run_lines(shell *sh, FILE *f, const char *name) {
  const char *saved_source = sh->source;
  unsigned saved_line = sh->line_no;
  sh->source = name;
  sh->line_no = 0;
  char *line = NULL;
  size_t cap = 0;
  int quit = 0;
  while (!quit && getline(&line, &cap, f) > 0)
    quit = shell_line(sh, line);
  free(line);
  if (!quit && sh->len) {
    run_statement(sh);
    quit = sh->failed && sh->bail;
  }
  sh->source = saved_source;
  sh->line_no = saved_line;
  return quit;
}

static int read_file(shell *sh, const char *path) {
  if (sh->read_depth >= MAX_READ_DEPTH) {
    shell_error(sh, ".read %s: nested more than %d deep", path, MAX_READ_DEPTH);
    return sh->bail;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    shell_error(sh, ".read %s: %s", path, strerror(errno));
    return sh->bail;
  }
  /* The statement being typed waits; the file's statements run on their own. */
  char *saved = sh->buf;
  size_t saved_len = sh->len, saved_cap = sh->cap;
  unsigned saved_stmt = sh->stmt_line;
  sh->cap = 256;
  sh->buf = calloc(1, sh->cap);
  sh->len = 0;
  sh->read_depth++;
  int quit = run_lines(sh, f, path);
  sh->read_depth--;
  free(sh->buf);
  sh->buf = saved, sh->len = saved_len, sh->cap = saved_cap, sh->stmt_line = saved_stmt;
  fclose(f);
  return quit;
}

/* ---- the terminal ------------------------------------------------------------------------ */

static const char *prompt_fn(EditLine *el) {
  shell *sh;
  el_get(el, EL_CLIENTDATA, &sh);
  return sh->len ? "   ...> " : "trak> ";
}

trak_processor *trak_cli_shell_processor(EditLine *el) {
  shell *sh;
  el_get(el, EL_CLIENTDATA, &sh);
  return sh->p;
}

/* Empties libedit's line buffer (after Ctrl-C at the prompt). */
static void clear_edit_line(EditLine *el) {
  const LineInfo *li = el_line(el);
  int after = (int)(li->lastchar - li->cursor), before = (int)(li->cursor - li->buffer);
  el_cursor(el, after);
  el_deletestr(el, before + after);
}

static void interactive(shell *sh) {
  EditLine *el = el_init("trak", stdin, stdout, stderr);
  History *hist = history_init();
  HistEvent ev;
  history(hist, &ev, H_SETSIZE, 1000);
  char hist_path[4096] = "";
  const char *home = getenv("HOME");
  if (home) snprintf(hist_path, sizeof hist_path, "%s/.trak_history", home);
  if (hist_path[0]) history(hist, &ev, H_LOAD, hist_path); /* history persists across runs */
  el_set(el, EL_CLIENTDATA, sh);
  el_set(el, EL_PROMPT, prompt_fn);
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_HIST, history, hist);
  el_set(el, EL_ADDFN, "trak-complete", "complete a name", trak_cli_shell_complete_key);
  el_set(el, EL_BIND, "^I", "trak-complete", NULL);
  el_source(el, NULL);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
  sigset_t saved_mask;
  sigemptyset(&sigint_set);
  sigaddset(&sigint_set, SIGINT);
  sigprocmask(SIG_BLOCK, &sigint_set, &saved_mask);
  prompt_mask = saved_mask;
  sigdelset(&prompt_mask, SIGINT);
  el_set(el, EL_GETCFN, read_key);
  sh->interactive = 1;

  printf("trak shell: %llu events. Type .help for commands.\n",
         (unsigned long long)trak_processor_event_count(sh->p));
  for (;;) {
    int count;
    sigint_seen = 0;
    const char *line = el_gets(el, &count);
    if (sigint_seen || (!line && count < 0 && errno == EINTR)) {
      /* Ctrl-C at the prompt: drop what was typed, the statement being collected too. */
      clear_edit_line(el);
      sh->len = 0;
      sh->buf[0] = 0;
      fputc('\n', stdout);
      continue;
    }
    if (!line || count <= 0) break;
    if (line[0] != '\n') history(hist, &ev, H_ENTER, line);
    sh->failed = 0;
    if (shell_line(sh, line)) break;
  }
  sh->interactive = 0;
  signal(SIGINT, SIG_DFL);
  sigprocmask(SIG_SETMASK, &saved_mask, NULL);
  if (hist_path[0]) history(hist, &ev, H_SAVE, hist_path);
  history_end(hist);
  el_end(el);
}

static const char usage[] =
    "usage: trak shell TRACE [-bail on|off] [--allow-empty]\n"
    "Interactive SQL over TRACE; type .help for commands. When stdin is not a terminal, its\n"
    "statements and dot commands run in order and the first error stops the shell with exit\n"
    "status 1; with -bail off every statement runs (the status is still 1 if any failed).\n";

int trak_cli_shell(int argc, char **argv) {
  const char *trace = NULL;
  int bail = -1; /* -1: by the input (on unless a terminal) */
  for (int i = 1; i < argc; i++) {
    if (trak_cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(argv[i], "-bail") || !strcmp(argv[i], "--bail")) {
      if (i + 1 < argc && !strcmp(argv[i + 1], "off"))
        bail = 0, i++;
      else if (i + 1 < argc && !strcmp(argv[i + 1], "on"))
        bail = 1, i++;
      else
        bail = 1; /* sqlite3's -bail takes no value */
    } else if (trak_cli_is_option(argv[i])) {
      return trak_cli_unknown_option("shell", argv[i]);
    } else if (!trace) {
      trace = argv[i];
    } else {
      return trak_cli_usage_error("shell", "expected one TRACE");
    }
  }
  if (!trace) {
    fputs(usage, stderr);
    return 2;
  }
  shell sh = {0};
  sh.o = (trak_cli_output){stdout, TRAK_CLI_TABLE, 1};
  sh.cap = 256;
  sh.buf = calloc(1, sh.cap);
  if (!sh.buf || trak_cli_open_trace("shell", trace, &sh.p)) {
    free(sh.buf);
    return 1;
  }
  int tty = isatty(0);
  sh.bail = bail >= 0 ? bail : !tty;
  int failed = 0;
  if (tty) {
    interactive(&sh);
  } else {
    run_lines(&sh, stdin, "stdin");
    failed = sh.failed;
  }
  close_output(&sh.output);
  close_output(&sh.once);
  free(sh.buf);
  trak_processor_free(sh.p);
  return failed ? 1 : 0;
}
