/* xtvm-rpc-device: the RPC server of docs/rpc-protocol.md on the device runtime, no Python.

     xtvm-rpc-device --host H --port P [--key K] [--tracker H:P] [--max-sessions N]
                     [--custom-addr A]

   The listening process only accepts connections and forks a session process for each (at
   most --max-sessions at once), which does the handshake, parses every message and runs the
   kernels. When a session process dies of a signal (a crashing kernel, the session timeout)
   the listening process writes the fatal `error` on the connection, closes it, removes the
   session directory and goes on serving. With a tracker it registers its key and port and
   reports its free slots. Limits and request semantics are those of xtvm/rpc/session.py. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "runtime.h"

#define PROTOCOL_VERSION 1
#define MAX_HEADER (1u << 20)
#define MAX_BODY (1ull << 30)
#define MAX_ARRAY (1ull << 30)
#define MAX_SESSION_BYTES (4ull << 30)
#define MAX_HANDLES 65536
#define MAX_MODULES 64 /* libraries loaded at once per session */
#define MAX_NAME_LENGTH 255
#define MAX_NUMBER (1 << 24)
#define MAX_REPEAT 1000
#define MAX_MIN_REPEAT_MS 60000
#define HANDSHAKE_TIMEOUT_S 10
#define MAX_SERVED 64 /* session processes tracked at once (busy ones included) */

/* ------------------------------------------------------------------------------------------ */
/* Framing */

