/* The xtvm device runtime: see runtime.h. */
#define _GNU_SOURCE /* RTLD_NODELETE, RTLD_NOLOAD, dl_iterate_phdr */
#include "runtime.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const DTYPE_NAMES[XTVM_NUM_DTYPES] = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64"};
static const size_t DTYPE_SIZES[XTVM_NUM_DTYPES] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 8};

int xtvm_dtype_of(const char *name) {
  for (int i = 0; i < XTVM_NUM_DTYPES; i++)
    if (strcmp(name, DTYPE_NAMES[i]) == 0) return i;
  return -1;
}

const char *xtvm_dtype_name(int dtype) { return DTYPE_NAMES[dtype]; }
size_t xtvm_dtype_size(int dtype) { return DTYPE_SIZES[dtype]; }

int64_t xtvm_tensor_size(const xtvm_tensor *t) {
  int64_t size = 1;
  for (int i = 0; i < t->ndim; i++) size *= t->shape[i];
  return size;
}

size_t xtvm_tensor_bytes(const xtvm_tensor *t) {
  return (size_t)xtvm_tensor_size(t) * DTYPE_SIZES[t->dtype];
}

void *xtvm_alloc(size_t bytes) {
  void *data = NULL;
  if (posix_memalign(&data, 64, bytes ? bytes : 1) != 0) return NULL;
  memset(data, 0, bytes);
  return data;
}

double xtvm_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void shape_text(char *out, size_t size, const int64_t *shape, int ndim) {
  size_t n = (size_t)snprintf(out, size, "[");
  for (int i = 0; i < ndim && n < size; i++)
    n += (size_t)snprintf(out + n, size - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
  if (n < size) snprintf(out + n, size - n, "]");
}

/* ------------------------------------------------------------------------------------------ */
/* Modules */

static int by_name(const void *a, const void *b) {
  return strcmp(((const xtvm_kernel *)a)->name, ((const xtvm_kernel *)b)->name);
}

static int read_param(xtvm_param *param, const json_value *json, char *error) {
  const json_value *name = json_get(json, "name");
  const json_value *dtype = json_get(json, "dtype");
  const json_value *shape = json_get(json, "shape");
  const json_value *dims = json_get(json, "dims");
  param->json = json;
  param->name = name && name->type == JSON_STRING ? name->string : "?";
  param->dtype = dtype && dtype->type == JSON_STRING ? xtvm_dtype_of(dtype->string) : -1;
  if (param->dtype < 0) {
    snprintf(error, XTVM_ERROR_SIZE, "parameter '%s' has an unknown dtype", param->name);
    return -1;
  }
  if (!shape || shape->type == JSON_NULL) {
    param->ndim = -1;
    return 0;
  }
  if (shape->type != JSON_ARRAY || shape->count > XTVM_MAX_NDIM) {
    snprintf(error, XTVM_ERROR_SIZE, "parameter '%s' has a malformed shape", param->name);
    return -1;
  }
  param->ndim = (int)shape->count;
  for (int i = 0; i < param->ndim; i++) {
    const json_value *d = &shape->items[i];
    param->shape[i] = d->type == JSON_INT ? d->integer : -1;
    const json_value *var = json_at(dims, (size_t)i);
    param->dims[i] = var && var->type == JSON_STRING ? var->string : NULL;
  }
  return 0;
}

static int read_metadata(xtvm_module *module, const char *text, char *error) {
  char message[256];
  module->metadata = json_parse(text, strlen(text), message, sizeof message);
  if (!module->metadata || module->metadata->type != JSON_OBJECT) {
    snprintf(error, XTVM_ERROR_SIZE, "the library's metadata is not a JSON object");
    return -1;
  }
  const json_value *meta = module->metadata;
  const json_value *status = json_get(meta, "#status");
  module->kernels = calloc(meta->count ? meta->count : 1, sizeof(xtvm_kernel));
  if (!module->kernels) return -1;
  for (size_t i = 0; i < meta->count; i++) {
    if (strcmp(meta->keys[i], "#status") == 0) continue;
    const json_value *params = &meta->items[i];
    if (params->type != JSON_ARRAY) continue;
    xtvm_kernel *kernel = &module->kernels[module->num_kernels++];
    kernel->name = meta->keys[i];
    kernel->num_params = (int)params->count;
    kernel->params = calloc(params->count ? params->count : 1, sizeof(xtvm_param));
    if (!kernel->params) return -1;
    for (size_t k = 0; k < params->count; k++)
      if (read_param(&kernel->params[k], &params->items[k], error) != 0) return -1;
    for (size_t k = 0; status && status->type == JSON_ARRAY && k < status->count; k++)
      if (json_is(&status->items[k], kernel->name)) kernel->status = 1;
  }
  qsort(module->kernels, (size_t)module->num_kernels, sizeof(xtvm_kernel), by_name);
  return 0;
}

/* The shared objects of the process, by name (a growing list of strdup'd names). */
typedef struct {
  char **names;
  size_t count, capacity;
} object_names;

static int add_object_name(struct dl_phdr_info *info, size_t size, void *data) {
  object_names *list = data;
  (void)size;
  if (!info->dlpi_name || !*info->dlpi_name) return 0;
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? list->capacity * 2 : 32;
    char **bigger = realloc(list->names, capacity * sizeof(char *));
    if (!bigger) return 1;
    list->names = bigger;
    list->capacity = capacity;
  }
  list->names[list->count] = strdup(info->dlpi_name);
  if (list->names[list->count]) list->count++;
  return 0;
}

