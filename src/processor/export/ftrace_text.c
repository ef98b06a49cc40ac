/*
** This file holds the tracefs text of ftrace_event rows (see ftrace_text.h): a table of the
** per-event argument layouts of Perfetto's systrace serializer, the value formats they use
** (hex, softirq actions, prev_state letters, gfp_flags names, ...) and the to_ftrace line.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "processor/export/ftrace_text.h"
#include "processor/processor_internal.h"
#include "processor/tables/arg_value.h"
#include "processor/tables/sched_cols.h"
#include "processor/util/task_state.h"

/* How a value is written. */
typedef enum fmt {
  F_DEF,     /* by its type: ints, unsigned, "%.16g", true/false, strings, [NULL] */
  F_HEX,     /* lowercase hex, no prefix */
  F_HEX3,    /* hex, zero-padded to 3 digits */
  F_HEX4,    /* hex, zero-padded to 4 digits */
  F_U32,     /* the low 32 bits, unsigned */
  F_PAD3,    /* decimal, zero-padded to 3 digits */
  F_KFN,     /* a kernel function: an address in hex, a symbolized name as is */
  F_STATE,   /* prev_state letters joined by '|' */
  F_HANDLED, /* "handled" or "unhandled" */
  F_ACTION,  /* the softirq action name of a vector */
  F_BEGIN,   /* 'B' when set, else 'E' */
  F_CHAR,    /* the value as one character */
  F_DEVMAJ,  /* a dev_t's major number (bits 20 and up) */
  F_DEVMIN,  /* a dev_t's minor number (low 20 bits) */
  F_PAGEOFS, /* a page index as a byte offset (times 4096) */
  F_HEXBUF,  /* " [" the string's bytes as hex joined by '-' "]" */
  F_PRINT,   /* a string without its one trailing newline */
} fmt;

/* One step of an event's layout: `lit` always, then for `key` (when the event has it) either
** " as=" and the value (an arg) or the value alone (`bare`). */
typedef struct step {
  const char *lit;
  const char *key;
  const char *as; /* NULL: key */
  uint8_t bare;
  uint8_t fmt;
} step;

#define ARG(k, f)                                                                                  \
  { NULL, k, NULL, 0, f }
#define ARG_AS(k, as, f)                                                                           \
  { NULL, k, as, 0, f }
#define VAL(lit, k, f)                                                                             \
  { lit, k, NULL, 1, f }
#define LIT(lit)                                                                                   \
  { lit, NULL, NULL, 0, F_DEF }

typedef struct layout {
  const char *name;
  step steps[8];
} layout;

#define I2C_HEAD                                                                                   \
  VAL(" i2c-", "adapter_nr", F_DEF), VAL(" #", "msg_nr", F_DEF), ARG_AS("addr", "a", F_HEX3),      \
      ARG_AS("flags", "f", F_HEX4), ARG_AS("len", "l", F_DEF)
#define MARKER(type, name)                                                                         \
  VAL(NULL, type, F_CHAR), VAL("|", "pid", F_DEF), VAL("|", name, F_DEF), VAL("|", "value", F_DEF)

