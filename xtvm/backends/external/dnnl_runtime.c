/* xtvm's oneDNN runtime: builds oneDNN primitives for the JSON subgraph emitted by
 * xtvm/backends/external/dnnl.py and executes them (TVM's DNNL JSON runtime, in C).
 *
 * The JSON:
 *   {"nodes": [{"op": "input", "name", "shape", "dtype"},
 *              {"op": "const", "name", "shape", "dtype", "offset"},
 *              {"op": "kernel", "name", "inputs": [node ids], "shape", "dtype", "attrs": {...}}],
 *    "arg_nodes": [input node ids, in argument order], "heads": [output node ids]}
 * Nodes are in topological order; each has one float32 value. Kernels are TVM op names:
 * nn.conv2d, nn.dense (with "bias" and "post_ops"), matmul, eltwise ops, binary ops,
 * nn.batch_norm, nn.max_pool2d, nn.avg_pool2d, nn.softmax, concatenate.
 *
 * Build (first call): each kernel gets a primitive whose memory formats oneDNN chooses
 * ("any"): convolution and inner-product weights are reordered once into the chosen format,
 * activations stay in the blocked format between primitives, and reorders are added only
 * where a consumer wants another format or shape (a broadcast view, an output).
 * Run: bind the caller's input and output buffers to their memory objects and execute the
 * list of steps on one stream.
 */
#include "dnnl_runtime.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((weak))
#define MAX_INPUTS 64
#define MAX_ARGS (8 + 2 * MAX_INPUTS)

/* ----------------------------------------------------------------------------------------- */
/* Errors */

static __thread char last_error[1024];

static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return -1;
}

/* `call` returns a dnnl_status_t; on failure, report which call failed at which node. */
#define CHECK(call)                                                                          \
  do {                                                                                       \
    dnnl_status_t status_ = (call);                                                          \
    if (status_ != dnnl_success)                                                             \
      return fail("%s: %s failed: %s", g->where, #call, dnnl_status2str(status_));           \
  } while (0)

#define TRY(call)                                                                            \
  do {                                                                                       \
    if ((call) != 0) return -1;                                                              \
  } while (0)

/* ----------------------------------------------------------------------------------------- */
/* A JSON reader for the format above: objects, arrays, strings, numbers, booleans, null. */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct json {
  int kind;
  double num;
  char *str;
  int len;             /* items of an array or object */
  struct json *items;  /* array items, or object values */
  char **keys;         /* object keys */
} json;

typedef struct {
  const char *p;
  const char *start;
} reader;

static void skip_space(reader *r) {
  while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r') r->p++;
}

static int json_fail(reader *r, const char *what) {
  return fail("graph JSON: %s at offset %ld", what, (long)(r->p - r->start));
}

static int parse_string(reader *r, char **out) {
  if (*r->p != '"') return json_fail(r, "expected a string");
  const char *s = ++r->p;
  size_t n = 0;
  while (s[n] && s[n] != '"') n += (s[n] == '\\' && s[n + 1]) ? 2 : 1;
  if (!s[n]) return json_fail(r, "unterminated string");
  char *text = malloc(n + 1), *q = text;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\\') {
      *q++ = s[i];
      continue;
    }
    char e = s[++i];
    if (e == 'u') {
      *q++ = '?'; /* names only: a non-ASCII character becomes '?' */
      i += 4;
      continue;
    }
    *q++ = e == 'n' ? '\n' : e == 't' ? '\t' : e;
  }
  *q = 0;
  r->p = s + n + 1;
  *out = text;
  return 0;
}

static int parse_value(reader *r, json *v);

static int parse_items(reader *r, json *v, int object) {
  char close = object ? '}' : ']';
  int cap = 4;
  v->kind = object ? J_OBJ : J_ARR;
  v->len = 0;
  v->items = calloc(cap, sizeof(json));
  v->keys = object ? calloc(cap, sizeof(char *)) : NULL;
  r->p++;
  skip_space(r);
  if (*r->p == close) {
    r->p++;
    return 0;
  }
  for (;;) {
    if (v->len == cap) {
      cap *= 2;
      v->items = realloc(v->items, cap * sizeof(json));
      memset(v->items + v->len, 0, (cap - v->len) * sizeof(json));
      if (object) v->keys = realloc(v->keys, cap * sizeof(char *));
    }
    skip_space(r);
    if (object) {
      TRY(parse_string(r, &v->keys[v->len]));
      skip_space(r);
      if (*r->p != ':') return json_fail(r, "expected ':'");
      r->p++;
    }
    TRY(parse_value(r, &v->items[v->len]));
    v->len++;
    skip_space(r);
    if (*r->p == ',') {
      r->p++;
      continue;
    }
    if (*r->p == close) {
      r->p++;
      return 0;
    }
    return json_fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static int parse_value(reader *r, json *v) {
  skip_space(r);
  memset(v, 0, sizeof *v);
  char c = *r->p;
  if (c == '{' || c == '[') return parse_items(r, v, c == '{');
  if (c == '"') {
    v->kind = J_STR;
    return parse_string(r, &v->str);
  }
  if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5)) {
    v->kind = J_BOOL;
    v->num = c == 't';
    r->p += c == 't' ? 4 : 5;
    return 0;
  }
  if (!strncmp(r->p, "null", 4)) {
    v->kind = J_NULL;
    r->p += 4;
    return 0;
  }
  char *end;
  v->num = strtod(r->p, &end);
  if (end == r->p) return json_fail(r, "unexpected character");
  v->kind = J_NUM;
  r->p = end;
  return 0;
}

