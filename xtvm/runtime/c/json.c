/* JSON for the device runtime: see json.h. */
#define _POSIX_C_SOURCE 200809L
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *p, *end;
  char *error;
  size_t error_size;
  int failed;
} parser;

static void fail(parser *ps, const char *message) {
  if (!ps->failed) snprintf(ps->error, ps->error_size, "%s", message);
  ps->failed = 1;
}

static void skip_space(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static int grow(void **data, size_t *capacity, size_t need, size_t item) {
  if (need <= *capacity) return 1;
  size_t next = *capacity ? *capacity * 2 : 4;
  while (next < need) next *= 2;
  void *bigger = realloc(*data, next * item);
  if (!bigger) return 0;
  *data = bigger;
  *capacity = next;
  return 1;
}

static void put_utf8(char *out, size_t *n, uint32_t c) {
  if (c < 0x80) {
    out[(*n)++] = (char)c;
  } else if (c < 0x800) {
    out[(*n)++] = (char)(0xC0 | (c >> 6));
    out[(*n)++] = (char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out[(*n)++] = (char)(0xE0 | (c >> 12));
    out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (c & 0x3F));
  } else {
    out[(*n)++] = (char)(0xF0 | (c >> 18));
    out[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (c & 0x3F));
  }
}

static int hex4(parser *ps, uint32_t *value) {
  if (ps->end - ps->p < 4) return 0;
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *ps->p++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
    else return 0;
  }
  *value = v;
  return 1;
}

/* A string literal after its opening quote; the result is malloc'd. */
static char *parse_string(parser *ps, size_t *length) {
  const char *start = ps->p;
  while (ps->p < ps->end && *ps->p != '"') ps->p += (*ps->p == '\\') ? 2 : 1;
  if (ps->p >= ps->end) {
    fail(ps, "unterminated string");
    return NULL;
  }
  ps->p = start;
  char *out = malloc((size_t)(ps->end - start) + 1);
  size_t n = 0;
  if (!out) {
    fail(ps, "out of memory");
    return NULL;
  }
  while (*ps->p != '"') {
    unsigned char c = (unsigned char)*ps->p++;
    if (c < 0x20) {
      fail(ps, "control character in string");
      free(out);
      return NULL;
    }
    if (c != '\\') {
      out[n++] = (char)c;
      continue;
    }
    char e = *ps->p++;
    uint32_t code;
    switch (e) {
      case '"': out[n++] = '"'; break;
      case '\\': out[n++] = '\\'; break;
      case '/': out[n++] = '/'; break;
      case 'b': out[n++] = '\b'; break;
      case 'f': out[n++] = '\f'; break;
      case 'n': out[n++] = '\n'; break;
      case 'r': out[n++] = '\r'; break;
      case 't': out[n++] = '\t'; break;
      case 'u':
        if (!hex4(ps, &code)) {
          fail(ps, "bad \\u escape");
          free(out);
          return NULL;
        }
        if (code >= 0xD800 && code < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
            ps->p[1] == 'u') {
          const char *save = ps->p;
          uint32_t low;
          ps->p += 2;
          if (hex4(ps, &low) && low >= 0xDC00 && low < 0xE000)
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          else
            ps->p = save;
        }
        put_utf8(out, &n, code); /* a \uXXXX escape is 6 bytes, its UTF-8 at most 4 */
        break;
      default:
        fail(ps, "bad escape in string");
        free(out);
        return NULL;
    }
  }
  ps->p++;
  out[n] = 0;
  *length = n;
  return out;
}

static void parse_value(parser *ps, json_value *v, int depth);

static void parse_number(parser *ps, json_value *v) {
  const char *start = ps->p;
  int is_float = 0;
  if (ps->p < ps->end && *ps->p == '-') ps->p++;
  if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
    fail(ps, "unexpected character");
    return;
  }
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  if (ps->p < ps->end && *ps->p == '.') {
    is_float = 1;
    ps->p++;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
    is_float = 1;
    ps->p++;
    if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  }
  char text[64];
  size_t size = (size_t)(ps->p - start);
  if (size >= sizeof text) {
    /* a very long number: only its magnitude matters (out of every range we accept) */
    v->type = JSON_FLOAT;
    v->number = (*start == '-') ? -HUGE_VAL : HUGE_VAL;
    return;
  }
  memcpy(text, start, size);
  text[size] = 0;
  v->number = strtod(text, NULL);
  v->type = JSON_FLOAT;
  if (!is_float) {
    errno = 0;
    long long i = strtoll(text, NULL, 10);
    if (errno == 0) {
      v->type = JSON_INT;
      v->integer = (int64_t)i;
    }
  }
}

static void parse_container(parser *ps, json_value *v, int depth, int object) {
  size_t capacity = 0, key_capacity = 0;
  char close = object ? '}' : ']';
  v->type = object ? JSON_OBJECT : JSON_ARRAY;
  skip_space(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
    return;
  }
  for (;;) {
    skip_space(ps);
    if (!grow((void **)&v->items, &capacity, v->count + 1, sizeof(json_value)) ||
        (object && !grow((void **)&v->keys, &key_capacity, v->count + 1, sizeof(char *)))) {
      fail(ps, "out of memory");
      return;
    }
    if (object) {
      size_t length;
      if (ps->p >= ps->end || *ps->p != '"') {
        fail(ps, "expected a string key");
        return;
      }
      ps->p++;
      char *key = parse_string(ps, &length);
      if (!key) return;
      v->keys[v->count] = key;
      skip_space(ps);
      if (ps->p >= ps->end || *ps->p != ':') {
        memset(&v->items[v->count], 0, sizeof(json_value));
        v->count++;
        fail(ps, "expected ':'");
        return;
      }
      ps->p++;
    }
    json_value *item = &v->items[v->count];
    memset(item, 0, sizeof *item);
    v->count++;
    parse_value(ps, item, depth + 1);
    if (ps->failed) return;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == close) {
      ps->p++;
      return;
    }
    fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    return;
  }
}

