/*
** Categories: the registry of static, group and dynamic categories, test-only prefixes, the
** eight-step enable rule of TrackEventConfig, and the per-category session masks the event
** macros read. Masks change only under trak__lock, when a category registers or a session
** starts or stops.
*/
#include <stdlib.h>
#include <string.h>

#include "sdk/internal.h"

static trak_category *registry;
static const char **test_prefixes;
static size_t n_test_prefixes;

/* Glob match with '*' (any run) and '?' (any one character). */
static int glob_match(const char *pat, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*pat == '*') {
      star = pat++;
      resume = s;
    } else if (*pat == '?' || *pat == *s) {
      pat++;
      s++;
    } else if (star) {
      pat = star + 1;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (*pat == '*')
    pat++;
  return *pat == 0;
}

/* Does any pattern of the NULL-terminated `list` match `s`, exactly or as a glob? */
static int list_matches(const char *const *list, const char *s, int exact) {
  for (; list && *list; list++)
    if (exact ? strcmp(*list, s) == 0 : glob_match(*list, s)) return 1;
  return 0;
}

static int tags_match(const char *const *list, const trak_category *cat, int exact) {
  for (int i = 0; i < TRAK_MAX_TAGS && cat->tags[i]; i++)
    if (list_matches(list, cat->tags[i], exact)) return 1;
  return 0;
}

static const char *const default_disabled_tags[] = {"slow", "debug", NULL};

static trak_category *find_locked(const char *name, size_t len) {
  for (trak_category *c = registry; c; c = c->next)
    if (strlen(c->name) == len && memcmp(c->name, name, len) == 0) return c;
  return NULL;
}

/* The rule for one (non-group) category. */
static int single_enabled(const trak_category_config *cfg, const trak_category *cat) {
  const char *const *dis_tags = cfg->disabled_tags ? cfg->disabled_tags : default_disabled_tags;
  for (int exact = 1; exact >= 0; exact--) {
    if (list_matches(cfg->enabled_categories, cat->name, exact)) return 1;
    if (tags_match(cfg->enabled_tags, cat, exact)) return 1;
    if (list_matches(cfg->disabled_categories, cat->name, exact)) return 0;
    if (tags_match(dis_tags, cat, exact)) return 0;
  }
  return 1;
}

/* The rule for any category; trak__lock held (group members are looked up). */
static int enables_locked(const trak_category_config *cfg, const trak_category *cat) {
  if (!strchr(cat->name, ',')) return single_enabled(cfg, cat);
  /* A group: enabled when a member is. Members take their tags from the registry. */
  int on = 0;
  for (const char *p = cat->name; !on;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char name[256];
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, p, len);
    name[len] = 0;
    trak_category member = {0, name, NULL, {0}, 0, 0};
    const trak_category *known = find_locked(p, len);
    if (known) memcpy(member.tags, known->tags, sizeof member.tags);
    on = single_enabled(cfg, &member);
    if (!comma) break;
    p = comma + 1;
  }
  return on;
}

int trak_category_config_enables(const trak_category_config *cfg, const trak_category *cat) {
  pthread_mutex_lock(&trak__lock);
  int on = enables_locked(cfg, cat);
  pthread_mutex_unlock(&trak__lock);
  return on;
}

/* The mask of started sessions that enable `cat`. trak__lock held. */
static uint32_t mask_for(const trak_category *cat) {
  uint32_t mask = 0;
  for (int i = 0; i < TRAK_MAX_SESSIONS; i++) {
    trak_session *s = trak__slots[i].session;
    if (s && s->state == TRAK__S_STARTED && s->track_events && enables_locked(&s->cat_cfg, cat))
      mask |= 1u << i;
  }
  return mask;
}

void trak__categories_update(void) {
  for (trak_category *c = registry; c; c = c->next)
    __atomic_store_n(&c->mask, mask_for(c), __ATOMIC_RELAXED);
}

static void register_locked(trak_category *cat) {
  if (cat->flags & TRAK__CAT_REGISTERED) return;
  cat->flags |= TRAK__CAT_REGISTERED | (strchr(cat->name, ',') ? TRAK__CAT_GROUP : 0);
  cat->next = registry;
  registry = cat;
  __atomic_store_n(&cat->mask, mask_for(cat), __ATOMIC_RELAXED);
}

void trak_category_register(trak_category *cat) {
  pthread_mutex_lock(&trak__lock);
  register_locked(cat);
  pthread_mutex_unlock(&trak__lock);
}

trak_category *trak_category_dynamic(const char *name) {
  pthread_mutex_lock(&trak__lock);
  trak_category *c = find_locked(name, strlen(name));
  if (!c && (c = calloc(1, sizeof *c)) != NULL) {
    char *copy = strdup(name);
    if (!copy) {
      free(c);
      c = NULL;
    } else {
      c->name = copy;
      c->flags = TRAK__CAT_DYNAMIC;
      register_locked(c);
    }
  }
  pthread_mutex_unlock(&trak__lock);
  return c;
}

void trak_category_add_test_prefixes(const char *const *prefixes) {
  pthread_mutex_lock(&trak__lock);
  for (; *prefixes; prefixes++) {
    const char **grown = realloc(test_prefixes, (n_test_prefixes + 1) * sizeof *grown);
    if (!grown) break;
    test_prefixes = grown;
    test_prefixes[n_test_prefixes++] = *prefixes;
  }
  pthread_mutex_unlock(&trak__lock);
}

trak_category *trak_category_test(const char *name) {
  int ok = 0;
  pthread_mutex_lock(&trak__lock);
  for (size_t i = 0; i < n_test_prefixes && !ok; i++) {
    size_t n = strlen(test_prefixes[i]);
    ok = strncmp(name, test_prefixes[i], n) == 0 && (name[n] == 0 || name[n] == '.');
  }
  pthread_mutex_unlock(&trak__lock);
  return ok ? trak_category_dynamic(name) : NULL;
}