static void json_free(json *v) {
  if (!v) return;
  free(v->str);
  for (int i = 0; i < v->len; i++) {
    json_free(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
}

static const json *get(const json *object, const char *key) {
  if (!object || object->kind != J_OBJ) return NULL;
  for (int i = 0; i < object->len; i++)
    if (!strcmp(object->keys[i], key)) return &object->items[i];
  return NULL;
}

/* ----------------------------------------------------------------------------------------- */
/* The graph */

enum { NODE_INPUT, NODE_CONST, NODE_KERNEL };

typedef struct {
  int kind;
  const char *name; /* op name of a kernel, else the value's name */
  int ndims;
  dnnl_dims_t dims;
  int num_inputs;
  int inputs[MAX_INPUTS];
  const json *attrs;
  dnnl_memory_desc_t md; /* the value's layout */
  dnnl_memory_t mem;     /* the value */
} node_t;

typedef struct {
  dnnl_primitive_t prim;
  int nargs;
  dnnl_exec_arg_t args[MAX_ARGS];
} step_t;

typedef struct {
  dnnl_memory_t mem;
  int output; /* bound to outputs[index], else inputs[index] */
  int index;
} binding_t;

typedef struct {
  int node;
  dnnl_memory_desc_t md;
  dnnl_memory_t mem;
} converted_t;

/* A buffer of the arena: live from the node `start` to the node `end` (both included). */
typedef struct {
  size_t size, offset;
  int start, end;
} buffer_t;

typedef struct {
  dnnl_memory_t mem; /* its handle is set once the arena is laid out */
  int buffer;
} placed_t;

struct xtvm_dnnl_graph {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  json root;
  const char *weights;
  int num_nodes, num_args, num_heads;
  node_t *nodes;
  int *arg_nodes, *heads;
  step_t *steps;
  int num_steps, cap_steps;
  binding_t *bindings;
  int num_bindings, cap_bindings;
  converted_t *converted;
  int num_converted, cap_converted;
  dnnl_memory_t *memories; /* every memory object, for release */
  int num_memories, cap_memories;
  /* Intermediates share one arena: buffers whose lifetimes do not overlap share bytes. */
  buffer_t *buffers;
  int num_buffers, cap_buffers;
  placed_t *placed;
  int num_placed, cap_placed;
  char *arena;
  int current; /* the node being built */
  int threads;  /* OpenMP threads the primitives were created for */
  xtvm_dnnl_graph *next; /* the graph built for another thread count */
  pthread_mutex_t lock;
  char where[160]; /* the node being built, for error messages */
};

#define PUSH(array, count, cap, value)                                                       \
  do {                                                                                       \
    if ((count) == (cap)) {                                                                  \
      (cap) = (cap) ? 2 * (cap) : 16;                                                        \
      (array) = realloc((array), (cap) * sizeof(*(array)));                                  \
    }                                                                                        \
    (array)[(count)++] = (value);                                                            \
  } while (0)

static int new_memory(xtvm_dnnl_graph *g, dnnl_memory_t *mem, const dnnl_memory_desc_t *md,
                      void *handle) {
  CHECK(dnnl_memory_create(mem, md, g->engine, handle));
  PUSH(g->memories, g->num_memories, g->cap_memories, *mem);
  return 0;
}

/* The last node reading node `id`'s value (past the last node if an output reads it). */
static int last_use(xtvm_dnnl_graph *g, int id) {
  for (int i = 0; i < g->num_heads; i++)
    if (g->heads[i] == id) return g->num_nodes;
  int last = id;
  for (int k = id + 1; k < g->num_nodes; k++)
    for (int i = 0; i < g->nodes[k].num_inputs; i++)
      if (g->nodes[k].inputs[i] == id) last = k;
  return last;
}

/* A memory in a new arena buffer live from node `start` to node `end`. */
static int arena_memory(xtvm_dnnl_graph *g, dnnl_memory_t *mem, const dnnl_memory_desc_t *md,
                        int start, int end) {
  TRY(new_memory(g, mem, md, NULL));
  buffer_t b = {dnnl_memory_desc_get_size(md), 0, start, end};
  PUSH(g->buffers, g->num_buffers, g->cap_buffers, b);
  placed_t p = {*mem, g->num_buffers - 1};
  PUSH(g->placed, g->num_placed, g->cap_placed, p);
  return 0;
}

/* The arena buffer behind `mem`, or -1. */
static int buffer_of(xtvm_dnnl_graph *g, dnnl_memory_t mem) {
  for (int i = 0; i < g->num_placed; i++)
    if (g->placed[i].mem == mem) return g->placed[i].buffer;
  return -1;
}

/* `mem` gets the buffer of `base` (a view, or a result written in place), live up to `end`. */
static void share_buffer(xtvm_dnnl_graph *g, dnnl_memory_t mem, int buffer, int end) {
  placed_t p = {mem, buffer};
  PUSH(g->placed, g->num_placed, g->cap_placed, p);
  if (g->buffers[buffer].end < end) g->buffers[buffer].end = end;
}

/* Sort buffer indices by `key` (size, descending; or offset, ascending): insertion sort, as
   graphs have a few hundred buffers. */
static void sort_buffers(const buffer_t *buffers, int *indices, int count, int by_offset) {
  for (int i = 1; i < count; i++) {
    int x = indices[i], j = i - 1;
    for (; j >= 0; j--) {
      const buffer_t *a = &buffers[indices[j]], *b = &buffers[x];
      if (by_offset ? a->offset <= b->offset : a->size >= b->size) break;
      indices[j + 1] = indices[j];
    }
    indices[j + 1] = x;
  }
}

/* Give each buffer an offset, largest first, at the lowest gap left by the buffers placed so
   far whose lifetimes overlap its own; allocate the arena and set the handles. */
static int lay_out_arena(xtvm_dnnl_graph *g) {
  int n = g->num_buffers, *order = calloc(n + 1, sizeof(int)), *live = calloc(n + 1, sizeof(int));
  size_t total = 0;
  for (int i = 0; i < n; i++) order[i] = i;
  sort_buffers(g->buffers, order, n, 0);
  for (int i = 0; i < n; i++) {
    buffer_t *b = &g->buffers[order[i]];
    int count = 0;
    for (int j = 0; j < i; j++) {
      buffer_t *o = &g->buffers[order[j]];
      if (o->start <= b->end && b->start <= o->end) live[count++] = order[j];
    }
    sort_buffers(g->buffers, live, count, 1);
    size_t offset = 0;
    for (int j = 0; j < count; j++) {
      buffer_t *o = &g->buffers[live[j]];
      if (offset + b->size <= o->offset) break;
      size_t end = (o->offset + o->size + 63) & ~(size_t)63;
      if (end > offset) offset = end;
    }
    b->offset = offset;
    if (offset + b->size > total) total = offset + b->size;
  }
  free(order);
  free(live);
  if (total == 0) return 0;
  void *arena = NULL;
  if (posix_memalign(&arena, 64, total))
    return fail("out of memory for the %zu-byte arena of intermediates", total);
  g->arena = arena;
  for (int i = 0; i < g->num_placed; i++) {
    dnnl_status_t s = dnnl_memory_set_data_handle(
        g->placed[i].mem, g->arena + g->buffers[g->placed[i].buffer].offset);
    if (s != dnnl_success) return fail("arena: %s", dnnl_status2str(s));
  }
  return 0;
}

static binding_t *binding_of(xtvm_dnnl_graph *g, dnnl_memory_t mem) {
  for (int i = 0; i < g->num_bindings; i++)
    if (g->bindings[i].mem == mem) return &g->bindings[i];
  return NULL;
}

static step_t *add_step(xtvm_dnnl_graph *g, dnnl_primitive_t prim) {
  step_t step;
  memset(&step, 0, sizeof step);
  step.prim = prim;
  PUSH(g->steps, g->num_steps, g->cap_steps, step);
  return &g->steps[g->num_steps - 1];
}

static void add_arg(step_t *step, int arg, dnnl_memory_t mem) {
  step->args[step->nargs].arg = arg;
  step->args[step->nargs].memory = mem;
  step->nargs++;
}

static void add_arg_to(dnnl_exec_arg_t *args, int *nargs, int arg, dnnl_memory_t mem) {
  args[*nargs].arg = arg;
  args[*nargs].memory = mem;
  (*nargs)++;
}

static dnnl_format_tag_t plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
                                           dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  return ndims >= 1 && ndims <= 6 ? tags[ndims] : dnnl_format_tag_undef;
}

/* A dense row-major (`plain`) or a let-oneDNN-choose (`any`) float32 descriptor. */
static int make_md(xtvm_dnnl_graph *g, dnnl_memory_desc_t *md, int ndims, const dnnl_dims_t dims,
                   int any) {
  dnnl_format_tag_t tag = any ? dnnl_format_tag_any : plain_tag(ndims);
  if (tag == dnnl_format_tag_undef) return fail("%s: rank %d is not supported", g->where, ndims);
  CHECK(dnnl_memory_desc_init_by_tag(md, ndims, dims, dnnl_f32, tag));
  return 0;
}

static int same_dims(const dnnl_memory_desc_t *a, int ndims, const dnnl_dims_t dims) {
  if (a->ndims != ndims) return 0;
  for (int i = 0; i < ndims; i++)
    if (a->dims[i] != dims[i]) return 0;
  return 1;
}

static int64_t volume(int ndims, const dnnl_dims_t dims) {
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  return n;
}

static int is_plain(xtvm_dnnl_graph *g, const dnnl_memory_desc_t *md) {
  dnnl_memory_desc_t plain;
  if (make_md(g, &plain, md->ndims, md->dims, 0)) return 0;
  return dnnl_memory_desc_equal(md, &plain);
}

/* Execute `prim` once now (weights) or add it to the steps (activations). */
static int reorder(xtvm_dnnl_graph *g, dnnl_memory_t src, const dnnl_memory_desc_t *src_md,
                   dnnl_memory_t dst, const dnnl_memory_desc_t *dst_md, int now) {
  dnnl_primitive_desc_t pd;
  dnnl_primitive_t prim;
  CHECK(dnnl_reorder_primitive_desc_create(&pd, src_md, g->engine, dst_md, g->engine, NULL));
  dnnl_status_t status = dnnl_primitive_create(&prim, pd);
  dnnl_primitive_desc_destroy(pd);
  CHECK(status);
  if (!now) {
    step_t *step = add_step(g, prim);
    add_arg(step, DNNL_ARG_FROM, src);
    add_arg(step, DNNL_ARG_TO, dst);
    return 0;
  }
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
  status = dnnl_primitive_execute(prim, g->stream, 2, args);
  if (status == dnnl_success) status = dnnl_stream_wait(g->stream);
  dnnl_primitive_destroy(prim);
  CHECK(status);
  return 0;
}

/* A memory of descriptor `md` over the buffer of `src` (a memory of node `id`'s value). */
static int view_of(xtvm_dnnl_graph *g, int id, dnnl_memory_t src, const dnnl_memory_desc_t *md,
                   dnnl_memory_t *view) {
  TRY(new_memory(g, view, md, NULL));
  binding_t *bound = binding_of(g, src);
  int buffer = buffer_of(g, src);
  if (bound) { /* an input's or output's: bound on each call */
    binding_t copy = *bound;
    copy.mem = *view;
    PUSH(g->bindings, g->num_bindings, g->cap_bindings, copy);
  } else if (buffer >= 0) { /* an intermediate's: set with the arena */
    share_buffer(g, *view, buffer, last_use(g, id));
  } else { /* a constant's */
    void *handle = NULL;
    CHECK(dnnl_memory_get_data_handle(src, &handle));
    CHECK(dnnl_memory_set_data_handle(*view, handle));
  }
  return 0;
}

/* The value of node `id` as a memory of descriptor `want`: the node's own memory, a view of
   it with other dims (a reshape of a plain layout), or a reordered copy (once for constants,
   a step before the consumer for activations). Conversions are cached per node. */
static int value_as(xtvm_dnnl_graph *g, int id, const dnnl_memory_desc_t *want,
                    dnnl_memory_t *out) {
  node_t *n = &g->nodes[id];
  if (dnnl_memory_desc_equal(&n->md, want)) {
    *out = n->mem;
    return 0;
  }
  for (int i = 0; i < g->num_converted; i++) {
    if (g->converted[i].node == id && dnnl_memory_desc_equal(&g->converted[i].md, want)) {
      *out = g->converted[i].mem;
      return 0;
    }
  }
  dnnl_memory_t src = n->mem;
  dnnl_memory_desc_t src_md = n->md;
  if (!same_dims(&n->md, want->ndims, want->dims)) {
    if (volume(n->ndims, n->dims) != volume(want->ndims, want->dims))
      return fail("%s: cannot view a value of %ld elements as one of %ld", g->where,
                  (long)volume(n->ndims, n->dims), (long)volume(want->ndims, want->dims));
    if (!is_plain(g, &n->md)) {
      dnnl_memory_desc_t plain;
      TRY(make_md(g, &plain, n->ndims, n->dims, 0));
      TRY(value_as(g, id, &plain, &src));
    }
    /* A view: the same buffer under a plain descriptor of the wanted dims. */
    TRY(make_md(g, &src_md, want->ndims, want->dims, 0));
    TRY(view_of(g, id, src, &src_md, &src));
  }
  dnnl_memory_t dst = src;
  if (!dnnl_memory_desc_equal(&src_md, want)) {
    /* A constant's copy is made once and kept; another's lives until the value's last use. */
    if (n->kind == NODE_CONST)
      TRY(new_memory(g, &dst, want, DNNL_MEMORY_ALLOCATE));
    else
      TRY(arena_memory(g, &dst, want, g->current, last_use(g, id)));
    TRY(reorder(g, src, &src_md, dst, want, n->kind == NODE_CONST));
  }
  converted_t c = {id, *want, dst};
  PUSH(g->converted, g->num_converted, g->cap_converted, c);
  *out = dst;
  return 0;
}

/* The kernel's result: a memory of the primitive's chosen descriptor, owned by the graph. */
static int set_result(xtvm_dnnl_graph *g, node_t *n, const dnnl_memory_desc_t *md) {
  if (!same_dims(md, n->ndims, n->dims))
    return fail("%s: the primitive's result has other dims than the graph says", g->where);
  n->md = *md;
  int id = (int)(n - g->nodes);
  return arena_memory(g, &n->mem, md, id, last_use(g, id));
}

/* ----------------------------------------------------------------------------------------- */
/* Attributes */

static int attr_ints(xtvm_dnnl_graph *g, const node_t *n, const char *key, int count,
                     dnnl_dim_t *out) {
  const json *v = get(n->attrs, key);
  if (!v || v->kind != J_ARR || v->len != count)
    return fail("%s: attribute '%s' must be a list of %d integers", g->where, key, count);
  for (int i = 0; i < count; i++) out[i] = (dnnl_dim_t)v->items[i].num;
  return 0;
}

static double attr_num(const node_t *n, const char *key, double fallback) {
  const json *v = get(n->attrs, key);
  return v && (v->kind == J_NUM || v->kind == J_BOOL) ? v->num : fallback;
}

typedef struct {
  const char *name;
  dnnl_alg_kind_t alg;
} named_alg_t;

/* Set *alg to the algorithm of `name` in `table`; 0 where the table has no such name. */
static int find_alg(const named_alg_t *table, size_t count, const char *name,
                    dnnl_alg_kind_t *alg) {
  for (size_t i = 0; i < count; i++) {
    if (!strcmp(name, table[i].name)) {
      *alg = table[i].alg;
      return 1;
    }
  }
  return 0;
}

static int eltwise_alg(const char *name, dnnl_alg_kind_t *alg) {
  static const named_alg_t table[] = {
      {"nn.relu", dnnl_eltwise_relu},     {"nn.leaky_relu", dnnl_eltwise_relu},
      {"tanh", dnnl_eltwise_tanh},        {"sigmoid", dnnl_eltwise_logistic},
      {"clip", dnnl_eltwise_clip},        {"exp", dnnl_eltwise_exp},
      {"abs", dnnl_eltwise_abs},          {"sqrt", dnnl_eltwise_sqrt},
  };
  return find_alg(table, sizeof table / sizeof table[0], name, alg);
}

static int binary_alg(const char *name, dnnl_alg_kind_t *alg) {
  static const named_alg_t table[] = {
      {"add", dnnl_binary_add},         {"subtract", dnnl_binary_sub},
      {"multiply", dnnl_binary_mul},    {"divide", dnnl_binary_div},
      {"maximum", dnnl_binary_max},     {"minimum", dnnl_binary_min},
  };
  return find_alg(table, sizeof table / sizeof table[0], name, alg);
}

/* alpha, beta of an eltwise op: leaky_relu's slope, clip's bounds. */
static void eltwise_params(const char *name, const json *attrs, float *alpha, float *beta) {
  const json *a = get(attrs, "alpha"), *b = get(attrs, "beta");
  *alpha = a ? (float)a->num : 0.0f;
  *beta = b ? (float)b->num : 0.0f;
  (void)name;
}

/* The post-ops of a convolution or inner product, with the memories their operands need.
   Eltwise post-ops need none. A binary post-op takes the node's next extra input (from
   `first_extra` on). The first add of a full-size operand becomes oneDNN's sum post-op: the
   operand is copied into the result before the primitive runs (oneDNN's fast convolutions take
   a sum but not a full-size binary operand); other binary operands are passed as
   DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1 in `args`. */
typedef struct {
  dnnl_primitive_attr_t attr;
  int sum_input; /* node copied into the result first, or -1 */
  int nargs;
  dnnl_exec_arg_t args[MAX_INPUTS];
} post_ops_t;

static int post_ops(xtvm_dnnl_graph *g, const node_t *n, int first_extra,
                    const dnnl_memory_desc_t *dst, post_ops_t *p) {
  const json *list = get(n->attrs, "post_ops");
  memset(p, 0, sizeof *p);
  p->sum_input = -1;
  if (!list || list->kind != J_ARR || list->len == 0) {
    if (first_extra != n->num_inputs) return fail("%s: inputs left without post-ops", g->where);
    return 0;
  }
  dnnl_post_ops_t ops;
  CHECK(dnnl_post_ops_create(&ops));
  int extra = first_extra, status = 0;
  for (int i = 0; i < list->len && !status; i++) {
    const json *op = &list->items[i], *name = get(op, "op"), *shape = get(op, "shape");
    dnnl_alg_kind_t alg;
    if (!name || name->kind != J_STR) {
      status = fail("%s: post-op %d has no 'op'", g->where, i);
    } else if (eltwise_alg(name->str, &alg)) {
      float alpha, beta;
      eltwise_params(name->str, op, &alpha, &beta);
      dnnl_status_t s = dnnl_post_ops_append_eltwise(ops, 1.0f, alg, alpha, beta);
      if (s != dnnl_success) status = fail("%s: eltwise post-op: %s", g->where, dnnl_status2str(s));
    } else if (!binary_alg(name->str, &alg) || extra >= n->num_inputs) {
      status = fail("%s: unsupported post-op '%s'", g->where, name->str);
    } else if (!shape || shape->kind != J_ARR || shape->len > 6) {
      status = fail("%s: binary post-op %d needs the operand's 'shape'", g->where, i);
    } else {
      dnnl_dims_t dims;
      for (int d = 0; d < shape->len; d++) dims[d] = (dnnl_dim_t)shape->items[d].num;
      int input = n->inputs[extra++];
      dnnl_status_t s;
      if (alg == dnnl_binary_add && same_dims(dst, shape->len, dims) && p->sum_input < 0) {
        p->sum_input = input;
        s = dnnl_post_ops_append_sum(ops, 1.0f);
      } else {
        dnnl_memory_desc_t md = *dst;
        if (!same_dims(dst, shape->len, dims) && make_md(g, &md, shape->len, dims, 0)) {
          status = -1;
          break;
        }
        dnnl_memory_t mem;
        if (value_as(g, input, &md, &mem)) {
          status = -1;
          break;
        }
        p->args[p->nargs].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1;
        p->args[p->nargs++].memory = mem;
        s = dnnl_post_ops_append_binary(ops, alg, &md);
      }
      if (s != dnnl_success) status = fail("%s: binary post-op: %s", g->where, dnnl_status2str(s));
    }
  }
  if (!status && extra != n->num_inputs)
    status = fail("%s: %d inputs left over after the post-ops", g->where, n->num_inputs - extra);
  if (!status) {
    dnnl_status_t s = dnnl_primitive_attr_create(&p->attr);
    if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(p->attr, ops);
    if (s != dnnl_success) status = fail("%s: post-ops: %s", g->where, dnnl_status2str(s));
  }
  dnnl_post_ops_destroy(ops);
  return status;
}

/* Create the primitive descriptor of `op_desc` with `attr` (destroyed here). */
static int create_pd(xtvm_dnnl_graph *g, dnnl_primitive_desc_t *pd, const void *op_desc,
                     dnnl_primitive_attr_t attr) {
  dnnl_status_t status = dnnl_primitive_desc_create(pd, op_desc, attr, g->engine, NULL);
  if (attr) dnnl_primitive_attr_destroy(attr);
  CHECK(status);
  return 0;
}

static const dnnl_memory_desc_t *query(const_dnnl_primitive_desc_t pd, dnnl_query_t what) {
  return dnnl_primitive_desc_query_md(pd, what, 0);
}

/* The result layout oneDNN picks for `op_desc` without post-ops. */
static int preferred_dst(xtvm_dnnl_graph *g, const void *op_desc, dnnl_memory_desc_t *dst) {
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, op_desc, NULL));
  *dst = *query(pd, dnnl_query_dst_md);
  dnnl_primitive_desc_destroy(pd);
  return 0;
}

