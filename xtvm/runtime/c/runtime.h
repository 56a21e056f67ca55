/* The xtvm device runtime: modules written by xtvm's export_library, their kernels called on
   tensor descriptors, and relay.build graphs run by a graph executor; C99 with libc, libdl
   and libm only, for devices without Python.

   A module library exports `const char *xtvm_module_metadata` (JSON: kernel name -> parameter
   list, and "#status": the kernels returning a status), one symbol per kernel and
   `xtvm_last_error`. A kernel takes a pointer per buffer parameter and each scalar parameter
   in order, then an int64 per dynamic dimension of its buffers; a status kernel returns 0 or
   an error code. The runtime calls it through its packed entry `xtvm_packed_<kernel>(values,
   type_codes, count)` (xtvm/backends/packed.py), the same values in an array of `xtvm_value`,
   which the library's own compiler made for the target's C ABI (float registers, int64
   pairs): any scalar types, any number of arguments. A relay.build library adds `xtvm_graph_json` (TVM's graph JSON),
   `xtvm_graph_params` (the weights: "XTVMPAR1", a uint64 index length, a JSON index of
   name, dtype, shape and offset, arrays at 64-byte aligned offsets after it; see
   xtvm/runtime/params.py) and `xtvm_graph_params_size`; an AOT
   library (xtvm.driver.aot) has instead `xtvm_model_run` and `xtvm_model_metadata` (JSON:
   its inputs and outputs), and runs as a graph of one step. */
#ifndef XTVM_RUNTIME_H
#define XTVM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

#define XTVM_MAX_NDIM 32
#define XTVM_ERROR_SIZE 1024

typedef enum {
  XTVM_BOOL, XTVM_INT8, XTVM_INT16, XTVM_INT32, XTVM_INT64, XTVM_UINT8, XTVM_UINT16,
  XTVM_UINT32, XTVM_UINT64, XTVM_FLOAT16, XTVM_FLOAT32, XTVM_FLOAT64, XTVM_NUM_DTYPES
} xtvm_dtype;

/* The dtype named `name` (numpy's names), or -1. */
int xtvm_dtype_of(const char *name);
const char *xtvm_dtype_name(int dtype);
size_t xtvm_dtype_size(int dtype);

/* A row-major tensor: the runtime never owns `data`. */
typedef struct {
  void *data;
  int dtype;
  int ndim;
  int64_t shape[XTVM_MAX_NDIM];
} xtvm_tensor;

int64_t xtvm_tensor_size(const xtvm_tensor *t);  /* elements */
size_t xtvm_tensor_bytes(const xtvm_tensor *t);

/* One argument of a kernel call. */
typedef struct {
  enum { XTVM_ARG_TENSOR, XTVM_ARG_INT, XTVM_ARG_FLOAT } kind;
  const xtvm_tensor *tensor;
  int64_t integer;
  double number;
} xtvm_arg;

typedef struct {
  char *name;
  int dtype;
  int ndim;                      /* -1: a scalar */
  int64_t shape[XTVM_MAX_NDIM];  /* -1: dynamic */
  const char *dims[XTVM_MAX_NDIM]; /* the variable naming a dynamic dimension, or NULL */
  const json_value *json;        /* the parameter as the metadata gives it */
} xtvm_param;

/* A value of a packed call, and the code saying which member it uses (TVM's). */
typedef union {
  int64_t v_int64;
  double v_float64;
  void *v_handle;
} xtvm_value;
enum { XTVM_CODE_INT = 0, XTVM_CODE_FLOAT = 2, XTVM_CODE_HANDLE = 3 };
#define XTVM_PACKED_PREFIX "xtvm_packed_"
#define XTVM_PACKED_MISMATCH (-1) /* a packed entry's answer to values unlike its signature */
typedef int32_t (*xtvm_packed)(const xtvm_value *values, const int32_t *type_codes,
                               int32_t count);

typedef struct {
  char *name;
  void *address;
  xtvm_packed packed; /* NULL: the library has no packed entry for it */
  int status; /* returns 0 or an error code */
  int num_params;
  xtvm_param *params;
} xtvm_kernel;

typedef struct {
  void *library;
  json_value *metadata;
  int num_kernels;
  xtvm_kernel *kernels; /* sorted by name */
  const char *graph_json; /* NULL: no graph */
  const uint8_t *params_blob;
  size_t params_size;
  const char *(*last_error)(void);
  int (*model_run)(const void *const *inputs, void *const *outputs); /* AOT: NULL if none */
  const char *model_metadata;
} xtvm_module;

/* Whether the module holds a model (a graph or an AOT entry point). */
int xtvm_module_has_model(const xtvm_module *module);

/* Load a library; NULL with a message in `error`. */
xtvm_module *xtvm_module_load(const char *path, char *error);
/* Unload the library: nothing made from the module may be used after. */
void xtvm_module_free(xtvm_module *module);
xtvm_kernel *xtvm_module_kernel(xtvm_module *module, const char *name);

/* A kernel call prepared once: arguments checked, values laid out for its packed entry. */
typedef struct {
  const xtvm_kernel *kernel;
  const xtvm_module *module;
  int32_t count;
  xtvm_value *values; /* owned: xtvm_call_free releases them */
  int32_t *codes;
} xtvm_call;

/* Check `args` against the kernel's signature and lay out the call: 0, or -1 with an
   `ArgumentError` message in `error` (the call then holds nothing). */
int xtvm_prepare(xtvm_call *call, const xtvm_module *module, const xtvm_kernel *kernel,
                 const xtvm_arg *args, int num_args, char *error);
/* Run a prepared call: 0, or -1 with the kernel's error message (a `KernelError`). */
int xtvm_invoke(const xtvm_call *call, char *error);
void xtvm_call_free(xtvm_call *call);

/* The graph executor. Every entry has a buffer (entries of one storage id share it); inputs
   and weights are copied in, outputs read back. */
typedef struct {
  xtvm_module *module;
  json_value *graph;
  int num_entries;
  xtvm_tensor *entries;
  int num_storages;
  void **storages;
  int num_inputs; /* arg_nodes: inputs and weights, in graph order */
  char **input_names;
  int *input_entries;
  char *input_set;
  int num_outputs;
  int *output_entries;
  int num_calls;
  xtvm_call *calls;
  const void **model_inputs; /* AOT: the buffers of the entry point's arguments */
  void **model_outputs;
} xtvm_graph;

/* An executor of the module's graph with its weights set (or of its AOT entry point); NULL
   with a message. */
xtvm_graph *xtvm_graph_create(xtvm_module *module, char *error);
void xtvm_graph_free(xtvm_graph *graph);
/* The index of input `name`, or -1. */
int xtvm_graph_input_index(const xtvm_graph *graph, const char *name);
/* Copy `value` into input `index` (exact dtype and shape): 0, or -1 (GraphInputError). */
int xtvm_graph_set_input(xtvm_graph *graph, int index, const xtvm_tensor *value, char *error);
/* Run every kernel in graph order: 0, or -1 (GraphInputError, KernelError). */
int xtvm_graph_run(xtvm_graph *graph, char *error, const char **error_type);

void *xtvm_alloc(size_t bytes); /* 64-byte aligned, zeroed; free() releases it */
double xtvm_now(void);          /* seconds, monotonic */

#endif
