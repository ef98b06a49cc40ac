/*
** trak_protogen: the build-time generator that turns the .proto files into C.
**
** Input is protoc's text rendering of the FileDescriptorSet of protos/ (the build runs
** `protoc --decode=google.protobuf.FileDescriptorSet`), so this program needs no field number of
** descriptor.proto itself: it reads names. Output:
**   trak/protos.h      public: TRAK_PB_<Message>_<field> field numbers and enum value macros
**   schema_tables.c    the runtime schema tables declared in src/pb/schema.h
** Usage: trak_protogen DESCRIPTOR_SET.txt OUT_HEADER OUT_TABLES_C
*/
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a schema-less reader for protoc's text output ---- */

typedef struct node {
  char *name;
  char *value;        /* scalar value (strings unescaped); NULL for a block */
  struct node *child; /* first child of a block */
  struct node *next;  /* next sibling */
} node;

static const char *src, *cur;
static const char *input_path;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "trak_protogen: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static void skip_space(void) {
  while (*cur && isspace((unsigned char)*cur))
    cur++;
}

static char *read_word(void) {
  const char *b = cur;
  while (*cur &&
         (isalnum((unsigned char)*cur) || *cur == '_' || *cur == '-' || *cur == '.' || *cur == '+'))
    cur++;
  if (cur == b) die("%s: unexpected '%c' at offset %ld", input_path, *cur, (long)(cur - src));
  return strndup(b, (size_t)(cur - b));
}

static char *read_quoted(void) {
  size_t cap = 64, n = 0;
  char *out = malloc(cap);
  cur++; /* opening quote */
  while (*cur && *cur != '"') {
    char c = *cur++;
    if (c == '\\') {
      c = *cur++;
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
      else if (c >= '0' && c <= '7') {
        int v = c - '0';
        for (int i = 0; i < 2 && *cur >= '0' && *cur <= '7'; i++)
          v = v * 8 + (*cur++ - '0');
        c = (char)v;
      }
    }
    if (n + 2 > cap) out = realloc(out, cap *= 2);
    out[n++] = c;
  }
  if (*cur != '"') die("%s: unterminated string", input_path);
  cur++;
  out[n] = 0;
  return out;
}

static node *parse_block(int top) {
  node *head = NULL, **tail = &head;
  for (;;) {
    skip_space();
    if (!*cur) {
      if (!top) die("%s: unexpected end of input", input_path);
      return head;
    }
    if (*cur == '}') {
      if (top) die("%s: unbalanced '}'", input_path);
      cur++;
      return head;
    }
    node *n = calloc(1, sizeof *n);
    n->name = read_word();
    skip_space();
    if (*cur == ':') {
      cur++;
      skip_space();
      n->value = *cur == '"' ? read_quoted() : read_word();
    } else if (*cur == '{') {
      cur++;
      n->child = parse_block(0);
    } else {
      die("%s: expected ':' or '{' after %s", input_path, n->name);
    }
    *tail = n;
    tail = &n->next;
  }
}

static const char *get(const node *block, const char *name) {
  for (const node *n = block->child; n; n = n->next)
    if (!strcmp(n->name, name)) return n->value;
  return NULL;
}

/* ---- the collected schema ---- */

typedef struct field {
  const char *name, *type, *type_name;
  long number;
  int repeated, packed;
} field;

typedef struct message {
  char *full_name; /* without leading dot */
  char *c_name;    /* path below the package, '.' -> '_' */
  const char *file;
  field *fields;
  int n_fields;
} message;

typedef struct enum_value {
  const char *name;
  long number;
} enum_value;

typedef struct enum_def {
  char *full_name;
  char *c_scope; /* c_name of the enclosing message, or "" at top level */
  enum_value *values;
  int n_values;
} enum_def;

static message messages[1024];
static int n_messages;
static enum_def enums[512];
static int n_enums;

static char *join(const char *a, const char *sep, const char *b) {
  size_t n = strlen(a) + strlen(sep) + strlen(b) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%s%s%s", *a ? a : "", *a ? sep : "", b);
  return s;
}