/* Whether `n` may write its result over the value of `r`: a kernel's value in the same
   layout, read once by `n` and by no later node nor output. */
static int can_overwrite(xtvm_dnnl_graph *g, const node_t *n, const node_t *r,
                         const dnnl_memory_desc_t *dst) {
  int rid = (int)(r - g->nodes), nid = (int)(n - g->nodes), reads = 0;
  if (r->kind != NODE_KERNEL || !dnnl_memory_desc_equal(&r->md, dst)) return 0;
  if (buffer_of(g, r->mem) < 0) return 0;
  for (int i = 0; i < n->num_inputs; i++) reads += n->inputs[i] == rid;
  if (reads != 1) return 0;
  for (int i = 0; i < g->num_heads; i++)
    if (g->heads[i] == rid) return 0;
  for (int k = nid + 1; k < g->num_nodes; k++)
    for (int i = 0; i < g->nodes[k].num_inputs; i++)
      if (g->nodes[k].inputs[i] == rid) return 0;
  return 1;
}

/* Add the step of `pd`'s primitive (destroyed here) with `args` and its result as dst, after
   a step copying `copy_in` into the result if given (for a sum post-op). Every memory in
   `args` must be ready (its conversions added as steps) before this is called. */
static int finish_with(xtvm_dnnl_graph *g, node_t *n, dnnl_primitive_desc_t pd, int nargs,
                       const dnnl_exec_arg_t *args, const node_t *copy_in) {
  dnnl_primitive_t prim;
  const dnnl_memory_desc_t *dst = query(pd, dnnl_query_dst_md);
  int status = 0;
  if (copy_in && can_overwrite(g, n, copy_in, dst)) {
    /* In place: the result takes the operand's buffer, which nothing reads afterwards. */
    n->md = *dst;
    status = new_memory(g, &n->mem, dst, NULL);
    int id = (int)(n - g->nodes);
    if (!status) share_buffer(g, n->mem, buffer_of(g, copy_in->mem), last_use(g, id));
  } else {
    status = set_result(g, n, dst);
    if (!status && copy_in) status = reorder(g, copy_in->mem, &copy_in->md, n->mem, &n->md, 0);
  }
  dnnl_status_t s = status ? dnnl_success : dnnl_primitive_create(&prim, pd);
  dnnl_primitive_desc_destroy(pd);
  if (status) return status;
  CHECK(s);
  step_t *step = add_step(g, prim);
  for (int i = 0; i < nargs; i++) add_arg(step, args[i].arg, args[i].memory);
  add_arg(step, DNNL_ARG_DST, n->mem);
  return 0;
}