/* The events Perfetto's serializer writes in their own layout; every other event is written
** as " key=value" per arg. */
static const layout layouts[] = {
    {"sched_switch",
     {ARG("prev_comm", F_DEF),
      ARG("prev_pid", F_DEF),
      ARG("prev_prio", F_DEF),
      ARG("prev_state", F_STATE),
      {" ==>", "next_comm", NULL, 0, F_DEF},
      ARG("next_pid", F_DEF),
      ARG("next_prio", F_DEF)}},
    {"sched_wakeup",
     {ARG("comm", F_DEF), ARG("pid", F_DEF), ARG("prio", F_DEF), ARG("target_cpu", F_PAD3)}},
    {"clock_set_rate", {VAL(" ", "name", F_DEF), ARG("state", F_DEF), ARG("cpu_id", F_DEF)}},
    {"clk_set_rate", {VAL(" ", "name", F_DEF), VAL(" ", "rate", F_DEF)}},
    {"clock_enable", {VAL(NULL, "name", F_DEF), ARG("state", F_DEF), ARG("cpu_id", F_DEF)}},
    {"clock_disable", {VAL(NULL, "name", F_DEF), ARG("state", F_DEF), ARG("cpu_id", F_DEF)}},
    {"binder_transaction",
     {VAL(" transaction=", "debug_id", F_U32), VAL(" dest_node=", "target_node", F_U32),
      VAL(" dest_proc=", "to_proc", F_DEF), VAL(" dest_thread=", "to_thread", F_DEF),
      VAL(" reply=", "reply", F_DEF), VAL(" flags=0x", "flags", F_HEX),
      VAL(" code=0x", "code", F_HEX)}},
    {"binder_transaction_alloc_buf",
     {VAL(" transaction=", "debug_id", F_U32), ARG("data_size", F_DEF),
      ARG("offsets_size", F_DEF)}},
    {"binder_transaction_received", {VAL(" transaction=", "debug_id", F_U32)}},
    {"mm_filemap_add_to_page_cache",
     {VAL(" dev ", "s_dev", F_DEVMAJ), VAL(":", "s_dev", F_DEVMIN), VAL(" ino ", "i_ino", F_HEX),
      VAL(" page=0000000000000000 pfn=", "pfn", F_DEF), VAL(" ofs=", "index", F_PAGEOFS)}},
    {"print", {VAL(" ", "buf", F_PRINT)}},
    {"sched_blocked_reason",
     {ARG("pid", F_DEF), ARG_AS("io_wait", "iowait", F_DEF), ARG("caller", F_KFN)}},
    {"workqueue_activate_work", {VAL(" work struct ", "work", F_HEX)}},
    {"workqueue_execute_start",
     {VAL(" work struct ", "work", F_HEX), VAL(": function ", "function", F_KFN)}},
    {"workqueue_execute_end", {VAL(" work struct ", "work", F_HEX)}},
    {"workqueue_queue_work",
     {VAL(" work struct=", "work", F_HEX), ARG("function", F_KFN), ARG("workqueue", F_HEX),
      VAL(NULL, "req_cpu", F_DEF), VAL(NULL, "cpu", F_DEF)}},
    {"irq_handler_entry", {ARG("irq", F_DEF), ARG("name", F_DEF)}},
    {"irq_handler_exit", {ARG("irq", F_DEF), VAL(" ret=", "ret", F_HANDLED)}},
    {"softirq_entry", {ARG("vec", F_DEF), VAL(" [action=", "vec", F_ACTION), LIT("]")}},
    {"softirq_exit", {ARG("vec", F_DEF), VAL(" [action=", "vec", F_ACTION), LIT("]")}},
    {"tracing_mark_write",
     {VAL(NULL, "trace_begin", F_BEGIN), VAL("|", "pid", F_DEF), VAL("|", "trace_name", F_DEF)}},
    {"dpu_tracing_mark_write", {MARKER("type", "name")}},
    {"panel_write_generic", {MARKER("type", "name")}},
    {"g2d_tracing_mark_write", {MARKER("type", "name")}},
    {"samsung_tracing_mark_write", {MARKER("trace_type", "trace_name")}},
    {"cgroup_attach_task",
     {ARG("dst_root", F_DEF), ARG("dst_id", F_DEF), ARG_AS("cname", "cgroup", F_DEF),
      ARG("dst_level", F_DEF), ARG("dst_path", F_DEF), ARG("pid", F_DEF), ARG("comm", F_DEF)}},
    {"hrtimer_expire_entry", {ARG("function", F_KFN)}},
    {"i2c_write", {I2C_HEAD, VAL(NULL, "buf", F_HEXBUF)}},
    {"i2c_read", {I2C_HEAD}},
    {"i2c_reply", {I2C_HEAD, VAL(NULL, "buf", F_HEXBUF)}},
    {"i2c_result",
     {VAL(" i2c-", "adapter_nr", F_DEF), ARG_AS("nr_msgs", "n", F_DEF), ARG("ret", F_DEF)}},
};

static const char *const softirq_actions[] = {"HI",      "TIMER",        "NET_TX",  "NET_RX",
                                              "BLOCK",   "BLOCK_IOPOLL", "TASKLET", "SCHED",
                                              "HRTIMER", "RCU"};

/* ---- gfp_flags: the kernel's names of allocation flags, by kernel version ------------------ */

typedef struct gfp_flag {
  uint32_t mask;
  const char *name;
} gfp_flag;