static int write_all(int fd, const void *data, size_t size) {
  const char *p = data;
  while (size) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

/* 1: all read; 0: the stream ended before any byte; -1: error or a short read. */
static int read_all(int fd, void *data, size_t size) {
  char *p = data;
  size_t got = 0;
  while (got < size) {
    ssize_t n = recv(fd, p + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return got == 0 && n == 0 ? 0 : -1;
    got += (size_t)n;
  }
  return 1;
}

static void put_be(uint8_t *p, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static uint64_t get_be(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = (v << 8) | p[i];
  return v;
}

/* Send a message: `header` JSON text, then the body's parts one after another. */
static int send_message(int fd, const char *header, const void *const *parts,
                        const size_t *sizes, int num_parts) {
  uint8_t prefix[16];
  size_t header_size = strlen(header);
  uint64_t body = 0;
  for (int i = 0; i < num_parts; i++) body += sizes[i];
  memcpy(prefix, "XRPC", 4);
  put_be(prefix + 4, header_size, 4);
  put_be(prefix + 8, body, 8);
  if (write_all(fd, prefix, 16) || write_all(fd, header, header_size)) return -1;
  for (int i = 0; i < num_parts; i++)
    if (sizes[i] && write_all(fd, parts[i], sizes[i])) return -1;
  return 0;
}

static void send_error(int fd, const char *type, const char *message, int fatal) {
  strbuf sb = {0};
  sb_puts(&sb, "{\"kind\":\"error\",\"type\":");
  sb_string(&sb, type, strlen(type));
  sb_puts(&sb, ",\"message\":");
  sb_string(&sb, message, strnlen(message, 4096));
  sb_puts(&sb, fatal ? ",\"fatal\":true}" : "}");
  if (!sb.failed) send_message(fd, sb.data, NULL, NULL, 0);
  sb_free(&sb);
}

typedef struct {
  json_value *header;
  uint8_t *body;
  size_t body_size;
} message;

/* The next message: 1, 0 when the peer closed between messages, -1 with `error` (a protocol
   error: the session ends). */
static int receive_message(int fd, message *m, uint32_t max_header, uint64_t max_body,
                           char *error) {
  uint8_t prefix[16];
  char parse_error[256];
  memset(m, 0, sizeof *m);
  int got = read_all(fd, prefix, 16);
  if (got == 0) return 0;
  if (got < 0) {
    snprintf(error, XTVM_ERROR_SIZE, "the connection closed in the middle of a message");
    return -1;
  }
  if (memcmp(prefix, "XRPC", 4) != 0) {
    snprintf(error, XTVM_ERROR_SIZE, "not an xtvm RPC message (starts with %.4s)", prefix);
    for (char *c = error; *c; c++)
      if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e) *c = '?';
    return -1;
  }
  uint64_t header_size = get_be(prefix + 4, 4), body_size = get_be(prefix + 8, 8);
  if (header_size > max_header) {
    snprintf(error, XTVM_ERROR_SIZE, "header of %llu bytes exceeds %u",
             (unsigned long long)header_size, max_header);
    return -1;
  }
  if (body_size > max_body) {
    snprintf(error, XTVM_ERROR_SIZE, "body of %llu bytes exceeds %llu",
             (unsigned long long)body_size, (unsigned long long)max_body);
    return -1;
  }
  char *text = malloc((size_t)header_size + 1);
  if (!text || read_all(fd, text, (size_t)header_size) != 1) {
    free(text);
    snprintf(error, XTVM_ERROR_SIZE, "the connection closed in the middle of a message");
    return -1;
  }
  m->header = json_parse(text, (size_t)header_size, parse_error, sizeof parse_error);
  free(text);
  if (!m->header) {
    snprintf(error, XTVM_ERROR_SIZE, "header is not JSON: %s", parse_error);
    return -1;
  }
  const json_value *kind = json_get(m->header, "kind");
  if (m->header->type != JSON_OBJECT || !kind || kind->type != JSON_STRING) {
    snprintf(error, XTVM_ERROR_SIZE, "header must be a JSON object with a string 'kind'");
    return -1;
  }
  if (body_size) {
    m->body = malloc((size_t)body_size);
    if (!m->body) {
      snprintf(error, XTVM_ERROR_SIZE, "no memory for a body of %llu bytes",
               (unsigned long long)body_size);
      return -1;
    }
    if (read_all(fd, m->body, (size_t)body_size) != 1) {
      snprintf(error, XTVM_ERROR_SIZE, "the connection closed in the middle of a message");
      return -1;
    }
  }
  m->body_size = (size_t)body_size;
  return 1;
}

static void free_message(message *m) {
  json_free(m->header);
  free(m->body);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------------------------ */
/* A session: objects by handle, and the answer to each request */

typedef enum { OBJ_NONE, OBJ_MODULE, OBJ_FUNCTION, OBJ_FACTORY, OBJ_GRAPH, OBJ_METHOD, OBJ_ARRAY } obj_kind;

typedef enum { M_SET_INPUT, M_RUN, M_GET_OUTPUT, M_GET_INPUT, M_NUM_INPUTS, M_NUM_OUTPUTS,
               M_INPUT_INFO, NUM_METHODS } method_id;
static const char *const METHODS[NUM_METHODS] = {
    "set_input", "run", "get_output", "get_input", "get_num_inputs", "get_num_outputs",
    "get_input_info"};

/* A loaded library, unloaded when the last object made from it goes. */
typedef struct {
  int refs;
  xtvm_module *module;
} module_ref;

typedef struct {
  int refs;
  xtvm_graph *graph;
  module_ref *module;
} graph_ref;

typedef struct {
  obj_kind kind;
  int64_t handle;
  module_ref *module; /* modules, their functions and factories */
  xtvm_kernel *kernel;
  graph_ref *graph;
  method_id method;
  xtvm_tensor array; /* OBJ_ARRAY: owns its data, unless `graph` is set (a view of its buffer) */
} object;

typedef struct {
  int fd;
  int directory; /* the session directory, opened */
  const char *directory_path;
  object *objects;
  size_t num_objects, capacity;
  int64_t next_handle;
  uint64_t array_bytes;
  char **uploaded_names;
  uint64_t *uploaded_sizes;
  size_t num_uploaded;
  int num_modules; /* loaded */
  /* the reply being built */
  strbuf reply;
  const void *parts[2];
  size_t sizes[2];
  int num_parts;
  void *owned_part;
  /* the error of the failing request */
  const char *error_type;
  char error[XTVM_ERROR_SIZE];
  int fatal;
} session;

/* Fail the request: a protocol error ends the session, any other only the request. */
#define PROTOCOL(...) return (s->fatal = 1, s->error_type = "ProtocolError", \
                              snprintf(s->error, sizeof s->error, __VA_ARGS__), -1)
#define FAIL(type, ...) return (s->error_type = type, \
                                snprintf(s->error, sizeof s->error, __VA_ARGS__), -1)

static uint64_t used_bytes(const session *s) {
  uint64_t total = s->array_bytes;
  for (size_t i = 0; i < s->num_uploaded; i++) total += s->uploaded_sizes[i];
  return total;
}

static int reserve(session *s, uint64_t bytes) {
  if (used_bytes(s) + bytes > MAX_SESSION_BYTES)
    PROTOCOL("session memory limit of %llu bytes exceeded", (unsigned long long)MAX_SESSION_BYTES);
  return 0;
}

static object *add_object(session *s, obj_kind kind) {
  if (s->num_objects >= MAX_HANDLES) return NULL;
  if (s->num_objects == s->capacity) {
    size_t capacity = s->capacity ? s->capacity * 2 : 64;
    object *bigger = realloc(s->objects, capacity * sizeof(object));
    if (!bigger) return NULL;
    s->objects = bigger;
    s->capacity = capacity;
  }
  object *o = &s->objects[s->num_objects++];
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->handle = s->next_handle++;
  return o;
}

static int add_failed(session *s) {
  PROTOCOL("more than %d live objects", MAX_HANDLES);
}

static object *find_object(session *s, int64_t handle) {
  size_t low = 0, high = s->num_objects; /* handles grow: the table stays sorted */
  while (low < high) {
    size_t mid = (low + high) / 2;
    if (s->objects[mid].handle < handle) low = mid + 1;
    else high = mid;
  }
  return low < s->num_objects && s->objects[low].handle == handle ? &s->objects[low] : NULL;
}

static void release_module(session *s, module_ref *ref) {
  if (ref && --ref->refs == 0) {
    xtvm_module_free(ref->module);
    free(ref);
    s->num_modules--;
  }
}

static void release_graph(session *s, graph_ref *ref) {
  if (ref && --ref->refs == 0) {
    xtvm_graph_free(ref->graph);
    release_module(s, ref->module);
    free(ref);
  }
}

static void free_object(session *s, object *o) {
  if (o->kind == OBJ_ARRAY && !o->graph) {
    free(o->array.data);
    s->array_bytes -= xtvm_tensor_bytes(&o->array);
  }
  release_graph(s, o->graph); /* graphs, their methods, views of their buffers */
  release_module(s, o->module);
  size_t index = (size_t)(o - s->objects);
  memmove(o, o + 1, (s->num_objects - index - 1) * sizeof(object));
  s->num_objects--;
}

/* -- reading header fields ------------------------------------------------------------------ */

/* The `kind` of a message, or of an argument object (which has none: 'None', as Python says). */
static const char *kind_of(const json_value *header) {
  const json_value *kind = json_get(header, "kind");
  return kind && kind->type == JSON_STRING ? kind->string : "None";
}

static int field_int(session *s, const json_value *h, const char *name, int64_t low, int64_t high,
                     int64_t *out) {
  const json_value *v = json_get(h, name);
  if (!v || v->type != JSON_INT) PROTOCOL("'%.64s' message: field '%s' must be int", kind_of(h), name);
  if (v->integer < low || v->integer > high)
    PROTOCOL("field '%s' = %lld is outside [%lld, %lld]", name, (long long)v->integer,
             (long long)low, (long long)high);
  *out = v->integer;
  return 0;
}

static int field_handle(session *s, const json_value *h, const char *name, int64_t *out) {
  const json_value *v = json_get(h, name);
  if (!v || v->type != JSON_INT) PROTOCOL("'%.64s' message: field '%s' must be int", kind_of(h), name);
  *out = v->integer;
  return 0;
}

static int field_name(session *s, const json_value *h, const char *name, const json_value **out) {
  const json_value *v = json_get(h, name);
  if (!v || v->type != JSON_STRING) PROTOCOL("'%.64s' message: field '%s' must be str", kind_of(h), name);
  if (v->length == 0 || v->length > MAX_NAME_LENGTH * 4)
    PROTOCOL("field '%s' must have 1 to %d characters", name, MAX_NAME_LENGTH);
  *out = v;
  return 0;
}

/* An upload or load name: one plain path component. */
static int file_name(session *s, const json_value *h, const char **out) {
  const json_value *v;
  if (field_name(s, h, "name", &v)) return -1;
  const char *n = v->string;
  size_t chars = 0;
  for (size_t i = 0; i < v->length; i++) chars += ((unsigned char)n[i] & 0xC0) != 0x80;
  if (chars > MAX_NAME_LENGTH || strlen(n) != v->length || strchr(n, '/') || strchr(n, '\\') ||
      strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || n[0] == '.')
    PROTOCOL("refused file name '%.64s': names are one plain component", n);
  *out = n;
  return 0;
}

/* A tensor descriptor's dtype, shape and byte size, all within the limits. */
static int descriptor(session *s, const json_value *d, xtvm_tensor *t, uint64_t *nbytes) {
  if (!d || d->type != JSON_OBJECT) PROTOCOL("a tensor descriptor must be an object");
  const json_value *dtype = json_get(d, "dtype"), *shape = json_get(d, "shape");
  if (!dtype || dtype->type != JSON_STRING) PROTOCOL("a tensor descriptor's 'dtype' must be str");
  t->dtype = strlen(dtype->string) == dtype->length ? xtvm_dtype_of(dtype->string) : -1;
  if (t->dtype < 0) PROTOCOL("unsupported tensor dtype '%.32s'", dtype->string);
  if (!shape || shape->type != JSON_ARRAY) PROTOCOL("a tensor descriptor's 'shape' must be list");
  if (shape->count > XTVM_MAX_NDIM)
    PROTOCOL("tensor of rank %zu exceeds %d", shape->count, XTVM_MAX_NDIM);
  t->ndim = (int)shape->count;
  int zero = 0;
  for (int i = 0; i < t->ndim; i++) {
    const json_value *dim = &shape->items[i];
    if (dim->type != JSON_INT || dim->integer < 0)
      PROTOCOL("tensor dimensions must be non-negative integers");
    if ((uint64_t)dim->integer > MAX_ARRAY) PROTOCOL("tensor dimension exceeds %llu", MAX_ARRAY);
    t->shape[i] = dim->integer;
    zero |= dim->integer == 0;
  }
  uint64_t bytes = zero ? 0 : xtvm_dtype_size(t->dtype);
  for (int i = 0; i < t->ndim && bytes; i++) {
    bytes *= (uint64_t)t->shape[i]; /* each factor <= 2^30, the product so far <= 2^30 */
    if (bytes > MAX_ARRAY) PROTOCOL("tensor of more than %llu bytes exceeds %llu", MAX_ARRAY, MAX_ARRAY);
  }
  *nbytes = bytes;
  return 0;
}

/* The tensors a message lays out in its body (views of the body). */
static int split_tensors(session *s, const json_value *list, const message *m, xtvm_tensor *out,
                         int capacity, int *count) {
  uint64_t offset = 0;
  *count = 0;
  static const json_value none = {JSON_ARRAY, 0, 0, 0, NULL, 0, 0, NULL, NULL};
  if (!list) list = &none;
  if (list->type != JSON_ARRAY || list->count > MAX_HANDLES)
    PROTOCOL("'tensors' must be a list of descriptors");
  for (size_t i = 0; i < list->count; i++) {
    xtvm_tensor t;
    uint64_t nbytes;
    if (descriptor(s, &list->items[i], &t, &nbytes)) return -1;
    const json_value *given = json_get(&list->items[i], "nbytes");
    if (!given || given->type != JSON_INT || (uint64_t)given->integer != nbytes ||
        offset + nbytes > m->body_size)
      PROTOCOL("tensor bytes do not match the descriptor or the body");
    if (*count >= capacity) PROTOCOL("too many tensors");
    t.data = m->body + offset;
    out[(*count)++] = t;
    offset += nbytes;
  }
  if (offset != m->body_size)
    PROTOCOL("body has %llu bytes beyond its tensors", (unsigned long long)(m->body_size - offset));
  return 0;
}

/* -- replies -------------------------------------------------------------------------------- */

static void reply_ok(session *s) { sb_puts(&s->reply, "{\"kind\":\"ok\""); }

static int new_array(session *s, const xtvm_tensor *like, const void *values, int64_t *handle) {
  size_t bytes = xtvm_tensor_bytes(like);
  if (reserve(s, bytes)) return -1;
  object *o = add_object(s, OBJ_ARRAY);
  if (!o) return add_failed(s);
  o->array = *like;
  o->array.data = xtvm_alloc(bytes);
  if (!o->array.data) {
    s->num_objects--;
    FAIL("MemoryError", "cannot allocate %zu bytes", bytes);
  }
  if (values) memcpy(o->array.data, values, bytes);
  s->array_bytes += bytes;
  *handle = o->handle;
  return 0;
}

static void shape_json(strbuf *sb, const xtvm_tensor *t) {
  sb_puts(sb, "[");
  for (int d = 0; d < t->ndim; d++) sb_printf(sb, "%s%lld", d ? "," : "", (long long)t->shape[d]);
  sb_puts(sb, "]");
}

/* -- files and modules ---------------------------------------------------------------------- */

static int do_upload(session *s, const message *m) {
  const char *name;
  if (file_name(s, m->header, &name)) return -1;
  size_t slot = s->num_uploaded;
  for (size_t i = 0; i < s->num_uploaded; i++)
    if (strcmp(s->uploaded_names[i], name) == 0) slot = i;
  if (slot < s->num_uploaded) s->uploaded_sizes[slot] = 0;
  if (slot == MAX_HANDLES) PROTOCOL("more than %d files uploaded", MAX_HANDLES);
  if (reserve(s, m->body_size)) return -1;
  /* A new file, not the old one rewritten: a library loaded from it keeps its own pages. */
  if (unlinkat(s->directory, name, 0) != 0 && errno != ENOENT)
    FAIL("OSError", "cannot replace '%s': %s", name, strerror(errno));
  int fd = openat(s->directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (fd < 0) FAIL("OSError", "cannot write '%s': %s", name, strerror(errno));
  int failed = m->body_size && write(fd, m->body, m->body_size) != (ssize_t)m->body_size;
  close(fd);
  if (failed) FAIL("OSError", "cannot write '%s'", name);
  if (slot == s->num_uploaded) {
    char **names = realloc(s->uploaded_names, (slot + 1) * sizeof(char *));
    if (names) s->uploaded_names = names;
    uint64_t *sizes = realloc(s->uploaded_sizes, (slot + 1) * sizeof(uint64_t));
    if (sizes) s->uploaded_sizes = sizes;
    if (!names || !sizes || !(s->uploaded_names[slot] = strdup(name)))
      FAIL("MemoryError", "out of memory");
    s->num_uploaded++;
  }
  s->uploaded_sizes[slot] = m->body_size;
  reply_ok(s);
  return 0;
}

static int do_remove(session *s, const message *m) {
  const char *name;
  if (file_name(s, m->header, &name)) return -1;
  if (unlinkat(s->directory, name, 0) != 0)
    FAIL(errno == ENOENT ? "FileNotFoundError" : "OSError", "cannot remove '%s': %s", name,
         strerror(errno));
  for (size_t i = 0; i < s->num_uploaded; i++) {
    if (strcmp(s->uploaded_names[i], name) != 0) continue;
    free(s->uploaded_names[i]);
    s->uploaded_names[i] = s->uploaded_names[--s->num_uploaded];
    s->uploaded_sizes[i] = s->uploaded_sizes[s->num_uploaded];
    break;
  }
  reply_ok(s);
  return 0;
}

/* Open an uploaded file of the session directory (not a link, a regular file). */
static int open_uploaded(session *s, const char *name, struct stat *st) {
  int fd = openat(s->directory, name, O_RDONLY | O_NOFOLLOW);
  if (fd < 0 || fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    if (fd >= 0) close(fd);
    FAIL("FileNotFoundError", "no file '%s' uploaded in this session", name);
  }
  return fd;
}

static int do_download(session *s, const message *m) {
  const char *name;
  struct stat st;
  if (file_name(s, m->header, &name)) return -1;
  int fd = open_uploaded(s, name, &st);
  if (fd < 0) return -1;
  if ((uint64_t)st.st_size > MAX_BODY) {
    close(fd);
    FAIL("FileNotFoundError", "no file '%s' in the session directory", name);
  }
  s->owned_part = malloc((size_t)st.st_size + 1);
  ssize_t got = s->owned_part ? read(fd, s->owned_part, (size_t)st.st_size) : -1;
  close(fd);
  if (got != (ssize_t)st.st_size) FAIL("OSError", "cannot read '%s'", name);
  s->parts[0] = s->owned_part;
  s->sizes[0] = (size_t)st.st_size;
  s->num_parts = 1;
  reply_ok(s);
  return 0;
}

static int do_load_module(session *s, const message *m) {
  const char *name;
  struct stat st;
  if (file_name(s, m->header, &name)) return -1;
  int fd = open_uploaded(s, name, &st);
  if (fd < 0) return -1;
  close(fd);
  if (s->num_modules >= MAX_MODULES)
    FAIL("SessionLimitError",
         "%d modules are loaded in this session, the most it may hold: free the modules no "
         "longer used (their functions and executors too)",
         s->num_modules);
  char path[128 + MAX_NAME_LENGTH * 4];
  snprintf(path, sizeof path, "%s/%s", s->directory_path, name);
  char error[XTVM_ERROR_SIZE] = "";
  module_ref *ref = calloc(1, sizeof *ref);
  if (!ref) FAIL("MemoryError", "out of memory");
  xtvm_module *module = xtvm_module_load(path, error);
  if (!module) {
    free(ref);
    FAIL("ValueError", "%s", error);
  }
  object *o = add_object(s, OBJ_MODULE);
  if (!o) {
    free(ref);
    xtvm_module_free(module);
    return add_failed(s);
  }
  ref->refs = 1;
  ref->module = module;
  o->module = ref;
  s->num_modules++;
  reply_ok(s);
  sb_printf(&s->reply, ",\"handle\":%lld,\"functions\":[", (long long)o->handle);
  for (int i = 0; i < module->num_kernels; i++) {
    if (i) sb_puts(&s->reply, ",");
    sb_string(&s->reply, module->kernels[i].name, strlen(module->kernels[i].name));
  }
  if (xtvm_module_has_model(module))
    sb_puts(&s->reply, module->num_kernels ? ",\"default\"" : "\"default\"");
  sb_puts(&s->reply, "]");
  return 0;
}

static int do_get_function(session *s, const message *m) {
  const json_value *name;
  int64_t handle;
  if (field_name(s, m->header, "name", &name) || field_handle(s, m->header, "module", &handle))
    return -1;
  object *owner = find_object(s, handle);
  if (!owner || (owner->kind != OBJ_MODULE && owner->kind != OBJ_GRAPH))
    PROTOCOL("no module or graph with handle %lld", (long long)handle);
  if (owner->kind == OBJ_GRAPH) {
    int method = -1;
    for (int i = 0; i < NUM_METHODS; i++)
      if (json_is(name, METHODS[i])) method = i;
    if (method < 0) FAIL("AttributeError", "a graph executor has no function '%.255s'", name->string);
    graph_ref *graph = owner->graph;
    object *o = add_object(s, OBJ_METHOD);
    if (!o) return add_failed(s);
    o->graph = graph;
    graph->refs++;
    o->method = (method_id)method;
    reply_ok(s);
    sb_printf(&s->reply, ",\"handle\":%lld", (long long)o->handle);
    return 0;
  }
  module_ref *ref = owner->module;
  xtvm_module *module = ref->module;
  xtvm_kernel *kernel = strlen(name->string) == name->length
                            ? xtvm_module_kernel(module, name->string)
                            : NULL;
  if (!kernel && json_is(name, "default") && xtvm_module_has_model(module)) {
    object *o = add_object(s, OBJ_FACTORY);
    if (!o) return add_failed(s);
    o->module = ref;
    ref->refs++;
    reply_ok(s);
    sb_printf(&s->reply, ",\"handle\":%lld", (long long)o->handle);
    return 0;
  }
  if (!kernel) FAIL("AttributeError", "module has no function '%.255s'", name->string);
  object *o = add_object(s, OBJ_FUNCTION);
  if (!o) return add_failed(s);
  o->module = ref;
  ref->refs++;
  o->kernel = kernel;
  reply_ok(s);
  sb_printf(&s->reply, ",\"handle\":%lld,\"params\":[", (long long)o->handle);
  for (int i = 0; i < kernel->num_params; i++) {
    if (i) sb_puts(&s->reply, ",");
    sb_json(&s->reply, kernel->params[i].json);
  }
  sb_puts(&s->reply, "]");
  return 0;
}

/* -- calls ---------------------------------------------------------------------------------- */

#define MAX_ARGS 4096

typedef struct {
  enum { V_ARRAY, V_TENSOR, V_INT, V_FLOAT, V_STR, V_DEVICE } kind;
  xtvm_tensor *tensor; /* V_ARRAY, V_TENSOR */
  int64_t integer;
  double number;
  const char *string;
} value;

/* The arguments of a call: arrays by handle, tensors inline, scalars; `*inline_tensors` holds
   the inline ones (views of the body) and must be freed. */
static int arguments(session *s, const message *m, value *values, int *count,
                     xtvm_tensor **inline_tensors) {
  const json_value *tensors = json_get(m->header, "tensors");
  size_t capacity = tensors && tensors->type == JSON_ARRAY ? tensors->count + 1 : 1;
  int num_inline;
  *inline_tensors = malloc(capacity * sizeof(xtvm_tensor));
  if (!*inline_tensors) FAIL("MemoryError", "out of memory");
  if (split_tensors(s, tensors, m, *inline_tensors, (int)capacity, &num_inline)) return -1;
  const json_value *args = json_get(m->header, "args");
  if (!args || args->type != JSON_ARRAY) PROTOCOL("'%.64s' message: field 'args' must be list", kind_of(m->header));
  if (args->count > MAX_ARGS) PROTOCOL("too many arguments");
  *count = (int)args->count;
  for (size_t i = 0; i < args->count; i++) {
    const json_value *arg = &args->items[i];
    if (arg->type != JSON_OBJECT || arg->count != 1) PROTOCOL("an argument is an object with one field");
    const char *kind = arg->keys[0];
    const json_value *v = &arg->items[0];
    value *out = &values[i];
    if (strcmp(kind, "array") == 0) {
      int64_t handle;
      if (field_handle(s, arg, "array", &handle)) return -1;
      object *o = find_object(s, handle);
      if (!o || o->kind != OBJ_ARRAY) PROTOCOL("no array with handle %lld", (long long)handle);
      out->kind = V_ARRAY;
      out->tensor = &o->array;
    } else if (strcmp(kind, "tensor") == 0) {
      int64_t index;
      if (field_int(s, arg, "tensor", 0, num_inline - 1, &index)) return -1;
      out->kind = V_TENSOR;
      out->tensor = &(*inline_tensors)[index];
    } else if (strcmp(kind, "int") == 0 && v->type == JSON_INT) {
      out->kind = V_INT;
      out->integer = v->integer;
    } else if (strcmp(kind, "float") == 0 && v->type == JSON_FLOAT) {
      out->kind = V_FLOAT;
      out->number = v->number;
    } else if (strcmp(kind, "float") == 0 && v->type == JSON_STRING &&
               (json_is(v, "inf") || json_is(v, "-inf") || json_is(v, "nan"))) {
      out->kind = V_FLOAT; /* what JSON cannot hold travels by name */
      out->number = json_is(v, "nan") ? (double)NAN : json_is(v, "inf") ? (double)INFINITY
                                                                         : -(double)INFINITY;
    } else if (strcmp(kind, "str") == 0 && v->type == JSON_STRING) {
      out->kind = V_STR;
      out->string = v->string;
    } else if (strcmp(kind, "device") == 0 && v->type == JSON_ARRAY) {
      const json_value *id = json_at(v, 1);
      if (v->count != 2 || !json_is(json_at(v, 0), "cpu") || id->type != JSON_INT)
        FAIL("ValueError", "this server has only cpu devices");
      out->kind = V_DEVICE;
    } else {
      PROTOCOL("malformed argument '%.64s'", kind);
    }
  }
  return 0;
}

static int prepare_kernel(session *s, object *function, const value *values, int count,
                          xtvm_call *call) {
  xtvm_arg *args = calloc((size_t)count + 1, sizeof(xtvm_arg));
  if (!args) FAIL("MemoryError", "out of memory for %d arguments", count);
  for (int i = 0; i < count; i++) {
    if (values[i].kind == V_ARRAY || values[i].kind == V_TENSOR) {
      args[i].kind = XTVM_ARG_TENSOR;
      args[i].tensor = values[i].tensor;
    } else if (values[i].kind == V_INT) {
      args[i].kind = XTVM_ARG_INT;
      args[i].integer = values[i].integer;
    } else if (values[i].kind == V_FLOAT) {
      args[i].kind = XTVM_ARG_FLOAT;
      args[i].number = values[i].number;
    } else {
      const xtvm_kernel *k = function->kernel;
      free(args);
      FAIL("ArgumentError", "%s: argument %d (%s): a kernel takes arrays and numbers, not a %s",
           k->name, i, i < k->num_params ? k->params[i].name : "?",
           values[i].kind == V_STR ? "string" : "device");
    }
  }
  int failed =
      xtvm_prepare(call, function->module->module, function->kernel, args, count, s->error);
  free(args);
  if (failed) {
    s->error_type = "ArgumentError";
    return -1;
  }
  return 0;
}

/* The input a graph method's key names: an index or a name. */
static int graph_input(session *s, xtvm_graph *g, const value *key) {
  int index = -1;
  if (key->kind == V_INT && key->integer >= 0 && key->integer < g->num_inputs)
    index = (int)key->integer;
  else if (key->kind == V_STR)
    index = xtvm_graph_input_index(g, key->string);
  if (index < 0) {
    s->error_type = "GraphInputError";
    strbuf names = {0};
    for (int i = 0; i < g->num_inputs; i++)
      sb_printf(&names, "%s'%s'", i ? ", " : "", g->input_names[i]);
    snprintf(s->error, sizeof s->error, "graph has no input %s%s%s (inputs: %s)",
             key->kind == V_STR ? "'" : "", key->kind == V_STR ? key->string : "of that index",
             key->kind == V_STR ? "'" : "", names.data ? names.data : "");
    sb_free(&names);
  }
  return index;
}

static int graph_call(session *s, object *method, const value *values, int count) {
  xtvm_graph *g = method->graph->graph;
  const char *name = METHODS[method->method];
  int want = method->method == M_SET_INPUT ? 2
             : method->method == M_GET_OUTPUT || method->method == M_GET_INPUT ? 1 : 0;
  if (count != want) FAIL("TypeError", "%s takes %d arguments, got %d", name, want, count);
  int64_t handle;
  switch (method->method) {
    case M_SET_INPUT: {
      int index = graph_input(s, g, &values[0]);
      if (index < 0) return -1;
      if (values[1].kind != V_ARRAY && values[1].kind != V_TENSOR)
        FAIL("GraphInputError", "input '%s': expected an array", g->input_names[index]);
      if (xtvm_graph_set_input(g, index, values[1].tensor, s->error)) {
        s->error_type = "GraphInputError";
        return -1;
      }
      reply_ok(s);
      sb_puts(&s->reply, ",\"ret\":null");
      return 0;
    }
    case M_RUN:
      if (xtvm_graph_run(g, s->error, &s->error_type)) return -1;
      reply_ok(s);
      sb_puts(&s->reply, ",\"ret\":null");
      return 0;
    case M_GET_OUTPUT:
    case M_GET_INPUT: {
      const xtvm_tensor *entry;
      if (method->method == M_GET_OUTPUT) {
        if (values[0].kind != V_INT || values[0].integer < 0 || values[0].integer >= g->num_outputs)
          FAIL("IndexError", "output index out of range (%d outputs)", g->num_outputs);
        entry = &g->entries[g->output_entries[values[0].integer]];
      } else {
        int index = graph_input(s, g, &values[0]);
        if (index < 0) return -1;
        entry = &g->entries[g->input_entries[index]];
      }
      graph_ref *owner = method->graph; /* read before add_object moves the table */
      object *view = add_object(s, OBJ_ARRAY); /* TVM's: refers to the executor's buffer */
      if (!view) return add_failed(s);
      view->array = *entry;
      view->graph = owner;
      owner->refs++;
      handle = view->handle;
      reply_ok(s);
      sb_printf(&s->reply, ",\"ret\":{\"array\":%lld,\"dtype\":\"%s\",\"shape\":", (long long)handle,
                xtvm_dtype_name(entry->dtype));
      shape_json(&s->reply, entry);
      sb_puts(&s->reply, "}");
      return 0;
    }
    case M_NUM_INPUTS:
    case M_NUM_OUTPUTS:
      reply_ok(s);
      sb_printf(&s->reply, ",\"ret\":{\"int\":%d}",
                method->method == M_NUM_INPUTS ? g->num_inputs : g->num_outputs);
      return 0;
    default: /* M_INPUT_INFO */
      reply_ok(s);
      for (int part = 0; part < 2; part++) {
        sb_puts(&s->reply, part ? ",\"dtypes\":{" : ",\"ret\":{\"shapes\":{");
        for (int i = 0; i < g->num_inputs; i++) {
          const xtvm_tensor *entry = &g->entries[g->input_entries[i]];
          if (i) sb_puts(&s->reply, ",");
          sb_string(&s->reply, g->input_names[i], strlen(g->input_names[i]));
          sb_puts(&s->reply, ":");
          if (part) sb_printf(&s->reply, "\"%s\"", xtvm_dtype_name(entry->dtype));
          else shape_json(&s->reply, entry);
        }
        sb_puts(&s->reply, "}");
      }
      sb_puts(&s->reply, "}");
      return 0;
  }
}

static int do_call(session *s, const message *m) {
  static value values[MAX_ARGS];
  xtvm_tensor *inline_tensors = NULL;
  int count, result = -1;
  int64_t handle;
  if (arguments(s, m, values, &count, &inline_tensors)) goto done;
  if (field_handle(s, m->header, "function", &handle)) goto done;
  object *target = find_object(s, handle);
  obj_kind kind = target ? target->kind : OBJ_NONE;
  if (kind == OBJ_FUNCTION) {
    xtvm_call call;
    if (prepare_kernel(s, target, values, count, &call)) goto done;
    int failed = xtvm_invoke(&call, s->error);
    xtvm_call_free(&call);
    if (failed) {
      s->error_type = "KernelError";
      goto done;
    }
    reply_ok(s);
    sb_puts(&s->reply, ",\"ret\":null");
    result = 0;
  } else if (kind == OBJ_FACTORY) {
    char error[XTVM_ERROR_SIZE] = "";
    module_ref *module = target->module; /* read before add_object moves the table */
    xtvm_graph *graph = xtvm_graph_create(module->module, error);
    if (!graph) {
      s->error_type = "ValueError";
      snprintf(s->error, sizeof s->error, "%s", error);
      goto done;
    }
    graph_ref *ref = calloc(1, sizeof *ref);
    object *o = ref ? add_object(s, OBJ_GRAPH) : NULL;
    if (!o) {
      free(ref);
      xtvm_graph_free(graph);
      add_failed(s);
      goto done;
    }
    ref->refs = 1;
    ref->graph = graph;
    ref->module = module;
    module->refs++;
    o->graph = ref;
    reply_ok(s);
    sb_printf(&s->reply, ",\"ret\":{\"module\":%lld,\"inputs\":[", (long long)o->handle);
    for (int i = 0; i < graph->num_inputs; i++) {
      if (i) sb_puts(&s->reply, ",");
      sb_string(&s->reply, graph->input_names[i], strlen(graph->input_names[i]));
    }
    sb_puts(&s->reply, "]}");
    result = 0;
  } else if (kind == OBJ_METHOD) {
    result = graph_call(s, target, values, count);
  } else {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "no function with handle %lld", (long long)handle);
  }
done:
  free(inline_tensors);
  return result;
}

static int do_time_evaluator(session *s, const message *m) {
  static value values[MAX_ARGS];
  xtvm_tensor *inline_tensors = NULL;
  int count, result = -1;
  int64_t handle, number, repeat;
  xtvm_call call = {0};
  xtvm_graph *graph = NULL;
  if (arguments(s, m, values, &count, &inline_tensors)) goto done;
  if (field_int(s, m->header, "number", 1, MAX_NUMBER, &number) ||
      field_int(s, m->header, "repeat", 1, MAX_REPEAT, &repeat))
    goto done;
  const json_value *min_ms = json_get(m->header, "min_repeat_ms");
  if (!min_ms || (min_ms->type != JSON_INT && min_ms->type != JSON_FLOAT)) {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "'time_evaluator' message: field 'min_repeat_ms' must be int or float");
    goto done;
  }
  double min_repeat_ms = min_ms->number;
  if (!(min_repeat_ms >= 0 && min_repeat_ms <= MAX_MIN_REPEAT_MS)) {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "min_repeat_ms must be within [0, %d]", MAX_MIN_REPEAT_MS);
    goto done;
  }
  if (field_handle(s, m->header, "function", &handle)) goto done;
  object *target = find_object(s, handle);
  if (target && target->kind == OBJ_FUNCTION) {
    if (prepare_kernel(s, target, values, count, &call)) goto done;
  } else if (target && target->kind == OBJ_METHOD && target->method == M_RUN) {
    graph = target->graph->graph;
  } else {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "time_evaluator times a kernel or a graph's 'run'");
    goto done;
  }