static void collect_enum(const node *e, const char *scope_full, const char *scope_c) {
  if (n_enums == (int)(sizeof enums / sizeof *enums)) die("too many enums");
  enum_def *d = &enums[n_enums++];
  d->full_name = join(scope_full, ".", get(e, "name"));
  d->c_scope = strdup(scope_c);
  for (const node *v = e->child; v; v = v->next) {
    if (strcmp(v->name, "value")) continue;
    d->values = realloc(d->values, sizeof *d->values * (size_t)(d->n_values + 1));
    d->values[d->n_values].name = get(v, "name");
    d->values[d->n_values].number = strtol(get(v, "number"), NULL, 10);
    d->n_values++;
  }
}

static int by_number(const void *a, const void *b) {
  long x = ((const field *)a)->number, y = ((const field *)b)->number;
  return (x > y) - (x < y);
}

static void collect_message(const node *m, const char *scope_full, const char *scope_c,
                            const char *file) {
  if (n_messages == (int)(sizeof messages / sizeof *messages)) die("too many messages");
  message *d = &messages[n_messages++];
  d->full_name = join(scope_full, ".", get(m, "name"));
  d->c_name = join(scope_c, "_", get(m, "name"));
  d->file = file;
  for (const node *f = m->child; f; f = f->next) {
    if (!strcmp(f->name, "field")) {
      d->fields = realloc(d->fields, sizeof *d->fields * (size_t)(d->n_fields + 1));
      field *x = &d->fields[d->n_fields++];
      memset(x, 0, sizeof *x);
      x->name = get(f, "name");
      x->number = strtol(get(f, "number"), NULL, 10);
      x->type = get(f, "type");
      x->type_name = get(f, "type_name");
      x->repeated = !strcmp(get(f, "label"), "LABEL_REPEATED");
      for (const node *o = f->child; o; o = o->next)
        if (!strcmp(o->name, "options")) {
          const char *packed = get(o, "packed");
          x->packed = packed && !strcmp(packed, "true");
        }
    }
  }
  qsort(d->fields, (size_t)d->n_fields, sizeof *d->fields, by_number);
  char *c_name = d->c_name, *full = d->full_name; /* d may move? no: static array */
  for (const node *f = m->child; f; f = f->next) {
    if (!strcmp(f->name, "nested_type")) collect_message(f, full, c_name, file);
    if (!strcmp(f->name, "enum_type")) collect_enum(f, full, c_name);
  }
}

static int find_message(const char *type_name) {
  for (int i = 0; i < n_messages; i++)
    if (!strcmp(messages[i].full_name, type_name + 1)) return i;
  die("unresolved message type %s", type_name);
  return -1;
}

static int find_enum(const char *type_name) {
  for (int i = 0; i < n_enums; i++)
    if (!strcmp(enums[i].full_name, type_name + 1)) return i;
  die("unresolved enum type %s", type_name);
  return -1;
}

/* ---- output ---- */

/* Macro names must be unique; a clash would silently shadow a field number. */
static char *emitted[8192];
static int n_emitted;

static void emit_define(FILE *out, const char *name, long value) {
  for (int i = 0; i < n_emitted; i++)
    if (!strcmp(emitted[i], name)) die("generated name %s is defined twice", name);
  if (n_emitted == (int)(sizeof emitted / sizeof *emitted)) die("too many names");
  emitted[n_emitted++] = strdup(name);
  fprintf(out, "#define %s %ld\n", name, value);
}

static void write_header(FILE *out) {
  fprintf(out, "/* Generated by trak_protogen from the .proto files in protos/. Do not edit.\n"
               "** TRAK_PB_<Message>_<field> is a field number; TRAK_PB_<Scope>_<VALUE> an enum"
               " value. */\n#ifndef TRAK_PROTOS_H\n#define TRAK_PROTOS_H\n\n");
  char buf[512];
  for (int i = 0; i < n_messages; i++) {
    const message *m = &messages[i];
    fprintf(out, "/* %s (%s) */\n", m->full_name, m->file);
    for (int j = 0; j < m->n_fields; j++) {
      snprintf(buf, sizeof buf, "TRAK_PB_%s_%s", m->c_name, m->fields[j].name);
      emit_define(out, buf, m->fields[j].number);
    }
    fprintf(out, "\n");
  }
  for (int i = 0; i < n_enums; i++) {
    const enum_def *e = &enums[i];
    fprintf(out, "/* enum %s */\n", e->full_name);
    for (int j = 0; j < e->n_values; j++) {
      snprintf(buf, sizeof buf, "TRAK_PB_%s%s%s", e->c_scope, *e->c_scope ? "_" : "",
               e->values[j].name);
      emit_define(out, buf, e->values[j].number);
    }
    fprintf(out, "\n");
  }
  fprintf(out, "#endif /* TRAK_PROTOS_H */\n");
}