static void free_object_names(object_names *list) {
  for (size_t i = 0; i < list->count; i++) free(list->names[i]);
  free(list->names);
}

/* Keep loaded for good every object that loading `library` brought in besides itself (its
   libgomp, libm...): unloading a module must not unload a runtime whose threads live on,
   as libgomp's pool does after the module's parallel loops. */
static void pin_dependencies(const object_names *before, void *library) {
  object_names after = {0};
  struct link_map *own = NULL;
  dl_iterate_phdr(add_object_name, &after);
  dlinfo(library, RTLD_DI_LINKMAP, &own);
  for (size_t i = 0; i < after.count; i++) {
    int known = own && own->l_name && strcmp(after.names[i], own->l_name) == 0;
    for (size_t j = 0; j < before->count && !known; j++)
      known = strcmp(after.names[i], before->names[j]) == 0;
    if (known) continue;
    void *pinned = dlopen(after.names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (pinned) dlclose(pinned); /* the NODELETE mark stays */
  }
  free_object_names(&after);
}

xtvm_module *xtvm_module_load(const char *path, char *error) {
  object_names before = {0};
  dl_iterate_phdr(add_object_name, &before);
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library) pin_dependencies(&before, library);
  free_object_names(&before);
  if (!library) {
    snprintf(error, XTVM_ERROR_SIZE, "cannot load the library: %s", dlerror());
    return NULL;
  }
  const char *const *metadata = (const char *const *)dlsym(library, "xtvm_module_metadata");
  const char *const *model = (const char *const *)dlsym(library, "xtvm_model_metadata");
  static const char *const no_kernels = "{}";
  if (model && *model && (!metadata || !*metadata)) metadata = &no_kernels;
  if (!metadata || !*metadata) {
    snprintf(error, XTVM_ERROR_SIZE, "the library was not written by xtvm's export_library");
    dlclose(library);
    return NULL;
  }
  xtvm_module *module = calloc(1, sizeof *module);
  if (!module) {
    snprintf(error, XTVM_ERROR_SIZE, "out of memory for the module");
    dlclose(library);
    return NULL;
  }
  module->library = library;
  if (read_metadata(module, *metadata, error) != 0) goto fail;
  for (int i = 0; i < module->num_kernels; i++) {
    xtvm_kernel *kernel = &module->kernels[i];
    kernel->address = dlsym(library, kernel->name);
    if (!kernel->address) {
      snprintf(error, XTVM_ERROR_SIZE, "the library lacks kernel '%s'", kernel->name);
      goto fail;
    }
    char packed[sizeof XTVM_PACKED_PREFIX + 256];
    if (strlen(kernel->name) < 256) {
      snprintf(packed, sizeof packed, "%s%s", XTVM_PACKED_PREFIX, kernel->name);
      *(void **)&kernel->packed = dlsym(library, packed);
    }
  }
  *(void **)&module->last_error = dlsym(library, "xtvm_last_error");
  if (model && *model) {
    *(void **)&module->model_run = dlsym(library, "xtvm_model_run");
    module->model_metadata = *model;
  }
  module->graph_json = (const char *)dlsym(library, "xtvm_graph_json");
  const int64_t *params_size = (const int64_t *)dlsym(library, "xtvm_graph_params_size");
  module->params_blob = (const uint8_t *)dlsym(library, "xtvm_graph_params");
  module->params_size = params_size && module->params_blob ? (size_t)*params_size : 0;
  return module;
fail:
  if (!*error) snprintf(error, XTVM_ERROR_SIZE, "out of memory reading the library's metadata");
  xtvm_module_free(module);
  return NULL;
}