static int finish(xtvm_dnnl_graph *g, node_t *n, dnnl_primitive_desc_t pd, int nargs,
                  const dnnl_exec_arg_t *args) {
  return finish_with(g, n, pd, nargs, args, NULL);
}

/* The primitive of `op_desc` (no attributes), reading the one source memory `src`. */
static int finish_unary(xtvm_dnnl_graph *g, node_t *n, const void *op_desc, dnnl_memory_t src) {
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, op_desc, NULL));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;
  add_arg_to(args, &nargs, DNNL_ARG_SRC, src);
  return finish(g, n, pd, nargs, args);
}

/* A convolution or inner product: `desc` with the node's post-ops; inputs data, weights,
   bias (if `has_bias`), then the post-ops' operands. */
static int build_linear(xtvm_dnnl_graph *g, node_t *n, const void *desc, int has_bias,
                        int wndims, const dnnl_dims_t wdims) {
  dnnl_memory_desc_t preferred, bias_md;
  post_ops_t p;
  TRY(preferred_dst(g, desc, &preferred));
  TRY(post_ops(g, n, 2 + has_bias, &preferred, &p));
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, desc, p.attr));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;
  args[nargs].arg = DNNL_ARG_SRC;
  int status = value_as(g, n->inputs[0], query(pd, dnnl_query_src_md), &args[nargs++].memory);
  /* The weights' wanted layout has the grouped dims; value_as views them first. */
  const dnnl_memory_desc_t *wei = query(pd, dnnl_query_weights_md);
  if (!status && !same_dims(wei, wndims, wdims))
    status = fail("%s: unexpected weights dims", g->where);
  args[nargs].arg = DNNL_ARG_WEIGHTS;
  if (!status) status = value_as(g, n->inputs[1], wei, &args[nargs++].memory);
  if (!status && has_bias) {
    dnnl_dims_t bdims = {wdims[0] * (wndims == 5 ? wdims[1] : 1)};
    args[nargs].arg = DNNL_ARG_BIAS;
    status = make_md(g, &bias_md, 1, bdims, 0);
    if (!status) status = value_as(g, n->inputs[2], &bias_md, &args[nargs++].memory);
  }
  for (int i = 0; i < p.nargs; i++) args[nargs++] = p.args[i];
  if (status) {
    dnnl_primitive_desc_destroy(pd);
    return status;
  }
  /* The sum post-op adds what the result holds: the operand, copied in first. */
  const node_t *sum = p.sum_input < 0 ? NULL : &g->nodes[p.sum_input];
  return finish_with(g, n, pd, nargs, args, sum);
}