#define ONCE() (graph ? xtvm_graph_run(graph, s->error, &s->error_type) \
                      : (s->error_type = "KernelError", xtvm_invoke(&call, s->error)))
  if (ONCE()) goto done; /* warm up */
  reply_ok(s);
  sb_puts(&s->reply, ",\"results\":[");
  for (int64_t r = 0; r < repeat; r++) {
    int64_t n = number;
    double elapsed;
    for (;;) {
      double start = xtvm_now();
      for (int64_t i = 0; i < n; i++)
        if (ONCE()) goto done;
      elapsed = xtvm_now() - start;
      if (elapsed * 1e3 >= min_repeat_ms || min_repeat_ms <= 0 || n > (1ll << 40)) break;
      n *= 2;
    }
    sb_printf(&s->reply, "%s%.17g", r ? "," : "", elapsed / (double)n);
  }
  sb_puts(&s->reply, "]");
  result = 0;
done:
  xtvm_call_free(&call);
  free(inline_tensors);
  return result;
}

/* -- arrays --------------------------------------------------------------------------------- */

static int do_alloc(session *s, const message *m) {
  int64_t handle;
  xtvm_tensor t;
  if (json_get(m->header, "tensors")) {
    int count;
    if (split_tensors(s, json_get(m->header, "tensors"), m, &t, 1, &count)) return -1;
    if (count != 1) PROTOCOL("'alloc' carries exactly one tensor");
    if (new_array(s, &t, t.data, &handle)) return -1;
  } else {
    uint64_t nbytes;
    if (descriptor(s, json_get(m->header, "descriptor"), &t, &nbytes)) return -1;
    if (new_array(s, &t, NULL, &handle)) return -1;
  }
  reply_ok(s);
  sb_printf(&s->reply, ",\"handle\":%lld", (long long)handle);
  return 0;
}