void xtvm_module_free(xtvm_module *module) {
  if (!module) return;
  for (int i = 0; i < module->num_kernels; i++) free(module->kernels[i].params);
  free(module->kernels);
  json_free(module->metadata);
  if (module->library) dlclose(module->library);
  free(module);
}

int xtvm_module_has_model(const xtvm_module *module) {
  return module->graph_json || (module->model_run && module->model_metadata);
}

xtvm_kernel *xtvm_module_kernel(xtvm_module *module, const char *name) {
  for (int i = 0; i < module->num_kernels; i++)
    if (strcmp(module->kernels[i].name, name) == 0) return &module->kernels[i];
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Calling kernels */

static int is_float(int dtype) {
  return dtype == XTVM_FLOAT16 || dtype == XTVM_FLOAT32 || dtype == XTVM_FLOAT64;
}

/* Whether integer `v` is a value of integer dtype `dtype`. */
static int fits_integer(int64_t v, int dtype) {
  switch (dtype) {
    case XTVM_BOOL: return v == 0 || v == 1;
    case XTVM_INT8: return v >= INT8_MIN && v <= INT8_MAX;
    case XTVM_INT16: return v >= INT16_MIN && v <= INT16_MAX;
    case XTVM_INT32: return v >= INT32_MIN && v <= INT32_MAX;
    case XTVM_UINT8: return v >= 0 && v <= UINT8_MAX;
    case XTVM_UINT16: return v >= 0 && v <= UINT16_MAX;
    case XTVM_UINT32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case XTVM_UINT64: return v >= 0;
    default: return 1; /* int64 */
  }
}

/* The scalar argument `i` as a packed value, or -1 with the reason. */
static int scalar_value(const xtvm_kernel *kernel, int i, const xtvm_arg *arg, xtvm_value *value,
                        int32_t *code, char *error) {
  const xtvm_param *param = &kernel->params[i];
  if (param->dtype == XTVM_FLOAT16) {
    snprintf(error, XTVM_ERROR_SIZE,
             "%s: argument %d (%s): float16 scalars are not supported by the device runtime",
             kernel->name, i, param->name);
    return -1;
  }
  if (is_float(param->dtype)) {
    if (arg->kind != XTVM_ARG_FLOAT && arg->kind != XTVM_ARG_INT) {
      snprintf(error, XTVM_ERROR_SIZE, "%s: argument %d (%s): expected a %s scalar",
               kernel->name, i, param->name, DTYPE_NAMES[param->dtype]);
      return -1;
    }
    value->v_float64 = arg->kind == XTVM_ARG_FLOAT ? arg->number : (double)arg->integer;
    *code = XTVM_CODE_FLOAT;
    return 0;
  }
  if (arg->kind != XTVM_ARG_INT) {
    snprintf(error, XTVM_ERROR_SIZE, "%s: argument %d (%s): expected an integer scalar (%s)",
             kernel->name, i, param->name, DTYPE_NAMES[param->dtype]);
    return -1;
  }
  if (!fits_integer(arg->integer, param->dtype)) {
    snprintf(error, XTVM_ERROR_SIZE, "%s: argument %d (%s): %lld is out of range for %s",
             kernel->name, i, param->name, (long long)arg->integer, DTYPE_NAMES[param->dtype]);
    return -1;
  }
  value->v_int64 = arg->integer;
  *code = XTVM_CODE_INT;
  return 0;
}

/* Whether tensor argument `i` fits its parameter (dtype, rank, fixed sizes, and a variable
   naming several dimensions having one value); 0, or -1 with the reason. */
static int check_tensor(const xtvm_kernel *kernel, int i, const xtvm_arg *args, char *error) {
  char expected[400], got[400];
  const xtvm_param *param = &kernel->params[i];
  const xtvm_tensor *t = args[i].tensor;
  if (args[i].kind != XTVM_ARG_TENSOR || !t) {
    snprintf(error, XTVM_ERROR_SIZE, "%s: argument %d (%s): expected an array", kernel->name, i,
             param->name);
    return -1;
  }
  int fits = t->dtype == param->dtype && t->ndim == param->ndim;
  for (int d = 0; fits && d < param->ndim; d++)
    if (param->shape[d] >= 0 && param->shape[d] != t->shape[d]) fits = 0;
  for (int d = 0; fits && d < param->ndim; d++) {
    if (!param->dims[d]) continue;
    for (int j = 0; j <= i; j++) {
      const xtvm_param *other = &kernel->params[j];
      for (int e = 0; e < other->ndim; e++)
        if (other->dims[e] && strcmp(other->dims[e], param->dims[d]) == 0 &&
            args[j].tensor->shape[e] != t->shape[d]) {
          snprintf(error, XTVM_ERROR_SIZE,
                   "%s: argument %d (%s): dimension %d is %lld but '%s' is %lld by "
                   "argument %d (%s)",
                   kernel->name, i, param->name, d, (long long)t->shape[d], param->dims[d],
                   (long long)args[j].tensor->shape[e], j, other->name);
          return -1;
        }
    }
  }
  if (!fits) {
    int64_t shown[XTVM_MAX_NDIM];
    for (int d = 0; d < param->ndim; d++) shown[d] = param->shape[d];
    shape_text(expected, sizeof expected, shown, param->ndim);
    shape_text(got, sizeof got, t->shape, t->ndim);
    snprintf(error, XTVM_ERROR_SIZE, "%s: argument %d (%s): expected %s%s, got %s%s",
             kernel->name, i, param->name, DTYPE_NAMES[param->dtype], expected,
             DTYPE_NAMES[t->dtype], got);
    return -1;
  }
  return 0;
}

int xtvm_prepare(xtvm_call *call, const xtvm_module *module, const xtvm_kernel *kernel,
                 const xtvm_arg *args, int num_args, char *error) {
  memset(call, 0, sizeof *call);
  if (num_args != kernel->num_params) {
    snprintf(error, XTVM_ERROR_SIZE, "%s takes %d arguments, got %d", kernel->name,
             kernel->num_params, num_args);
    return -1;
  }
  /* One value per parameter, then one per dynamic dimension (at most XTVM_MAX_NDIM each). */
  size_t count = (size_t)num_args;
  for (int i = 0; i < num_args; i++)
    for (int d = 0; d < kernel->params[i].ndim; d++) count += kernel->params[i].shape[d] < 0;
  if (count > INT32_MAX / 2) {
    snprintf(error, XTVM_ERROR_SIZE, "%s: too many arguments", kernel->name);
    return -1;
  }
  xtvm_value *values = calloc(count + 1, sizeof(xtvm_value));
  int32_t *codes = calloc(count + 1, sizeof(int32_t));
  if (!values || !codes) {
    snprintf(error, XTVM_ERROR_SIZE, "%s: out of memory for the arguments", kernel->name);
    goto fail;
  }
  size_t next = (size_t)num_args;
  for (int i = 0; i < num_args; i++) {
    const xtvm_param *param = &kernel->params[i];
    if (param->ndim < 0) {
      if (scalar_value(kernel, i, &args[i], &values[i], &codes[i], error) != 0) goto fail;
      continue;
    }
    if (check_tensor(kernel, i, args, error) != 0) goto fail;
    values[i].v_handle = args[i].tensor->data;
    codes[i] = XTVM_CODE_HANDLE;
    for (int d = 0; d < param->ndim; d++) {
      if (param->shape[d] >= 0) continue;
      values[next].v_int64 = args[i].tensor->shape[d];
      codes[next++] = XTVM_CODE_INT;
    }
  }
  if (!kernel->packed) {
    snprintf(error, XTVM_ERROR_SIZE,
             "the library has no packed entry %s%s: export it again with this xtvm",
             XTVM_PACKED_PREFIX, kernel->name);
    goto fail;
  }
  call->kernel = kernel;
  call->module = module;
  call->count = (int32_t)count;
  call->values = values;
  call->codes = codes;
  return 0;
fail:
  free(values);
  free(codes);
  return -1;
}

void xtvm_call_free(xtvm_call *call) {
  free(call->values);
  free(call->codes);
  memset(call, 0, sizeof *call);
}

int xtvm_invoke(const xtvm_call *call, char *error) {
  int32_t status = call->kernel->packed(call->values, call->codes, call->count);
  if (status == 0) return 0;
  if (status == XTVM_PACKED_MISMATCH) {
    snprintf(error, XTVM_ERROR_SIZE,
             "%s: its packed entry refused the arguments (the library's metadata and code "
             "disagree)",
             call->kernel->name);
    return -1;
  }
  if (!call->kernel->status) return 0;
  const char *message = call->module->last_error ? call->module->last_error() : NULL;
  if (message && *message)
    snprintf(error, XTVM_ERROR_SIZE, "%s", message);
  else
    snprintf(error, XTVM_ERROR_SIZE, "%s: the kernel failed with status %d", call->kernel->name,
             (int)status);
  return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Weights: the params blob of xtvm.runtime.params ("XTVMPAR1", a JSON index, aligned arrays) */

#define PARAMS_ALIGN 64
#define PARAMS_MAX_INDEX (1u << 26)

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

/* Read index entry `entry` into `t` (data: its place in the blob), all bounds checked. */
static int read_weight(const json_value *entry, const uint8_t *blob, size_t size, size_t data,
                       xtvm_tensor *t, const char **name) {
  const json_value *n = json_get(entry, "name"), *dtype = json_get(entry, "dtype");
  const json_value *shape = json_get(entry, "shape"), *offset = json_get(entry, "offset");
  if (!n || n->type != JSON_STRING || !dtype || dtype->type != JSON_STRING || !shape ||
      shape->type != JSON_ARRAY || shape->count > XTVM_MAX_NDIM || !offset ||
      offset->type != JSON_INT || offset->integer < 0)
    return -1;
  t->dtype = xtvm_dtype_of(dtype->string);
  if (t->dtype < 0) return -1;
  uint64_t bytes = DTYPE_SIZES[t->dtype];
  t->ndim = (int)shape->count;
  for (int d = 0; d < t->ndim; d++) {
    const json_value *dim = &shape->items[d];
    if (dim->type != JSON_INT || dim->integer < 0) return -1;
    t->shape[d] = dim->integer;
    if (dim->integer && bytes > (uint64_t)size / (uint64_t)dim->integer) return -1;
    bytes *= (uint64_t)dim->integer;
  }
  if ((uint64_t)offset->integer > size - data || bytes > size - data - (size_t)offset->integer)
    return -1;
  t->data = (void *)(blob + data + (size_t)offset->integer);
  *name = n->string;
  return 0;
}

/* Copy each weight of the blob into the graph input of its name. */
static int load_params(xtvm_graph *graph, const uint8_t *blob, size_t size, char *error) {
  if (!size) return 0;
  if (size < 16 || memcmp(blob, "XTVMPAR1", 8) != 0) {
    snprintf(error, XTVM_ERROR_SIZE,
             "the library's params are not in xtvm's format (XTVMPAR1): export it again");
    return -1;
  }
  uint64_t length = le64(blob + 8);
  if (length > PARAMS_MAX_INDEX || length > size - 16) {
    snprintf(error, XTVM_ERROR_SIZE, "the library's params index is malformed");
    return -1;
  }
  size_t data = ((size_t)length + 16 + PARAMS_ALIGN - 1) / PARAMS_ALIGN * PARAMS_ALIGN;
  char message[256];
  json_value *index = json_parse((const char *)blob + 16, (size_t)length, message, sizeof message);
  if (!index || index->type != JSON_ARRAY || data > size) {
    snprintf(error, XTVM_ERROR_SIZE, "the library's params index is malformed");
    json_free(index);
    return -1;
  }
  int failed = 0;
  for (size_t i = 0; i < index->count && !failed; i++) {
    xtvm_tensor value;
    const char *name = NULL;
    if (read_weight(&index->items[i], blob, size, data, &value, &name) != 0) {
      snprintf(error, XTVM_ERROR_SIZE, "params index entry %d is malformed", (int)i);
      failed = 1;
      continue;
    }
    int input = xtvm_graph_input_index(graph, name);
    if (input >= 0 && xtvm_graph_set_input(graph, input, &value, error) != 0) failed = 1;
  }
  json_free(index);
  return failed ? -1 : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The graph executor */

static int64_t int_at(const json_value *array, size_t index, int64_t otherwise) {
  const json_value *v = json_at(array, index);
  return v && v->type == JSON_INT ? v->integer : otherwise;
}

/* Read a tensor type {"name", "dtype", "shape"} of the AOT metadata. */
static int model_tensor(const json_value *v, xtvm_tensor *t, const char **name) {
  const json_value *n = json_get(v, "name"), *dtype = json_get(v, "dtype");
  const json_value *shape = json_get(v, "shape");
  if (!n || n->type != JSON_STRING || !dtype || dtype->type != JSON_STRING || !shape ||
      shape->type != JSON_ARRAY || shape->count > XTVM_MAX_NDIM)
    return -1;
  t->dtype = xtvm_dtype_of(dtype->string);
  if (t->dtype < 0) return -1;
  t->ndim = (int)shape->count;
  for (int d = 0; d < t->ndim; d++) t->shape[d] = int_at(shape, (size_t)d, -1);
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] < 0) return -1;
  *name = n->string;
  t->data = xtvm_alloc(xtvm_tensor_bytes(t));
  return t->data ? 0 : -1;
}

/* An executor of the AOT entry point: its inputs, then its outputs, are the entries. */
static xtvm_graph *model_create(xtvm_module *module, char *error) {
  char message[256];
  xtvm_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->module = module;
  g->graph = json_parse(module->model_metadata, strlen(module->model_metadata), message,
                        sizeof message);
  const json_value *inputs = json_get(g->graph, "inputs"), *outputs = json_get(g->graph, "outputs");
  if (!inputs || !outputs || inputs->type != JSON_ARRAY || outputs->type != JSON_ARRAY) {
    snprintf(error, XTVM_ERROR_SIZE, "the library's model metadata is malformed");
    goto fail;
  }
  g->num_inputs = (int)inputs->count;
  g->num_outputs = (int)outputs->count;
  g->num_entries = g->num_inputs + g->num_outputs;
  g->entries = calloc((size_t)g->num_entries + 1, sizeof(xtvm_tensor));
  g->storages = calloc((size_t)g->num_entries + 1, sizeof(void *));
  g->input_names = calloc((size_t)g->num_inputs + 1, sizeof(char *));
  g->input_entries = calloc((size_t)g->num_inputs + 1, sizeof(int));
  g->input_set = calloc((size_t)g->num_inputs + 1, 1);
  g->output_entries = calloc((size_t)g->num_outputs + 1, sizeof(int));
  g->model_inputs = calloc((size_t)g->num_inputs + 1, sizeof(void *));
  g->model_outputs = calloc((size_t)g->num_outputs + 1, sizeof(void *));
  if (!g->entries || !g->storages || !g->input_names || !g->input_entries || !g->input_set ||
      !g->output_entries || !g->model_inputs || !g->model_outputs)
    goto fail;
  for (int e = 0; e < g->num_entries; e++) {
    const char *name;
    int is_input = e < g->num_inputs;
    const json_value *v = is_input ? &inputs->items[e] : &outputs->items[e - g->num_inputs];
    int failed = model_tensor(v, &g->entries[e], &name);
    if (g->entries[e].data) g->storages[g->num_storages++] = g->entries[e].data;
    if (failed) {
      snprintf(error, XTVM_ERROR_SIZE, "the library's model metadata is malformed");
      goto fail;
    }
    if (is_input) {
      g->input_names[e] = (char *)name;
      g->input_entries[e] = e;
      g->model_inputs[e] = g->entries[e].data;
    } else {
      g->output_entries[e - g->num_inputs] = e;
      g->model_outputs[e - g->num_inputs] = g->entries[e].data;
    }
  }
  return g;
fail:
  if (!*error) snprintf(error, XTVM_ERROR_SIZE, "cannot create the model's executor");
  xtvm_graph_free(g);
  return NULL;
}

xtvm_graph *xtvm_graph_create(xtvm_module *module, char *error) {
  char message[256];
  if (!module->graph_json && module->model_run && module->model_metadata)
    return model_create(module, error);
  if (!module->graph_json) {
    snprintf(error, XTVM_ERROR_SIZE, "the library holds no graph (not written by relay.build)");
    return NULL;
  }
  xtvm_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->module = module;
  g->graph = json_parse(module->graph_json, strlen(module->graph_json), message, sizeof message);
  const json_value *nodes = json_get(g->graph, "nodes");
  const json_value *row_ptr = json_get(g->graph, "node_row_ptr");
  const json_value *attrs = json_get(g->graph, "attrs");
  const json_value *shapes = json_at(json_get(attrs, "shape"), 1);
  const json_value *dtypes = json_at(json_get(attrs, "dltype"), 1);
  const json_value *storage = json_at(json_get(attrs, "storage_id"), 1);
  const json_value *arg_nodes = json_get(g->graph, "arg_nodes");
  const json_value *heads = json_get(g->graph, "heads");
  if (!nodes || !row_ptr || !shapes || !dtypes || !arg_nodes || !heads ||
      shapes->type != JSON_ARRAY || dtypes->count != shapes->count ||
      row_ptr->count != nodes->count + 1) {
    snprintf(error, XTVM_ERROR_SIZE, "the library's graph JSON is malformed");
    goto fail;
  }
  g->num_entries = (int)shapes->count;
  g->entries = calloc(shapes->count + 1, sizeof(xtvm_tensor));
  g->storages = calloc(shapes->count + 1, sizeof(void *));
  size_t *storage_bytes = calloc(shapes->count + 1, sizeof(size_t));
  int *storage_ids = calloc(shapes->count + 1, sizeof(int));
  if (!g->entries || !g->storages || !storage_bytes || !storage_ids) goto fail;
  for (int e = 0; e < g->num_entries; e++) {
    xtvm_tensor *t = &g->entries[e];
    const json_value *shape = &shapes->items[e];
    const json_value *dtype = &dtypes->items[e];
    t->dtype = dtype->type == JSON_STRING ? xtvm_dtype_of(dtype->string) : -1;
    if (t->dtype < 0 || shape->type != JSON_ARRAY || shape->count > XTVM_MAX_NDIM) {
      snprintf(error, XTVM_ERROR_SIZE, "graph entry %d has a malformed type", e);
      goto fail;
    }
    t->ndim = (int)shape->count;
    for (int d = 0; d < t->ndim; d++) t->shape[d] = int_at(shape, (size_t)d, 0);
    int64_t sid = storage && storage->count == shapes->count ? int_at(storage, (size_t)e, -1) : e;
    storage_ids[e] = sid >= 0 && sid < g->num_entries ? (int)sid : e;
    if (xtvm_tensor_bytes(t) > storage_bytes[storage_ids[e]])
      storage_bytes[storage_ids[e]] = xtvm_tensor_bytes(t);
  }
  for (int s = 0; s < g->num_entries; s++) {
    if (!storage_bytes[s]) continue;
    g->storages[g->num_storages] = xtvm_alloc(storage_bytes[s]);
    if (!g->storages[g->num_storages]) {
      snprintf(error, XTVM_ERROR_SIZE, "out of memory for the graph's buffers");
      goto fail;
    }
    storage_bytes[s] = (size_t)g->num_storages++; /* now: the index of its buffer */
  }
  for (int e = 0; e < g->num_entries; e++)
    g->entries[e].data = xtvm_tensor_bytes(&g->entries[e])
                             ? g->storages[storage_bytes[storage_ids[e]]]
                             : g->storages[0];
  free(storage_bytes);
  free(storage_ids);
  storage_bytes = NULL;

  g->num_inputs = (int)arg_nodes->count;
  g->input_names = calloc(arg_nodes->count + 1, sizeof(char *));
  g->input_entries = calloc(arg_nodes->count + 1, sizeof(int));
  g->input_set = calloc(arg_nodes->count + 1, 1);
  g->num_outputs = (int)heads->count;
  g->output_entries = calloc(heads->count + 1, sizeof(int));
  g->calls = calloc(nodes->count + 1, sizeof(xtvm_call));
  if (!g->input_names || !g->input_entries || !g->input_set || !g->output_entries || !g->calls)
    goto fail;
  for (int i = 0; i < g->num_inputs; i++) {
    int64_t nid = int_at(arg_nodes, (size_t)i, -1);
    const json_value *name = json_get(json_at(nodes, (size_t)nid), "name");
    int64_t eid = int_at(row_ptr, (size_t)nid, -1);
    if (!name || name->type != JSON_STRING || eid < 0 || eid >= g->num_entries) {
      snprintf(error, XTVM_ERROR_SIZE, "graph argument node %d is malformed", i);
      goto fail;
    }
    g->input_names[i] = name->string;
    g->input_entries[i] = (int)eid;
  }
  for (int i = 0; i < g->num_outputs; i++) {
    const json_value *head = json_at(heads, (size_t)i);
    int64_t eid = int_at(row_ptr, (size_t)int_at(head, 0, -1), -1) + int_at(head, 1, 0);
    if (eid < 0 || eid >= g->num_entries) {
      snprintf(error, XTVM_ERROR_SIZE, "graph output %d is malformed", i);
      goto fail;
    }
    g->output_entries[i] = (int)eid;
  }
  for (size_t nid = 0; nid < nodes->count; nid++) {
    const json_value *node = &nodes->items[nid];
    if (!json_is(json_get(node, "op"), "tvm_op")) continue;
    const json_value *fname = json_get(json_get(node, "attrs"), "func_name");
    if (json_is(fname, "__nop")) { /* its output is its input's buffer: nothing runs */
      const json_value *in = json_at(json_get(node, "inputs"), 0);
      int64_t src = int_at(row_ptr, (size_t)int_at(in, 0, -1), -1) + int_at(in, 1, 0);
      int64_t dst = int_at(row_ptr, nid, -1);
      if (src < 0 || src >= g->num_entries || dst < 0 || dst >= g->num_entries ||
          g->entries[src].data != g->entries[dst].data ||
          xtvm_tensor_bytes(&g->entries[src]) != xtvm_tensor_bytes(&g->entries[dst])) {
        snprintf(error, XTVM_ERROR_SIZE,
                 "graph node %d (__nop) does not share its input's storage", (int)nid);
        goto fail;
      }
      continue;
    }
    xtvm_kernel *kernel =
        fname && fname->type == JSON_STRING ? xtvm_module_kernel(module, fname->string) : NULL;
    if (!kernel) {
      snprintf(error, XTVM_ERROR_SIZE, "graph node %d calls a kernel the library lacks",
               (int)nid);
      goto fail;
    }
    const json_value *inputs = json_get(node, "inputs");
    int64_t first = int_at(row_ptr, nid, 0), last = int_at(row_ptr, nid + 1, 0);
    size_t num_in = inputs && inputs->type == JSON_ARRAY ? inputs->count : 0;
    if (last < first || num_in + (size_t)(last - first) > 4096) goto fail;
    xtvm_arg *args = calloc(num_in + (size_t)(last - first) + 1, sizeof(xtvm_arg));
    if (!args) goto fail;
    int num_args = 0;
    for (size_t k = 0; k < num_in; k++) {
      const json_value *input = &inputs->items[k];
      int64_t eid = int_at(row_ptr, (size_t)int_at(input, 0, -1), -1) + int_at(input, 1, 0);
      if (eid < 0 || eid >= g->num_entries) {
        free(args);
        snprintf(error, XTVM_ERROR_SIZE, "graph node %d has a malformed input", (int)nid);
        goto fail;
      }
      args[num_args].kind = XTVM_ARG_TENSOR;
      args[num_args++].tensor = &g->entries[eid];
    }
    for (int64_t eid = first; eid < last && eid < g->num_entries; eid++) {
      args[num_args].kind = XTVM_ARG_TENSOR;
      args[num_args++].tensor = &g->entries[eid];
    }
    int failed = xtvm_prepare(&g->calls[g->num_calls], module, kernel, args, num_args, error);
    free(args);
    if (failed) goto fail;
    g->num_calls++;
  }
  if (load_params(g, module->params_blob, module->params_size, error) != 0) goto fail;
  return g;
fail:
  if (!*error) snprintf(error, XTVM_ERROR_SIZE, "cannot create the graph executor");
  xtvm_graph_free(g);
  return NULL;
}

void xtvm_graph_free(xtvm_graph *g) {
  if (!g) return;
  for (int s = 0; s < g->num_storages; s++) free(g->storages[s]);
  free(g->storages);
  free(g->entries);
  free(g->input_names);
  free(g->input_entries);
  free(g->input_set);
  free(g->output_entries);
  for (int c = 0; c < g->num_calls; c++) xtvm_call_free(&g->calls[c]);
  free(g->calls);
  free(g->model_inputs);
  free(g->model_outputs);
  json_free(g->graph);
  free(g);
}

int xtvm_graph_input_index(const xtvm_graph *g, const char *name) {
  for (int i = 0; i < g->num_inputs; i++)
    if (strcmp(g->input_names[i], name) == 0) return i;
  return -1;
}

int xtvm_graph_set_input(xtvm_graph *g, int index, const xtvm_tensor *value, char *error) {
  xtvm_tensor *target = &g->entries[g->input_entries[index]];
  const char *name = g->input_names[index];
  if (value->dtype != target->dtype) {
    snprintf(error, XTVM_ERROR_SIZE, "input '%s': expected element type %s, got %s", name,
             DTYPE_NAMES[target->dtype], DTYPE_NAMES[value->dtype]);
    return -1;
  }
  int same = value->ndim == target->ndim;
  for (int d = 0; same && d < target->ndim; d++) same = value->shape[d] == target->shape[d];
  if (!same) {
    char expected[400], got[400];
    shape_text(expected, sizeof expected, target->shape, target->ndim);
    shape_text(got, sizeof got, value->shape, value->ndim);
    snprintf(error, XTVM_ERROR_SIZE, "input '%s': expected shape %s, got %s", name, expected, got);
    return -1;
  }
  memcpy(target->data, value->data, xtvm_tensor_bytes(target));
  g->input_set[index] = 1;
  return 0;
}

int xtvm_graph_run(xtvm_graph *g, char *error, const char **error_type) {
  for (int i = 0; i < g->num_inputs; i++) {
    if (g->input_set[i]) continue;
    *error_type = "GraphInputError";
    snprintf(error, XTVM_ERROR_SIZE,
             "graph input without a value: '%s' (call set_input before run(); weights come from "
             "the params given to relay.build)",
             g->input_names[i]);
    return -1;
  }
  if (g->model_inputs && g->module->model_run(g->model_inputs, g->model_outputs) != 0) {
    const char *message = g->module->last_error ? g->module->last_error() : NULL;
    *error_type = "KernelError";
    snprintf(error, XTVM_ERROR_SIZE, "%s",
             message && *message ? message : "the model's run failed");
    return -1;
  }
  for (int c = 0; c < g->num_calls; c++) {
    if (xtvm_invoke(&g->calls[c], error) != 0) {
      *error_type = "KernelError";
      return -1;
    }
  }
  return 0;
}