/* ----------------------------------------------------------------------------------------- */
/* Kernels */

static int build_conv2d(xtvm_dnnl_graph *g, node_t *n) {
  const node_t *data = &g->nodes[n->inputs[0]], *weight = &g->nodes[n->inputs[1]];
  dnnl_dims_t strides = {0}, padding = {0}, dilation = {0};
  TRY(attr_ints(g, n, "strides", 2, strides));
  TRY(attr_ints(g, n, "padding", 4, padding));
  TRY(attr_ints(g, n, "dilation", 2, dilation));
  int groups = (int)attr_num(n, "groups", 1), has_bias = (int)attr_num(n, "bias", 0);
  if (data->ndims != 4 || weight->ndims != 4 || groups < 1 || weight->dims[0] % groups)
    return fail("%s: conv2d wants 4-d NCHW data and OIHW weight", g->where);
  /* Grouped weights: OIHW is goihw with O split into G x O/G. */
  dnnl_dims_t wdims = {groups, weight->dims[0] / groups, weight->dims[1], weight->dims[2],
                       weight->dims[3]};
  int wndims = 5;
  if (groups == 1) {
    memcpy(wdims, weight->dims, sizeof(dnnl_dim_t) * 4);
    wndims = 4;
  }
  dnnl_memory_desc_t src, wei, bias, dst;
  TRY(make_md(g, &src, 4, data->dims, 1));
  TRY(make_md(g, &wei, wndims, wdims, 1));
  dnnl_dims_t bdims = {weight->dims[0]};
  TRY(make_md(g, &bias, 1, bdims, 0));
  TRY(make_md(g, &dst, 4, n->dims, 1));
  dnnl_dims_t dil = {dilation[0] - 1, dilation[1] - 1};
  dnnl_dims_t pad_l = {padding[0], padding[1]}, pad_r = {padding[2], padding[3]};
  dnnl_convolution_desc_t desc;
  CHECK(dnnl_dilated_convolution_forward_desc_init(
      &desc, dnnl_forward_inference, dnnl_convolution_direct, &src, &wei,
      has_bias ? &bias : NULL, &dst, strides, dil, pad_l, pad_r));
  return build_linear(g, n, &desc, has_bias, wndims, wdims);
}

static int build_dense(xtvm_dnnl_graph *g, node_t *n) {
  const node_t *data = &g->nodes[n->inputs[0]], *weight = &g->nodes[n->inputs[1]];
  int has_bias = (int)attr_num(n, "bias", 0);
  if (data->ndims != 2 || weight->ndims != 2)
    return fail("%s: dense wants 2-d data and weight", g->where);
  dnnl_memory_desc_t src, wei, bias, dst;
  TRY(make_md(g, &src, 2, data->dims, 1));
  TRY(make_md(g, &wei, 2, weight->dims, 1));
  dnnl_dims_t bdims = {weight->dims[0]};
  TRY(make_md(g, &bias, 1, bdims, 0));
  TRY(make_md(g, &dst, 2, n->dims, 0));
  dnnl_inner_product_desc_t desc;
  CHECK(dnnl_inner_product_forward_desc_init(&desc, dnnl_forward_inference, &src, &wei,
                                             has_bias ? &bias : NULL, &dst));
  return build_linear(g, n, &desc, has_bias, 2, weight->dims);
}