static int literal(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) return 0;
  ps->p += n;
  return 1;
}

static void parse_value(parser *ps, json_value *v, int depth) {
  if (depth > JSON_MAX_DEPTH) {
    fail(ps, "nesting too deep");
    return;
  }
  skip_space(ps);
  if (ps->p >= ps->end) {
    fail(ps, "unexpected end of text");
    return;
  }
  char c = *ps->p;
  if (c == '{' || c == '[') {
    ps->p++;
    parse_container(ps, v, depth, c == '{');
  } else if (c == '"') {
    ps->p++;
    v->type = JSON_STRING;
    v->string = parse_string(ps, &v->length);
  } else if (literal(ps, "null")) {
    v->type = JSON_NULL;
  } else if (literal(ps, "true")) {
    v->type = JSON_BOOL;
    v->boolean = 1;
  } else if (literal(ps, "false")) {
    v->type = JSON_BOOL;
  } else {
    parse_number(ps, v);
  }
}

static int valid_utf8(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    size_t extra;
    uint32_t code;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      code = c & 0x07;
    } else {
      return 0;
    }
    if (i + extra >= n) return 0;
    for (size_t k = 1; k <= extra; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    if ((extra == 1 && code < 0x80) || (extra == 2 && code < 0x800) ||
        (extra == 3 && (code < 0x10000 || code > 0x10FFFF)) || (code >= 0xD800 && code < 0xE000))
      return 0;
    i += extra + 1;
  }
  return 1;
}

json_value *json_parse(const char *text, size_t size, char *error, size_t error_size) {
  if (!valid_utf8((const unsigned char *)text, size)) {
    snprintf(error, error_size, "invalid UTF-8");
    return NULL;
  }
  json_value *v = calloc(1, sizeof *v);
  if (!v) {
    snprintf(error, error_size, "out of memory");
    return NULL;
  }
  parser ps = {text, text + size, error, error_size, 0};
  parse_value(&ps, v, 0);
  if (!ps.failed) {
    skip_space(&ps);
    if (ps.p != ps.end) fail(&ps, "extra data after the value");
  }
  if (ps.failed) {
    json_free(v);
    return NULL;
  }
  return v;
}

static void free_inside(json_value *v) {
  if (v->type == JSON_STRING) free(v->string);
  if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
    for (size_t i = 0; i < v->count; i++) {
      free_inside(&v->items[i]);
      if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
  }
}

void json_free(json_value *value) {
  if (!value) return;
  free_inside(value);
  free(value);
}

const json_value *json_get(const json_value *object, const char *key) {
  if (!object || object->type != JSON_OBJECT) return NULL;
  for (size_t i = object->count; i-- > 0;)
    if (strcmp(object->keys[i], key) == 0) return &object->items[i];
  return NULL;
}

const json_value *json_at(const json_value *array, size_t index) {
  if (!array || array->type != JSON_ARRAY || index >= array->count) return NULL;
  return &array->items[index];
}

int json_is(const json_value *value, const char *text) {
  return value && value->type == JSON_STRING && strlen(value->string) == value->length &&
         strcmp(value->string, text) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Writing */

void sb_append(strbuf *sb, const char *data, size_t size) {
  if (sb->failed) return;
  if (!grow((void **)&sb->data, &sb->capacity, sb->size + size + 1, 1)) {
    sb->failed = 1;
    return;
  }
  memcpy(sb->data + sb->size, data, size);
  sb->size += size;
  sb->data[sb->size] = 0;
}

void sb_puts(strbuf *sb, const char *text) { sb_append(sb, text, strlen(text)); }

void sb_printf(strbuf *sb, const char *format, ...) {
  char small[256];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_append(sb, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    sb->failed = 1;
    return;
  }
  va_start(args, format);
  vsnprintf(big, (size_t)n + 1, format, args);
  va_end(args);
  sb_append(sb, big, (size_t)n);
  free(big);
}

void sb_string(strbuf *sb, const char *text, size_t size) {
  sb_append(sb, "\"", 1);
  for (size_t i = 0; i < size; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == '"' || c == '\\') {
      char escaped[2] = {'\\', (char)c};
      sb_append(sb, escaped, 2);
    } else if (c < 0x20) {
      sb_printf(sb, "\\u%04x", c);
    } else {
      sb_append(sb, (const char *)&text[i], 1);
    }
  }
  sb_append(sb, "\"", 1);
}

void sb_json(strbuf *sb, const json_value *v) {
  switch (v->type) {
    case JSON_NULL: sb_puts(sb, "null"); break;
    case JSON_BOOL: sb_puts(sb, v->boolean ? "true" : "false"); break;
    case JSON_INT: sb_printf(sb, "%lld", (long long)v->integer); break;
    case JSON_FLOAT: sb_printf(sb, isfinite(v->number) ? "%.17g" : "null", v->number); break;
    case JSON_STRING: sb_string(sb, v->string, v->length); break;
    case JSON_ARRAY:
    case JSON_OBJECT:
      sb_puts(sb, v->type == JSON_ARRAY ? "[" : "{");
      for (size_t i = 0; i < v->count; i++) {
        if (i) sb_puts(sb, ",");
        if (v->type == JSON_OBJECT) {
          sb_string(sb, v->keys[i], strlen(v->keys[i]));
          sb_puts(sb, ":");
        }
        sb_json(sb, &v->items[i]);
      }
      sb_puts(sb, v->type == JSON_ARRAY ? "]" : "}");
      break;
  }
}

void sb_free(strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->size = sb->capacity = 0;
}