static object *array_of(session *s, const message *m) {
  int64_t handle;
  if (field_handle(s, m->header, "array", &handle)) return NULL;
  object *o = find_object(s, handle);
  if (!o || o->kind != OBJ_ARRAY) {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "no array with handle %lld", (long long)handle);
    return NULL;
  }
  return o;
}

static int do_copy_to(session *s, const message *m) {
  object *o = array_of(s, m);
  if (!o) return -1;
  xtvm_tensor t;
  int count;
  if (split_tensors(s, json_get(m->header, "tensors"), m, &t, 1, &count)) return -1;
  int same = count == 1 && t.ndim == o->array.ndim;
  for (int d = 0; same && d < t.ndim; d++) same = t.shape[d] == o->array.shape[d];
  if (!same) FAIL("ValueError", "copyfrom: the values must have the array's shape");
  if (t.dtype != o->array.dtype) FAIL("ValueError", "copyfrom: the values must have the array's dtype %s",
                                      xtvm_dtype_name(o->array.dtype));
  memcpy(o->array.data, t.data, xtvm_tensor_bytes(&t));
  reply_ok(s);
  return 0;
}

static int do_copy_from(session *s, const message *m) {
  object *o = array_of(s, m);
  if (!o) return -1;
  size_t bytes = xtvm_tensor_bytes(&o->array);
  reply_ok(s);
  sb_printf(&s->reply, ",\"tensors\":[{\"dtype\":\"%s\",\"shape\":", xtvm_dtype_name(o->array.dtype));
  shape_json(&s->reply, &o->array);
  sb_printf(&s->reply, ",\"nbytes\":%zu}]", bytes);
  s->parts[0] = o->array.data;
  s->sizes[0] = bytes;
  s->num_parts = 1;
  return 0;
}