static int build_eltwise(xtvm_dnnl_graph *g, node_t *n, dnnl_alg_kind_t alg) {
  const node_t *data = &g->nodes[n->inputs[0]];
  float alpha, beta;
  eltwise_params(n->name, n->attrs, &alpha, &beta);
  dnnl_eltwise_desc_t desc;
  CHECK(dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, alg, &data->md, alpha,
                                       beta));
  return finish_unary(g, n, &desc, data->mem);
}

/* src0 has the result's dims ("lhs_shape"); src1 broadcasts ("rhs_shape", same rank). */
static int build_binary(xtvm_dnnl_graph *g, node_t *n, dnnl_alg_kind_t alg) {
  dnnl_dims_t lhs, rhs;
  TRY(attr_ints(g, n, "lhs_shape", n->ndims, lhs));
  TRY(attr_ints(g, n, "rhs_shape", n->ndims, rhs));
  const node_t *a = &g->nodes[n->inputs[0]];
  dnnl_memory_desc_t src0, src1;
  if (same_dims(&a->md, n->ndims, lhs))
    src0 = a->md;
  else
    TRY(make_md(g, &src0, n->ndims, lhs, 0));
  if (same_dims(&src0, n->ndims, rhs))
    src1 = src0; /* same shape: bring the operand to the first one's layout */
  else
    TRY(make_md(g, &src1, n->ndims, rhs, 0));
  dnnl_binary_desc_t desc;
  CHECK(dnnl_binary_desc_init(&desc, alg, &src0, &src1, &src0));
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, &desc, NULL));
  dnnl_memory_t m0, m1;
  TRY(value_as(g, n->inputs[0], &src0, &m0));
  TRY(value_as(g, n->inputs[1], &src1, &m1));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;
  add_arg_to(args, &nargs, DNNL_ARG_SRC_0, m0);
  add_arg_to(args, &nargs, DNNL_ARG_SRC_1, m1);
  return finish(g, n, pd, nargs, args);
}

/* Inputs: data, gamma, beta, moving mean, moving variance (the last four of shape [C]). */
static int build_batch_norm(xtvm_dnnl_graph *g, node_t *n) {
  const node_t *data = &g->nodes[n->inputs[0]];
  unsigned flags = dnnl_use_global_stats;
  int scale = (int)attr_num(n, "scale", 1), center = (int)attr_num(n, "center", 1);
  if (scale) flags |= dnnl_use_scale;
  if (center) flags |= dnnl_use_shift;
  dnnl_batch_normalization_desc_t desc;
  CHECK(dnnl_batch_normalization_forward_desc_init(&desc, dnnl_forward_inference, &data->md,
                                                   (float)attr_num(n, "epsilon", 1e-5), flags));
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, &desc, NULL));
  dnnl_memory_desc_t vector;
  dnnl_dims_t channels = {data->dims[1]};
  TRY(make_md(g, &vector, 1, channels, 0));
  dnnl_memory_t gamma, beta, mean, var;
  TRY(value_as(g, n->inputs[1], &vector, &gamma));
  TRY(value_as(g, n->inputs[2], &vector, &beta));
  TRY(value_as(g, n->inputs[3], &vector, &mean));
  TRY(value_as(g, n->inputs[4], &vector, &var));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;
  add_arg_to(args, &nargs, DNNL_ARG_SRC, data->mem);
  add_arg_to(args, &nargs, DNNL_ARG_MEAN, mean);
  add_arg_to(args, &nargs, DNNL_ARG_VARIANCE, var);
  if (scale) add_arg_to(args, &nargs, DNNL_ARG_SCALE, gamma);
  if (center) add_arg_to(args, &nargs, DNNL_ARG_SHIFT, beta);
  return finish(g, n, pd, nargs, args);
}

/* Padding already includes what ceil_mode adds at the bottom and right. */
static int build_pool2d(xtvm_dnnl_graph *g, node_t *n, int max) {
  const node_t *data = &g->nodes[n->inputs[0]];
  dnnl_dims_t kernel = {0}, strides = {0}, padding = {0}, dilation = {0};
  TRY(attr_ints(g, n, "pool_size", 2, kernel));
  TRY(attr_ints(g, n, "strides", 2, strides));
  TRY(attr_ints(g, n, "padding", 4, padding));
  TRY(attr_ints(g, n, "dilation", 2, dilation));
  dnnl_alg_kind_t alg = max ? dnnl_pooling_max
                            : attr_num(n, "count_include_pad", 0)
                                  ? dnnl_pooling_avg_include_padding
                                  : dnnl_pooling_avg_exclude_padding;
  dnnl_memory_desc_t dst;
  TRY(make_md(g, &dst, 4, n->dims, 1));
  dnnl_dims_t dil = {dilation[0] - 1, dilation[1] - 1};
  dnnl_dims_t pad_l = {padding[0], padding[1]}, pad_r = {padding[2], padding[3]};
  dnnl_pooling_v2_desc_t desc;
  CHECK(dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &data->md, &dst,
                                          strides, kernel, dil, pad_l, pad_r));
  return finish_unary(g, n, &desc, data->mem);
}

static int build_softmax(xtvm_dnnl_graph *g, node_t *n) {
  const node_t *data = &g->nodes[n->inputs[0]];
  dnnl_memory_desc_t plain;
  dnnl_memory_t src;
  TRY(make_md(g, &plain, data->ndims, data->dims, 0));
  TRY(value_as(g, n->inputs[0], &plain, &src));
  dnnl_softmax_desc_t desc;
  CHECK(dnnl_softmax_forward_desc_init(&desc, dnnl_forward_inference, &plain,
                                       (int)attr_num(n, "axis", -1)));
  return finish_unary(g, n, &desc, src);
}

static int build_concatenate(xtvm_dnnl_graph *g, node_t *n) {
  dnnl_memory_desc_t srcs[MAX_INPUTS], dst;
  for (int i = 0; i < n->num_inputs; i++) srcs[i] = g->nodes[n->inputs[i]].md;
  TRY(make_md(g, &dst, n->ndims, n->dims, 1));
  dnnl_primitive_desc_t pd;
  CHECK(dnnl_concat_primitive_desc_create(&pd, &dst, n->num_inputs, (int)attr_num(n, "axis", 0),
                                          srcs, NULL, g->engine));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0;
  for (int i = 0; i < n->num_inputs; i++)
    add_arg_to(args, &nargs, DNNL_ARG_MULTIPLE_SRC + i, g->nodes[n->inputs[i]].mem);
  return finish(g, n, pd, nargs, args);
}