/* The first 20 flags of kernels before 4.4. */
// clang-format off
#define GFP_V3_HEAD                                                                                \
  {0x4352da, "GFP_TRANSHUGE"}, {0x200da, "GFP_HIGHUSER_MOVABLE"}, {0x200d2, "GFP_HIGHUSER"},       \
  {0x200d0, "GFP_USER"}, {0x800d0, "GFP_TEMPORARY"}, {0xd0, "GFP_KERNEL"}, {0x50, "GFP_NOFS"},     \
  {0x20, "GFP_ATOMIC"}, {0x10, "GFP_NOIO"}, {0x20, "GFP_HIGH"}, {0x10, "GFP_WAIT"},                \
  {0x40, "GFP_IO"}, {0x100, "GFP_COLD"}, {0x200, "GFP_NOWARN"}, {0x400, "GFP_REPEAT"},             \
  {0x800, "GFP_NOFAIL"}, {0x1000, "GFP_NORETRY"}, {0x4000, "GFP_COMP"}, {0x8000, "GFP_ZERO"},      \
  {0x10000, "GFP_NOMEMALLOC"}
// clang-format on

/* Kernels before 3.10 (the 0 mask of GFP_NOTRACK matches every value, as in Perfetto). */
static const gfp_flag gfp_v3_4[] = {GFP_V3_HEAD,
                                    {0x20000, "GFP_HARDWALL"},
                                    {0x40000, "GFP_THISNODE"},
                                    {0x80000, "GFP_RECLAIMABLE"},
                                    {0x8, "GFP_MOVABLE"},
                                    {0x0, "GFP_NOTRACK"},
                                    {0x400000, "GFP_NO_KSWAPD"},
                                    {0x800000, "GFP_OTHER_NODE"},
                                    {0, NULL}};
/* 3.10 up to 4.4. */
static const gfp_flag gfp_v3_10[] = {GFP_V3_HEAD,
                                     {0x2000, "GFP_MEMALLOC"},
                                     {0x20000, "GFP_HARDWALL"},
                                     {0x40000, "GFP_THISNODE"},
                                     {0x80000, "GFP_RECLAIMABLE"},
                                     {0x100000, "GFP_KMEMCG"},
                                     {0x8, "GFP_MOVABLE"},
                                     {0x200000, "GFP_NOTRACK"},
                                     {0x400000, "GFP_NO_KSWAPD"},
                                     {0x800000, "GFP_OTHER_NODE"},
                                     {0, NULL}};
/* 4.4 up to 4.14, and kernels of unknown version. */
static const gfp_flag gfp_v4_4[] = {{0x4352ca, "GFP_TRANSHUGE"},
                                    {0x24200ca, "GFP_HIGHUSER_MOVABLE"},
                                    {0x24200c2, "GFP_HIGHUSER"},
                                    {0x24200c0, "GFP_USER"},
                                    {0x24000d0, "GFP_TEMPORARY"},
                                    {0x24000c0, "GFP_KERNEL"},
                                    {0x2400040, "GFP_NOFS"},
                                    {0x2080020, "GFP_ATOMIC"},
                                    {0x2400000, "GFP_NOIO"},
                                    {0x20, "GFP_HIGH"},
                                    {0x80000, "GFP_ATOMIC"},
                                    {0x40, "GFP_IO"},
                                    {0x100, "GFP_COLD"},
                                    {0x200, "GFP_NOWARN"},
                                    {0x400, "GFP_REPEAT"},
                                    {0x800, "GFP_NOFAIL"},
                                    {0x1000, "GFP_NORETRY"},
                                    {0x4000, "GFP_COMP"},
                                    {0x8000, "GFP_ZERO"},
                                    {0x10000, "GFP_NOMEMALLOC"},
                                    {0x2000, "GFP_MEMALLOC"},
                                    {0x20000, "GFP_HARDWALL"},
                                    {0x40000, "GFP_THISNODE"},
                                    {0x10, "GFP_RECLAIMABLE"},
                                    {0x8, "GFP_MOVABLE"},
                                    {0x200000, "GFP_NOTRACK"},
                                    {0x400000, "GFP_DIRECT_RECLAIM"},
                                    {0x2000000, "GFP_KSWAPD_RECLAIM"},
                                    {0x800000, "GFP_OTHER_NODE"},
                                    {0, NULL}};