static void write_tables(FILE *out) {
  fprintf(out, "/* Generated by trak_protogen from the .proto files in protos/. Do not edit. */\n"
               "#include \"pb/schema.h\"\n\n");
  for (int i = 0; i < n_messages; i++) {
    const message *m = &messages[i];
    if (!m->n_fields) continue;
    fprintf(out, "static const trak_pb_field_desc fields_%d[] = {\n", i);
    for (int j = 0; j < m->n_fields; j++) {
      const field *f = &m->fields[j];
      int index = -1;
      if (!strcmp(f->type, "TYPE_MESSAGE")) index = find_message(f->type_name);
      if (!strcmp(f->type, "TYPE_ENUM")) index = find_enum(f->type_name);
      fprintf(out, "  {\"%s\", %ld, TRAK_PB_%s, %d, %d, %d},\n", f->name, f->number, f->type,
              f->repeated, f->packed, index);
    }
    fprintf(out, "};\n");
  }
  fprintf(out, "\nconst trak_pb_message_desc trak_pb_messages[] = {\n");
  for (int i = 0; i < n_messages; i++) {
    char fields[32] = "NULL";
    if (messages[i].n_fields) snprintf(fields, sizeof fields, "fields_%d", i);
    fprintf(out, "  {\"%s\", %s, %d},\n", messages[i].full_name, fields, messages[i].n_fields);
  }
  fprintf(out, "};\nconst size_t trak_pb_n_messages = %d;\n\n", n_messages);
  for (int i = 0; i < n_enums; i++) {
    fprintf(out, "static const trak_pb_enum_value_desc values_%d[] = {\n", i);
    for (int j = 0; j < enums[i].n_values; j++)
      fprintf(out, "  {\"%s\", %ld},\n", enums[i].values[j].name, enums[i].values[j].number);
    fprintf(out, "};\n");
  }
  fprintf(out, "\nconst trak_pb_enum_desc trak_pb_enums[] = {\n");
  for (int i = 0; i < n_enums; i++)
    fprintf(out, "  {\"%s\", values_%d, %d},\n", enums[i].full_name, i, enums[i].n_values);
  fprintf(out, "};\nconst size_t trak_pb_n_enums = %d;\n", n_enums);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
  s[n] = 0;
  fclose(f);
  return s;
}

static void write_file(const char *path, void (*writer)(FILE *)) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s", path);
  writer(f);
  if (fclose(f)) die("cannot write %s", path);
}

int main(int argc, char **argv) {
  if (argc != 4) die("usage: trak_protogen DESCRIPTOR_SET.txt OUT_HEADER OUT_TABLES_C");
  input_path = argv[1];
  src = cur = slurp(argv[1]);
  node root = {0};
  root.child = parse_block(1);
  for (const node *file = root.child; file; file = file->next) {
    if (strcmp(file->name, "file")) continue;
    const char *package = get(file, "package");
    const char *name = get(file, "name");
    if (!package || strcmp(package, "perfetto.protos")) continue; /* descriptor.proto etc. */
    for (const node *n = file->child; n; n = n->next) {
      if (!strcmp(n->name, "message_type")) collect_message(n, package, "", name);
      if (!strcmp(n->name, "enum_type")) collect_enum(n, package, "");
    }
  }
  if (!n_messages) die("%s: no messages in package perfetto.protos", input_path);
  write_file(argv[2], write_header);
  write_file(argv[3], write_tables);
  return 0;
}
