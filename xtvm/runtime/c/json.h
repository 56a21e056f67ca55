/* A small JSON reader and writer for the device runtime (graph JSON, kernel metadata, and the
   headers of the RPC protocol). Values are trees of malloc'd nodes; `json_parse` refuses
   invalid UTF-8, nesting deeper than JSON_MAX_DEPTH and trailing text. */
#ifndef XTVM_JSON_H
#define XTVM_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

typedef enum { JSON_NULL, JSON_BOOL, JSON_INT, JSON_FLOAT, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
  json_type type;
  int boolean;
  int64_t integer;  /* JSON_INT: a number written without fraction or exponent that fits */
  double number;    /* JSON_INT and JSON_FLOAT */
  char *string;     /* JSON_STRING: NUL-terminated, `length` bytes (may hold a NUL itself) */
  size_t length;
  size_t count;     /* JSON_ARRAY and JSON_OBJECT: items (and keys of an object) */
  struct json_value *items;
  char **keys;
} json_value;

/* The value `text` holds, or NULL with a message in `error`. */
json_value *json_parse(const char *text, size_t size, char *error, size_t error_size);
void json_free(json_value *value);

/* The last member `key` of an object (NULL if absent or not an object). */
const json_value *json_get(const json_value *object, const char *key);
/* Item `index` of an array (NULL if out of range or not an array). */
const json_value *json_at(const json_value *array, size_t index);
/* Whether a string value is exactly `text` (no NUL inside). */
int json_is(const json_value *value, const char *text);

/* A growable byte buffer, used to write JSON. */
typedef struct {
  char *data;
  size_t size, capacity;
  int failed; /* an allocation failed: the text is incomplete */
} strbuf;

void sb_append(strbuf *sb, const char *data, size_t size);
void sb_puts(strbuf *sb, const char *text);
void sb_printf(strbuf *sb, const char *format, ...);
void sb_string(strbuf *sb, const char *text, size_t size); /* a JSON string literal */
void sb_json(strbuf *sb, const json_value *value);         /* a value as JSON text */
void sb_free(strbuf *sb);

#endif