/* Node `id`'s value with its last two axes swapped, as a view of its row-major layout. */
static int transposed(xtvm_dnnl_graph *g, int id, dnnl_memory_desc_t *md, dnnl_memory_t *mem) {
  const node_t *n = &g->nodes[id];
  dnnl_memory_desc_t plain;
  dnnl_memory_t src;
  int perm[DNNL_MAX_NDIMS];
  TRY(make_md(g, &plain, n->ndims, n->dims, 0));
  TRY(value_as(g, id, &plain, &src));
  for (int i = 0; i < n->ndims; i++) perm[i] = i;
  perm[n->ndims - 2] = n->ndims - 1;
  perm[n->ndims - 1] = n->ndims - 2;
  CHECK(dnnl_memory_desc_permute_axes(md, &plain, perm));
  return view_of(g, id, src, md, mem);
}

/* An operand of a matmul: transposed (a view), a constant in the layout oneDNN picks (`any`,
   reordered once), or the value row-major. */
static int matmul_operand(xtvm_dnnl_graph *g, int id, int transpose, int any,
                          dnnl_memory_desc_t *md) {
  const node_t *n = &g->nodes[id];
  dnnl_memory_t unused;
  if (n->ndims < 2) return fail("%s: matmul operands need 2 or 3 dims", g->where);
  if (transpose) return transposed(g, id, md, &unused);
  return make_md(g, md, n->ndims, n->dims, any && n->kind == NODE_CONST);
}

/* a [B,] M, K times b [B,] K, N, either transposed ("transpose_a", "transpose_b"). */
static int build_matmul(xtvm_dnnl_graph *g, node_t *n) {
  int ta = (int)attr_num(n, "transpose_a", 0), tb = (int)attr_num(n, "transpose_b", 0);
  dnnl_memory_desc_t src, wei, dst;
  TRY(matmul_operand(g, n->inputs[0], ta, 0, &src));
  TRY(matmul_operand(g, n->inputs[1], tb, 1, &wei));
  TRY(make_md(g, &dst, n->ndims, n->dims, 0));
  dnnl_matmul_desc_t desc;
  CHECK(dnnl_matmul_desc_init(&desc, &src, &wei, NULL, &dst));
  dnnl_primitive_desc_t pd;
  TRY(create_pd(g, &pd, &desc, NULL));
  dnnl_exec_arg_t args[MAX_ARGS];
  int nargs = 0, status = 0;
  args[nargs].arg = DNNL_ARG_SRC;
  if (ta) status = transposed(g, n->inputs[0], &src, &args[nargs++].memory);
  else status = value_as(g, n->inputs[0], query(pd, dnnl_query_src_md), &args[nargs++].memory);
  args[nargs].arg = DNNL_ARG_WEIGHTS;
  if (!status && tb) status = transposed(g, n->inputs[1], &wei, &args[nargs++].memory);
  else if (!status)
    status = value_as(g, n->inputs[1], query(pd, dnnl_query_weights_md), &args[nargs++].memory);
  if (status) {
    dnnl_primitive_desc_destroy(pd);
    return status;
  }
  return finish(g, n, pd, nargs, args);
}

static int build_kernel(xtvm_dnnl_graph *g, node_t *n) {
  dnnl_alg_kind_t alg;
  const char *name = n->name;
  if (!strcmp(name, "nn.conv2d")) return build_conv2d(g, n);
  if (!strcmp(name, "nn.dense")) return build_dense(g, n);
  if (!strcmp(name, "matmul")) return build_matmul(g, n);
  if (!strcmp(name, "nn.batch_norm")) return build_batch_norm(g, n);
  if (!strcmp(name, "nn.max_pool2d")) return build_pool2d(g, n, 1);
  if (!strcmp(name, "nn.avg_pool2d")) return build_pool2d(g, n, 0);
  if (!strcmp(name, "nn.softmax")) return build_softmax(g, n);
  if (!strcmp(name, "concatenate")) return build_concatenate(g, n);
  if (eltwise_alg(name, &alg)) return build_eltwise(g, n, alg);
  if (binary_alg(name, &alg)) return build_binary(g, n, alg);
  return fail("%s: unsupported op '%s'", g->where, name);
}

/* ----------------------------------------------------------------------------------------- */
/* Building and running */

static int read_node(xtvm_dnnl_graph *g, int id, const json *v) {
  node_t *n = &g->nodes[id];
  const json *op = get(v, "op"), *name = get(v, "name"), *shape = get(v, "shape");
  const json *dtype = get(v, "dtype"), *inputs = get(v, "inputs");
  snprintf(g->where, sizeof g->where, "node %d", id);
  if (!op || op->kind != J_STR || !name || name->kind != J_STR || !shape ||
      shape->kind != J_ARR)
    return fail("%s: needs 'op', 'name' and 'shape'", g->where);
  snprintf(g->where, sizeof g->where, "node %d (%s)", id, name->str);
  if (dtype && (dtype->kind != J_STR || strcmp(dtype->str, "float32")))
    return fail("%s: dtype %s is not supported (float32 only)", g->where,
                dtype->kind == J_STR ? dtype->str : "?");
  if (shape->len < 1 || shape->len > 6)
    return fail("%s: rank %d is not supported (1 to 6)", g->where, shape->len);
  n->name = name->str;
  n->ndims = shape->len;
  for (int i = 0; i < shape->len; i++) n->dims[i] = (dnnl_dim_t)shape->items[i].num;
  n->attrs = get(v, "attrs");
  if (!strcmp(op->str, "input")) {
    n->kind = NODE_INPUT;
  } else if (!strcmp(op->str, "const")) {
    n->kind = NODE_CONST;
  } else if (!strcmp(op->str, "kernel")) {
    n->kind = NODE_KERNEL;
  } else {
    return fail("%s: unknown node kind '%s'", g->where, op->str);
  }
  if (n->kind != NODE_KERNEL) return make_md(g, &n->md, n->ndims, n->dims, 0);
  if (!inputs || inputs->kind != J_ARR || inputs->len < 1 || inputs->len > MAX_INPUTS)
    return fail("%s: a kernel needs 1 to %d inputs", g->where, MAX_INPUTS);
  n->num_inputs = inputs->len;
  for (int i = 0; i < inputs->len; i++) {
    int input = (int)inputs->items[i].num;
    if (input < 0 || input >= id)
      return fail("%s: input %d is not an earlier node", g->where, input);
    n->inputs[i] = input;
  }
  return 0;
}

static int read_ids(xtvm_dnnl_graph *g, const char *key, int **ids, int *count) {
  const json *list = get(&g->root, key);
  if (!list || list->kind != J_ARR) return fail("graph JSON: no '%s' list", key);
  *count = list->len;
  *ids = calloc(list->len + 1, sizeof(int));
  for (int i = 0; i < list->len; i++) {
    (*ids)[i] = (int)list->items[i].num;
    if ((*ids)[i] < 0 || (*ids)[i] >= g->num_nodes)
      return fail("graph JSON: '%s' names node %d of %d", key, (*ids)[i], g->num_nodes);
  }
  return 0;
}