/* 4.14 and later. */
static const gfp_flag gfp_v4_14[] = {{0x4342ca, "GFP_TRANSHUGE"},
                                     {0x342ca, "GFP_TRANSHUGE_LIGHT"},
                                     {0x14200ca, "GFP_HIGHUSER_MOVABLE"},
                                     {0x14200c2, "GFP_HIGHUSER"},
                                     {0x14200c0, "GFP_USER"},
                                     {0x15000c0, "GFP_KERNEL_ACCOUNT"},
                                     {0x14000c0, "GFP_KERNEL"},
                                     {0x1400040, "GFP_NOFS"},
                                     {0x1080020, "GFP_ATOMIC"},
                                     {0x1400000, "GFP_NOIO"},
                                     {0x1000000, "GFP_NOWAIT"},
                                     {0x1, "GFP_DMA"},
                                     {0x2, "__GFP_HIGHMEM"},
                                     {0x4, "GFP_DMA32"},
                                     {0x20, "__GFP_HIGH"},
                                     {0x80000, "__GFP_ATOMIC"},
                                     {0x40, "__GFP_IO"},
                                     {0x80, "__GFP_FS"},
                                     {0x100, "__GFP_COLD"},
                                     {0x200, "__GFP_NOWARN"},
                                     {0x400, "__GFP_RETRY_MAYFAIL"},
                                     {0x800, "__GFP_NOFAIL"},
                                     {0x1000, "__GFP_NORETRY"},
                                     {0x4000, "__GFP_COMP"},
                                     {0x8000, "__GFP_ZERO"},
                                     {0x10000, "__GFP_NOMEMALLOC"},
                                     {0x2000, "__GFP_MEMALLOC"},
                                     {0x20000, "__GFP_HARDWALL"},
                                     {0x40000, "__GFP_THISNODE"},
                                     {0x10, "__GFP_RECLAIMABLE"},
                                     {0x8, "__GFP_MOVABLE"},
                                     {0x100000, "__GFP_ACCOUNT"},
                                     {0x800000, "__GFP_WRITE"},
                                     {0x1400000, "__GFP_RECLAIM"},
                                     {0x400000, "__GFP_DIRECT_RECLAIM"},
                                     {0x1000000, "__GFP_KSWAPD_RECLAIM"},
                                     {0, NULL}};

static int version_below(const trak_ftrace_text *x, int major, int minor) {
  return x->major < major || (x->major == major && x->minor < minor);
}

/* The flag names of `v` as the kernel's trace_print_flags_seq writes them: each table entry
** whose bits are all set, its bits then cleared, joined by '|', the rest as "0x..". */
static void put_gfp(const trak_ftrace_text *x, uint64_t v) {
  if (v == 0) {
    trak__textbuf_printf(x->b, "GFP_NOWAIT");
    return;
  }
  const gfp_flag *f = x->major == 0             ? gfp_v4_4
                      : version_below(x, 3, 10) ? gfp_v3_4
                      : version_below(x, 4, 4)  ? gfp_v3_10
                      : version_below(x, 4, 14) ? gfp_v4_4
                                                : gfp_v4_14;
  int first = 1;
  for (; f->name; f++) {
    if ((v & f->mask) != f->mask) continue;
    v &= ~(uint64_t)f->mask;
    trak__textbuf_printf(x->b, "%s%s", first ? "" : "|", f->name);
    first = 0;
  }
  if (v) trak__textbuf_printf(x->b, "%s0x%" PRIx64, first ? "" : "|", v);
}

/* ---- values ------------------------------------------------------------------------------ */

static const char *str(const trak_tables *t, uint32_t id) {
  const char *s = id ? trak__str(&t->strings, id) : NULL;
  return s ? s : "";
}

static void put_string(const trak_ftrace_text *x, const char *s, size_t n) {
  if (x->one_line)
    trak__textbuf_put_text(x->b, s, n);
  else
    trak__textbuf_printf(x->b, "%.*s", (int)n, s);
}