static int do_free(session *s, const message *m) {
  const json_value *handles = json_get(m->header, "handles");
  if (!handles || handles->type != JSON_ARRAY) PROTOCOL("'free' message: field 'handles' must be list");
  for (size_t i = 0; i < handles->count; i++) {
    if (handles->items[i].type != JSON_INT) continue;
    object *o = find_object(s, handles->items[i].integer);
    if (o) free_object(s, o);
  }
  reply_ok(s);
  return 0;
}

typedef struct {
  const char *kind;
  int (*answer)(session *, const message *);
} request;

static const request REQUESTS[] = {
    {"upload", do_upload},     {"download", do_download},       {"remove", do_remove},
    {"load_module", do_load_module},
    {"get_function", do_get_function}, {"call", do_call},       {"alloc", do_alloc},
    {"copy_to", do_copy_to},   {"copy_from", do_copy_from},
    {"time_evaluator", do_time_evaluator}, {"free", do_free}};

/* Answer one request; 0 to go on, -1 when the session must end. */
static int answer(session *s, const message *m) {
  const char *kind = kind_of(m->header);
  int (*handler)(session *, const message *) = NULL;
  for (size_t i = 0; i < sizeof REQUESTS / sizeof REQUESTS[0]; i++)
    if (strcmp(REQUESTS[i].kind, kind) == 0) handler = REQUESTS[i].answer;
  sb_free(&s->reply);
  s->reply.failed = 0;
  s->num_parts = 0;
  s->fatal = 0;
  s->error[0] = 0;
  s->error_type = "RPCError";
  free(s->owned_part);
  s->owned_part = NULL;
  int failed;
  if (!handler) {
    s->fatal = 1;
    s->error_type = "ProtocolError";
    snprintf(s->error, sizeof s->error, "unknown message kind '%.64s'", kind);
    failed = 1;
  } else {
    failed = handler(s, m) != 0;
  }
  if (!failed && !s->reply.failed) {
    sb_puts(&s->reply, "}");
    return send_message(s->fd, s->reply.data, s->parts, s->sizes, s->num_parts);
  }
  if (!failed) snprintf(s->error, sizeof s->error, "out of memory for the reply");
  send_error(s->fd, s->error_type, s->error, s->fatal);
  return s->fatal ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Serving one connection (in its own process) */

static int constant_time_equal(const char *a, size_t a_size, const char *b, size_t b_size) {
  unsigned char diff = (unsigned char)(a_size != b_size);
  for (size_t i = 0; i < a_size; i++) diff |= (unsigned char)(a[i] ^ b[i % (b_size ? b_size : 1)]);
  return diff == 0;
}

static void serve_connection(int fd, int directory, const char *directory_path,
                             const char *key) {
  message m;
  char error[XTVM_ERROR_SIZE];
  struct timeval timeout = {HANDSHAKE_TIMEOUT_S, 0}, none = {0, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  int got = receive_message(fd, &m, MAX_HEADER, MAX_BODY, error);
  if (got == 0) return;
  if (got < 0) {
    send_error(fd, "ProtocolError", error, 1);
    return;
  }
  const json_value *version = json_get(m.header, "version");
  const json_value *offered = json_get(m.header, "key");
  if (strcmp(kind_of(m.header), "hello") != 0 || !version || version->type != JSON_INT ||
      version->integer != PROTOCOL_VERSION) {
    send_error(fd, "ProtocolError", "expected 'hello' of protocol version 1", 1);
    return;
  }
  if ((offered && offered->type != JSON_STRING) ||
      !constant_time_equal(offered ? offered->string : "", offered ? offered->length : 0, key,
                           strlen(key))) {
    send_error(fd, "ProtocolError", "wrong key: the server refused the session", 1);
    return;
  }
  const json_value *session_timeout = json_get(m.header, "session_timeout");
  if (session_timeout && (session_timeout->type == JSON_INT || session_timeout->type == JSON_FLOAT) &&
      session_timeout->number > 0)
    alarm((unsigned)fmax(1, ceil(fmin(session_timeout->number, 1e7))));
  free_message(&m);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  if (send_message(fd, "{\"kind\":\"hello\",\"version\":1,\"server\":\"xtvm\"}", NULL, NULL, 0))
    return;
  session s;
  memset(&s, 0, sizeof s);
  s.fd = fd;
  s.directory = directory;
  s.directory_path = directory_path;
  s.next_handle = 1;
  for (;;) {
    got = receive_message(fd, &m, MAX_HEADER, MAX_BODY, error);
    if (got == 0) return;
    if (got < 0) {
      send_error(fd, "ProtocolError", error, 1);
      return;
    }
    if (strcmp(kind_of(m.header), "shutdown") == 0) {
      send_message(fd, "{\"kind\":\"ok\"}", NULL, NULL, 0);
      return;
    }
    int stop = answer(&s, &m);
    free_message(&m);
    if (stop) return;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* The listening process */

typedef struct {
  pid_t pid;
  int fd;
  char directory[64];
} served;

static served sessions[MAX_SERVED];
static int num_sessions, max_sessions = 4;
static long started; /* sessions begun so far (reported to the tracker) */
static volatile sig_atomic_t stopping;

static void on_stop(int signal_number) {
  (void)signal_number;
  stopping = 1;
}

static void remove_directory(const char *path) {
  DIR *dir = opendir(path);
  if (dir) {
    struct dirent *entry;
    int fd = dirfd(dir);
    while ((entry = readdir(dir)) != NULL)
      if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
        unlinkat(fd, entry->d_name, 0);
    closedir(dir);
  }
  rmdir(path);
}

static const char *signal_name(int number) {
  switch (number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "a signal";
  }
}

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (int i = 0; i < num_sessions; i++) {
      if (sessions[i].pid != pid) continue;
      char text[200];
      if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
        send_error(sessions[i].fd, "RPCError",
                   "the session timed out (session_timeout) and was ended by the server", 1);
      } else if (WIFSIGNALED(status)) {
        snprintf(text, sizeof text,
                 "the session process was killed by %s; the session has ended",
                 signal_name(WTERMSIG(status)));
        send_error(sessions[i].fd, "RPCError", text, 1);
      } else if (WEXITSTATUS(status) != 0) {
        snprintf(text, sizeof text,
                 "the session process failed (exit status %d); the session has ended",
                 WEXITSTATUS(status));
        send_error(sessions[i].fd, "RPCError", text, 1);
      }
      close(sessions[i].fd);
      remove_directory(sessions[i].directory);
      sessions[i] = sessions[--num_sessions];
      break;
    }
  }
}

static void begin_session(int listener, int tracker_link, int conn, const char *key) {
  served *slot = &sessions[num_sessions];
  snprintf(slot->directory, sizeof slot->directory, "/tmp/xtvm-rpc-XXXXXX");
  if (!mkdtemp(slot->directory)) {
    send_error(conn, "RPCError", "the session directory could not be made", 1);
    close(conn);
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none); /* a crashing kernel leaves no core file */
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    close(listener);
    if (tracker_link >= 0) close(tracker_link);
    for (int i = 0; i < num_sessions; i++) close(sessions[i].fd); /* others' connections */
    int directory = open(slot->directory, O_RDONLY | O_DIRECTORY);
    if (directory >= 0) serve_connection(conn, directory, slot->directory, key);
    shutdown(conn, SHUT_WR);
    _exit(0);
  }
  if (pid < 0) {
    send_error(conn, "RPCError", "the session process could not start", 1);
    close(conn);
    remove_directory(slot->directory);
    return;
  }
  slot->pid = pid;
  slot->fd = conn;
  num_sessions++;
  started++;
}

