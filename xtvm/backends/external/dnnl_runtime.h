/* xtvm's oneDNN runtime: runs the JSON subgraph emitted by xtvm/backends/external/dnnl.py.
 *
 * A graph is parsed and its oneDNN primitives are created on the first call, then cached in
 * `*graph`; later calls only bind the input and output buffers and execute the primitives.
 * oneDNN fixes a primitive's thread count when it creates it, so a call under another OpenMP
 * thread count (omp_set_num_threads) builds and caches the graph once more for that count.
 * Inputs and outputs are dense row-major float32 buffers of the shapes the JSON gives.
 * Constants (weights) live in `weights` at the byte offsets the JSON gives.
 *
 * The functions are weak, so several translation units may each link a copy of this runtime.
 */
#ifndef XTVM_DNNL_RUNTIME_H
#define XTVM_DNNL_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xtvm_dnnl_graph xtvm_dnnl_graph;

/* Run the graph described by `json`; builds and caches it in `*graph` on the first call.
   Returns 0 on success, else -1 with the reason in xtvm_dnnl_last_error(). */
int xtvm_dnnl_run(xtvm_dnnl_graph **graph, const char *json, const void *weights,
                  void *const *inputs, int num_inputs, void *const *outputs, int num_outputs);

/* As xtvm_dnnl_run, but prints "xtvm dnnl runtime: <symbol>: <reason>" and aborts on failure:
   the C ABI of an external function returns nothing, so an error cannot be returned. */
void xtvm_dnnl_run_or_abort(const char *symbol, xtvm_dnnl_graph **graph, const char *json_text,
                            const void *weights, void *const *inputs, int num_inputs,
                            void *const *outputs, int num_outputs);

/* The reason of the calling thread's last failure ("" if none). */
const char *xtvm_dnnl_last_error(void);

/* Free the graphs built by xtvm_dnnl_run and reset `*graph` to NULL. */
void xtvm_dnnl_release(xtvm_dnnl_graph **graph);

#ifdef __cplusplus
}
#endif

#endif /* XTVM_DNNL_RUNTIME_H */