/* The value at args row `row` by its type. */
static void put_default(const trak_ftrace_text *x, uint32_t row) {
  const trak_tables *t = x->t;
  int64_t i = trak__arg_int(t, row);
  switch ((trak_arg_type)t->args.value_type[row]) {
  case TRAK_ARG_INT:
    trak__textbuf_printf(x->b, "%" PRId64, i);
    break;
  case TRAK_ARG_UINT:
  case TRAK_ARG_POINTER:
    trak__textbuf_printf(x->b, "%" PRIu64, (uint64_t)i);
    break;
  case TRAK_ARG_BOOL:
    trak__textbuf_printf(x->b, "%s", i ? "true" : "false");
    break;
  case TRAK_ARG_REAL:
    trak__textbuf_printf(x->b, "%.16g", trak__arg_real(t, row));
    break;
  case TRAK_ARG_STRING:
  case TRAK_ARG_JSON: {
    const char *s = str(t, trak__arg_str(t, row));
    put_string(x, s, strlen(s));
    break;
  }
  default:
    trak__textbuf_printf(x->b, "[NULL]");
    break;
  }
}

/* prev_state as Perfetto's TaskState::ToString('|') writes it: "R", "R+", "S", "D|K", ...,
** at most three characters; "?" for a state it can't read. */
static void put_state(const trak_ftrace_text *x, uint64_t raw) {
  char letters[4], out[8];
  if (trak__task_state_letters((uint16_t)raw, x->major, x->minor, letters) < 0) {
    trak__textbuf_printf(x->b, "?");
    return;
  }
  size_t n = 0;
  for (int i = 0; letters[i] && n < 3; i++) {
    if (i && letters[0] != 'R') out[n++] = '|';
    if (n < 3) out[n++] = letters[i];
  }
  trak__textbuf_printf(x->b, "%.*s", (int)n, out);
}

static void put_value(const trak_ftrace_text *x, uint32_t row, fmt f) {
  const trak_tables *t = x->t;
  uint64_t u = (uint64_t)trak__arg_int(t, row);
  int is_string = t->args.value_type[row] == TRAK_ARG_STRING;
  const char *s = is_string ? str(t, trak__arg_str(t, row)) : "";
  /* A string where a number is laid out (workqueue_queue_work's workqueue, a name since the
  ** kernel sends one) is written as is: Perfetto writes its string pool id there. */
  if (is_string && f != F_KFN && f != F_HEXBUF && f != F_PRINT) f = F_DEF;
  switch (f) {
  case F_HEX:
    trak__textbuf_printf(x->b, "%" PRIx64, u);
    break;
  case F_HEX3:
    trak__textbuf_printf(x->b, "%03" PRIx64, u);
    break;
  case F_HEX4:
    trak__textbuf_printf(x->b, "%04" PRIx64, u);
    break;
  case F_U32:
    trak__textbuf_printf(x->b, "%" PRIu32, (uint32_t)u);
    break;
  case F_PAD3:
    trak__textbuf_printf(x->b, "%03" PRId64, (int64_t)u);
    break;
  case F_KFN:
    if (is_string)
      put_string(x, s, strlen(s));
    else if (t->args.value_type[row] == TRAK_ARG_UINT)
      trak__textbuf_printf(x->b, "%" PRIx64, u);
    break;
  case F_STATE:
    put_state(x, u);
    break;
  case F_HANDLED:
    trak__textbuf_printf(x->b, "%s", u ? "handled" : "unhandled");
    break;
  case F_ACTION:
    if (u < sizeof softirq_actions / sizeof *softirq_actions)
      trak__textbuf_printf(x->b, "%s", softirq_actions[u]);
    else
      trak__textbuf_printf(x->b, "%" PRIu64, u);
    break;
  case F_BEGIN:
    trak__textbuf_printf(x->b, "%c", u ? 'B' : 'E');
    break;
  case F_CHAR:
    put_string(x, &(char){(char)u}, 1);
    break;
  case F_DEVMAJ:
    trak__textbuf_printf(x->b, "%" PRIu64, u >> 20);
    break;
  case F_DEVMIN:
    trak__textbuf_printf(x->b, "%" PRIu64, u & ((1u << 20) - 1));
    break;
  case F_PAGEOFS:
    trak__textbuf_printf(x->b, "%" PRIu64, u << 12);
    break;
  case F_HEXBUF: {
    size_t n = strlen(s) < 64 ? strlen(s) : 64; /* the kernel's vsnprintf prints 64 at most */
    trak__textbuf_printf(x->b, " [");
    for (size_t i = 0; i < n; i++)
      trak__textbuf_printf(x->b, "%s%02x", i ? "-" : "", (unsigned char)s[i]);
    trak__textbuf_printf(x->b, "]");
    break;
  }
  case F_PRINT: {
    size_t n = strlen(s);
    put_string(x, s, n && s[n - 1] == '\n' ? n - 1 : n);
    break;
  }
  default:
    put_default(x, row);
    break;
  }
}