static int parse_address(const char *text, char *host, size_t size, int *port) {
  const char *colon = strrchr(text, ':');
  if (!colon || colon == text || (size_t)(colon - text) >= size) return -1;
  memcpy(host, text, (size_t)(colon - text));
  host[colon - text] = 0;
  char *end;
  long p = strtol(colon + 1, &end, 10);
  if (*end || p < 0 || p > 65535) return -1;
  *port = (int)p;
  return 0;
}

static int connect_to(const char *host, int port) {
  struct addrinfo hints = {0}, *found;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, service, &hints, &found) != 0) return -1;
  int fd = -1;
  for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

/* Register with the tracker: the connection, or -1. */
static int tracker_register(const char *host, int port, const char *key, const char *address,
                            int server_port) {
  int fd = connect_to(host, port);
  if (fd < 0) return -1;
  struct timeval timeout = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  strbuf sb = {0};
  sb_puts(&sb, "{\"kind\":\"register\",\"key\":");
  sb_string(&sb, key, strlen(key));
  sb_puts(&sb, ",\"host\":");
  if (address) sb_string(&sb, address, strlen(address));
  else sb_puts(&sb, "null");
  sb_printf(&sb, ",\"port\":%d}", server_port);
  message m;
  char error[XTVM_ERROR_SIZE];
  memset(&m, 0, sizeof m);
  int ok = !sb.failed && send_message(fd, sb.data, NULL, NULL, 0) == 0 &&
           receive_message(fd, &m, 4096, 0, error) == 1 && strcmp(kind_of(m.header), "ok") == 0;
  if (m.header) free_message(&m);
  sb_free(&sb);
  if (!ok) {
    close(fd);
    return -1;
  }
  return fd;
}