static int build(xtvm_dnnl_graph *g, const char *text, int num_inputs, int num_outputs) {
  reader r = {text, text};
  snprintf(g->where, sizeof g->where, "graph");
  TRY(parse_value(&r, &g->root));
  CHECK(dnnl_engine_create(&g->engine, dnnl_cpu, 0));
  CHECK(dnnl_stream_create(&g->stream, g->engine, dnnl_stream_default_flags));
  const json *nodes = get(&g->root, "nodes");
  if (!nodes || nodes->kind != J_ARR) return fail("graph JSON: no 'nodes' list");
  g->num_nodes = nodes->len;
  g->nodes = calloc(nodes->len + 1, sizeof(node_t));
  for (int i = 0; i < nodes->len; i++) TRY(read_node(g, i, &nodes->items[i]));
  TRY(read_ids(g, "arg_nodes", &g->arg_nodes, &g->num_args));
  TRY(read_ids(g, "heads", &g->heads, &g->num_heads));
  if (g->num_args != num_inputs || g->num_heads != num_outputs)
    return fail("graph: called with %d inputs and %d outputs, the graph has %d and %d",
                num_inputs, num_outputs, g->num_args, g->num_heads);
  for (int i = 0; i < g->num_args; i++) {
    node_t *n = &g->nodes[g->arg_nodes[i]];
    snprintf(g->where, sizeof g->where, "input %d (%s)", i, n->name);
    if (n->kind != NODE_INPUT) return fail("%s: not an input node", g->where);
    TRY(new_memory(g, &n->mem, &n->md, NULL));
    binding_t b = {n->mem, 0, i};
    PUSH(g->bindings, g->num_bindings, g->cap_bindings, b);
  }
  for (int i = 0; i < g->num_nodes; i++) {
    node_t *n = &g->nodes[i];
    snprintf(g->where, sizeof g->where, "node %d (%s)", i, n->name);
    g->current = i;
    if (n->kind == NODE_CONST) {
      const json *offset = get(n->attrs, "offset");
      if (!offset) offset = get(&nodes->items[i], "offset");
      if (!offset || offset->kind != J_NUM) return fail("%s: a const needs 'offset'", g->where);
      TRY(new_memory(g, &n->mem, &n->md, (void *)(g->weights + (size_t)offset->num)));
    } else if (n->kind == NODE_INPUT && !n->mem) {
      return fail("%s: input is not in 'arg_nodes'", g->where);
    } else if (n->kind == NODE_KERNEL) {
      TRY(build_kernel(g, n));
    }
  }
  /* Outputs: copy (reorder) each head into the caller's row-major buffer. */
  g->current = g->num_nodes;
  for (int i = 0; i < g->num_heads; i++) {
    node_t *n = &g->nodes[g->heads[i]];
    snprintf(g->where, sizeof g->where, "output %d (node %d)", i, g->heads[i]);
    dnnl_memory_desc_t plain;
    dnnl_memory_t out;
    TRY(make_md(g, &plain, n->ndims, n->dims, 0));
    TRY(new_memory(g, &out, &plain, NULL));
    binding_t b = {out, 1, i};
    PUSH(g->bindings, g->num_bindings, g->cap_bindings, b);
    TRY(reorder(g, n->mem, &n->md, out, &plain, 0));
  }
  snprintf(g->where, sizeof g->where, "graph");
  return lay_out_arena(g);
}

static void release(xtvm_dnnl_graph *g) {
  for (int i = 0; i < g->num_steps; i++) dnnl_primitive_destroy(g->steps[i].prim);
  for (int i = 0; i < g->num_memories; i++) dnnl_memory_destroy(g->memories[i]);
  if (g->stream) dnnl_stream_destroy(g->stream);
  if (g->engine) dnnl_engine_destroy(g->engine);
  json_free(&g->root);
  free(g->nodes);
  free(g->arg_nodes);
  free(g->heads);
  free(g->steps);
  free(g->bindings);
  free(g->converted);
  free(g->memories);
  free(g->buffers);
  free(g->placed);
  free(g->arena);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

static pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;

API int xtvm_dnnl_run(xtvm_dnnl_graph **graph, const char *json_text, const void *weights,
                      void *const *inputs, int num_inputs, void *const *outputs,
                      int num_outputs) {
  last_error[0] = 0;
  /* oneDNN fixes a primitive's thread count when it creates it: one graph per count. */
  int threads = omp_get_max_threads();
  pthread_mutex_lock(&build_lock);
  xtvm_dnnl_graph *g = *graph;
  while (g && g->threads != threads) g = g->next;
  if (!g) {
    g = calloc(1, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->weights = weights;
    g->threads = threads;
    if (build(g, json_text, num_inputs, num_outputs)) {
      release(g);
      pthread_mutex_unlock(&build_lock);
      return -1;
    }
    g->next = *graph;
    *graph = g;
  }
  pthread_mutex_unlock(&build_lock);
  if (num_inputs != g->num_args || num_outputs != g->num_heads)
    return fail("called with %d inputs and %d outputs, the graph has %d and %d", num_inputs,
                num_outputs, g->num_args, g->num_heads);
  /* Intermediates live in the graph: one call at a time. */
  pthread_mutex_lock(&g->lock);
  int result = 0;
  snprintf(g->where, sizeof g->where, "run");
  for (int i = 0; i < g->num_bindings && !result; i++) {
    binding_t *b = &g->bindings[i];
    dnnl_status_t status = dnnl_memory_set_data_handle(
        b->mem, b->output ? outputs[b->index] : inputs[b->index]);
    if (status != dnnl_success)
      result = fail("binding %s %d failed: %s", b->output ? "output" : "input", b->index,
                    dnnl_status2str(status));
  }
  for (int i = 0; i < g->num_steps && !result; i++) {
    step_t *s = &g->steps[i];
    dnnl_status_t status = dnnl_primitive_execute(s->prim, g->stream, s->nargs, s->args);
    if (status != dnnl_success)
      result = fail("executing step %d failed: %s", i, dnnl_status2str(status));
  }
  if (!result) {
    dnnl_status_t status = dnnl_stream_wait(g->stream);
    if (status != dnnl_success) result = fail("stream wait failed: %s", dnnl_status2str(status));
  }
  pthread_mutex_unlock(&g->lock);
  return result;
}

API void xtvm_dnnl_run_or_abort(const char *symbol, xtvm_dnnl_graph **graph,
                                const char *json_text, const void *weights, void *const *inputs,
                                int num_inputs, void *const *outputs, int num_outputs) {
  if (!xtvm_dnnl_run(graph, json_text, weights, inputs, num_inputs, outputs, num_outputs)) return;
  fprintf(stderr, "xtvm dnnl runtime: %s: %s\n", symbol, last_error);
  fflush(stderr);
  abort();
}

API const char *xtvm_dnnl_last_error(void) { return last_error; }

API void xtvm_dnnl_release(xtvm_dnnl_graph **graph) {
  pthread_mutex_lock(&build_lock);
  while (*graph) {
    xtvm_dnnl_graph *next = (*graph)->next;
    release(*graph);
    *graph = next;
  }
  pthread_mutex_unlock(&build_lock);
}