/* " key=value" for args row `row`, written with format f (gfp_flags always by flag names). */
static void put_arg(const trak_ftrace_text *x, uint32_t row, const char *key, fmt f) {
  trak__textbuf_printf(x->b, " %s=", key);
  if (!strcmp(key, "gfp_flags"))
    put_gfp(x, (uint64_t)trak__arg_int(x->t, row));
  else
    put_value(x, row, f);
}

/* ---- events ------------------------------------------------------------------------------ */

void trak__ftrace_text_init(trak_ftrace_text *x, const trak_tables *t, trak_textbuf *b,
                            int one_line) {
  x->t = t;
  x->b = b;
  x->one_line = one_line;
  const char *rel = t->machine.n ? str(t, t->machine.release[0]) : "";
  if (sscanf(rel, "%d.%d", &x->major, &x->minor) != 2 || x->major <= 0) x->major = x->minor = 0;
}

uint32_t trak__ftrace_arg_row(const trak_tables *t, uint32_t set, const char *key) {
  if (set == TRAK_NULL_U32) return TRAK_NULL_U32;
  for (uint32_t row = set; row < t->args.n && t->args.arg_set_id[row] == set; row++)
    if (!strcmp(str(t, t->args.key[row]), key)) return row;
  return TRAK_NULL_U32;
}

void trak__ftrace_args_write(const trak_ftrace_text *x, const char *name, uint32_t set) {
  const trak_tables *t = x->t;
  if (set == TRAK_NULL_U32 || set >= t->args.n) return; /* no args: nothing after "EVENT:" */
  for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
    if (strcmp(layouts[i].name, name)) continue;
    for (const step *s = layouts[i].steps; s->lit || s->key; s++) {
      if (s->lit) trak__textbuf_printf(x->b, "%s", s->lit);
      uint32_t row = s->key ? trak__ftrace_arg_row(t, set, s->key) : TRAK_NULL_U32;
      if (row == TRAK_NULL_U32) continue;
      if (s->bare)
        put_value(x, row, (fmt)s->fmt);
      else
        put_arg(x, row, s->as ? s->as : s->key, (fmt)s->fmt);
    }
    return;
  }
  trak__ftrace_args_plain_write(x, set);
}

void trak__ftrace_args_plain_write(const trak_ftrace_text *x, uint32_t set) {
  const trak_tables *t = x->t;
  if (set == TRAK_NULL_U32) return;
  for (uint32_t row = set; row < t->args.n && t->args.arg_set_id[row] == set; row++)
    put_arg(x, row, str(t, t->args.key[row]), F_DEF);
}

int trak__ftrace_line_write(const trak_ftrace_text *x, uint32_t row) {
  const trak_tables *t = x->t;
  if (row >= t->ftrace_event.n) return -1;
  const char *name = str(t, trak__fe_name(t, row));
  if (!strncmp(name, "chrome_event.", 13) || !strncmp(name, "track_event.", 12)) return -1;
  uint32_t utid = t->ftrace_event.utid[row], ucpu = trak__fe_ucpu(t, row);
  const char *task = NULL;
  int64_t tid = 0, tgid = -1;
  if (utid < t->thread.n) {
    task = str(t, t->thread.name[utid]);
    tid = t->thread.tid[utid];
    uint32_t upid = t->thread.upid[utid];
    if (upid != TRAK_NULL_U32 && t->process.pid[upid] != 0) tgid = t->process.pid[upid];
  }
  uint32_t cpu = ucpu < t->cpu.n && t->cpu.cpu[ucpu] != TRAK_NULL_U32 ? t->cpu.cpu[ucpu] : 0;
  int marker = !strcmp(name, "print") || !strcmp(name, "g2d_tracing_mark_write") ||
               !strcmp(name, "dpu_tracing_mark_write");
  trak__ftrace_prefix_write(x->b, task, tid, tgid, cpu, t->ftrace_event.ts[row],
                            marker ? "tracing_mark_write" : name);
  trak__ftrace_args_write(x, name, t->ftrace_event.arg_set_id[row]);
  return 0;
}