static void usage(void) {
  fprintf(stderr,
          "usage: xtvm-rpc-device [--host H] [--port P] [--key K] [--tracker H:P]\n"
          "                       [--max-sessions N] [--custom-addr A]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *host = "127.0.0.1", *key = "", *tracker = NULL, *custom_addr = NULL;
  int port = 9090;
  for (int i = 1; i < argc; i++) {
    const char *option = argv[i];
    if (i + 1 >= argc) usage();
    const char *v = argv[++i];
    if (strcmp(option, "--host") == 0) host = v;
    else if (strcmp(option, "--port") == 0) port = atoi(v);
    else if (strcmp(option, "--key") == 0) key = v;
    else if (strcmp(option, "--tracker") == 0) tracker = v;
    else if (strcmp(option, "--custom-addr") == 0) custom_addr = v;
    else if (strcmp(option, "--max-sessions") == 0) max_sessions = atoi(v);
    else usage();
  }
  if (max_sessions < 1 || max_sessions > MAX_SERVED) max_sessions = 4;
  char tracker_host[256];
  int tracker_port = 0;
  if (tracker && parse_address(tracker, tracker_host, sizeof tracker_host, &tracker_port)) {
    fprintf(stderr, "xtvm-rpc-device: --tracker expects HOST:PORT, got '%s'\n", tracker);
    return 2;
  }
  if (tracker && !*key) {
    fprintf(stderr, "xtvm-rpc-device: --tracker needs --key (the key clients request)\n");
    return 2;
  }
  struct addrinfo hints = {0}, *bind_to;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (getaddrinfo(host, service, &hints, &bind_to) != 0) {
    fprintf(stderr, "xtvm-rpc-device: cannot resolve '%s'\n", host);
    return 1;
  }
  int listener = socket(bind_to->ai_family, SOCK_STREAM, 0), yes = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (listener < 0 || bind(listener, bind_to->ai_addr, bind_to->ai_addrlen) != 0 ||
      listen(listener, 64) != 0) {
    fprintf(stderr, "xtvm-rpc-device: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
    return 1;
  }
  freeaddrinfo(bind_to);
  struct sockaddr_storage bound;
  socklen_t bound_size = sizeof bound;
  getsockname(listener, (struct sockaddr *)&bound, &bound_size);
  int bound_port = ntohs(bound.ss_family == AF_INET6
                             ? ((struct sockaddr_in6 *)&bound)->sin6_port
                             : ((struct sockaddr_in *)&bound)->sin_port);
  signal(SIGPIPE, SIG_IGN);
  struct sigaction stop = {0};
  stop.sa_handler = on_stop;
  sigaction(SIGTERM, &stop, NULL);
  sigaction(SIGINT, &stop, NULL);
  printf("rpc server listening on %s:%d\n", host, bound_port);
  fflush(stdout);

  const char *address = custom_addr ? custom_addr
                        : (strcmp(host, "0.0.0.0") && strcmp(host, "::") && *host) ? host : NULL;
  int link = -1;
  double next_attempt = 0;
  long reported_free = -1, reported_started = -1;
  while (!stopping) {
    reap();
    if (tracker && link < 0 && xtvm_now() >= next_attempt) {
      link = tracker_register(tracker_host, tracker_port, key, address, bound_port);
      next_attempt = xtvm_now() + 1;
      reported_free = reported_started = -1;
    }
    long free_slots = max_sessions - num_sessions;
    if (link >= 0 && (free_slots != reported_free || started != reported_started)) {
      char update[128];
      snprintf(update, sizeof update, "{\"kind\":\"update\",\"free\":%ld,\"started\":%ld}",
               free_slots, started);
      if (send_message(link, update, NULL, NULL, 0) != 0) {
        close(link);
        link = -1;
      }
      reported_free = free_slots;
      reported_started = started;
    }
    struct pollfd polled[2] = {{listener, POLLIN, 0}, {link, POLLIN, 0}};
    if (poll(polled, link >= 0 ? 2 : 1, 100) <= 0) continue;
    if (link >= 0 && polled[1].revents) { /* the tracker closed (it sends nothing else) */
      close(link);
      link = -1;
    }
    if (!(polled[0].revents & POLLIN)) continue;
    int conn = accept(listener, NULL, NULL);
    if (conn < 0) continue;
    int nodelay = 1;
    setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    if (num_sessions >= max_sessions) {
      char text[100];
      snprintf(text, sizeof text, "the server is busy (%d sessions)", max_sessions);
      send_error(conn, "RPCError", text, 1);
      close(conn);
      continue;
    }
    begin_session(listener, link, conn, key);
  }
  for (int i = 0; i < num_sessions; i++) kill(sessions[i].pid, SIGKILL);
  while (num_sessions > 0 && waitpid(-1, NULL, 0) > 0) reap();
  for (int i = 0; i < num_sessions; i++) remove_directory(sessions[i].directory);
  return 0;
}
