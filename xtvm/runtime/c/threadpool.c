/* The thread pool that runs the parallel loops of compiled CPU kernels.

   `xtvm_parallel_for(body, data, lower, upper)` runs `body(data, begin, end)` over chunks of
   [lower, upper) on the calling thread and the pool's workers, and returns when every chunk
   is done. It is built for a machine other processes share:

   - The loop is cut into one slice per thread, each cut into chunks (about CHUNKS_PER_THREAD
     per slice) claimed from the slice's own counter. A thread runs its own slice first (the
     caller the first), then claims the chunks left in the others: when a core is taken by
     another process, the threads that run take over the chunks of the one that does not. On
     a quiet machine each thread runs the same iterations at every launch of a loop (with one
     shared counter, which thread got which chunk changed at every launch), so what it read
     or wrote there last time can still be in its core's cache when that fits, and claiming
     a chunk touches only the thread's own counter, not a line all threads take turns on.
   - The caller waits only for chunks that were claimed, never for a worker that has not woken
     up yet: a late worker finds the counters spent and goes back to waiting (a fork-join team
     such as libgomp's waits at its closing barrier for every thread, a whole time slice when
     one is descheduled).
   - Idle workers poll for a bounded time (SPIN_NS: the gap between two kernels of a graph),
     yielding their core between polls to anything else runnable on it (the caller, when the
     scheduler put the woken worker on the caller's core), then sleep on a futex; a launch
     wakes sleepers with one system call.
   - One launch at a time: a second thread launching meanwhile (or a parallel loop inside a
     parallel body) runs its loop serially.

   A library whose pool has started workers pins itself (never unloaded). The thread count is
   process-wide: `xtvm_set_num_threads` (the caller counts as one), by
   default `XTVM_NUM_THREADS`, else the cores this process may use. Workers start on the
   first launch that needs them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define CHUNKS_PER_THREAD 8
#define SPIN_NS 100000 /* 0.1 ms: about the Python gap between two kernels, many times over */

typedef void (*xtvm_chunk_fn)(void *data, int64_t begin, int64_t end);

/* One thread's share of a loop: [next, end) not yet claimed (its own cache line: every
   thread claims from its own slice at once). */
typedef struct {
  _Alignas(64) _Atomic int64_t next;
  _Atomic int64_t end;
} slice_t;

static struct {
  pthread_mutex_t launch; /* held by the thread launching a loop */
  /* The current job, written before `generation` is bumped. */
  _Atomic(xtvm_chunk_fn) body;
  _Atomic(void *) data;
  _Atomic int64_t chunk;
  _Atomic int team;          /* slices of the job: the threads it was cut for */
  slice_t slices[MAX_THREADS];
  _Alignas(64) _Atomic int64_t remaining; /* iterations not yet done */
  _Atomic int finished;      /* set once remaining is 0: late workers keep out */
  _Atomic int inside;        /* workers between joining a job and leaving it */
  _Atomic uint32_t generation; /* bumped per job; workers sleep on it */
  _Atomic int sleepers;
  _Atomic int wanted;  /* threads a job uses, the caller included */
  int started;         /* workers created so far (under `launch`) */
  pthread_t workers[MAX_THREADS];
} pool = {.launch = PTHREAD_MUTEX_INITIALIZER, .finished = 1, .wanted = 0};

static void futex_wait(_Atomic uint32_t *address, uint32_t value) {
  syscall(SYS_futex, (uint32_t *)address, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *address) {
  syscall(SYS_futex, (uint32_t *)address, FUTEX_WAKE_PRIVATE, MAX_THREADS, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Claim and run chunks of the current job until none is left: those of slice `own` first,
   then those left in the others. The iterations done are counted off `remaining` once at
   the end (the line the caller polls changes cores once per thread, not once per chunk). */
static void run_chunks(xtvm_chunk_fn body, void *data, int64_t chunk, int team, int own) {
  int64_t done = 0;
  for (int step = 0; step < team; step++) {
    slice_t *slice = &pool.slices[(own + step) % team];
    int64_t upper = atomic_load(&slice->end);
    for (;;) {
      int64_t begin = atomic_fetch_add(&slice->next, chunk);
      if (begin >= upper) break;
      int64_t end = begin + chunk < upper ? begin + chunk : upper;
      body(data, begin, end);
      done += end - begin;
    }
  }
  if (done) atomic_fetch_sub(&pool.remaining, done);
}

int32_t xtvm_get_num_threads(void);

static void *worker(void *arg) {
  int index = (int)(intptr_t)arg; /* workers 0 .. threads - 2 take part in a job */
  uint32_t seen = atomic_load(&pool.generation);
  for (;;) {
    /* Wait for a new job: spin a while, then sleep. */
    uint32_t current = atomic_load(&pool.generation);
    if (current == seen) {
      int64_t deadline = now_ns() + SPIN_NS;
      int polls = 0;
      while ((current = atomic_load(&pool.generation)) == seen) {
        cpu_relax();
        if (++polls % 16 != 0) continue;
        if (now_ns() > deadline) {
          atomic_fetch_add(&pool.sleepers, 1);
          futex_wait(&pool.generation, seen);
          atomic_fetch_sub(&pool.sleepers, 1);
          deadline = now_ns() + SPIN_NS;
        } else {
          /* Give the core to whatever else is runnable on it: the caller itself, when the
             scheduler put this worker on its core, or another process. */
          sched_yield();
        }
      }
    }
    seen = current;
    /* Join the job unless it is over (its caller may have returned: touch nothing of it). */
    if (index >= xtvm_get_num_threads() - 1) continue; /* the count went down since */
    atomic_fetch_add(&pool.inside, 1);
    if (!atomic_load(&pool.finished) && atomic_load(&pool.generation) == seen) {
      int team = atomic_load(&pool.team);
      run_chunks(atomic_load(&pool.body), atomic_load(&pool.data), atomic_load(&pool.chunk),
                 team, (index + 1) % team);
    }
    atomic_fetch_sub(&pool.inside, 1);
  }
  return NULL;
}

static int default_threads(void) {
  const char *text = getenv("XTVM_NUM_THREADS");
  if (text && *text) {
    long n = strtol(text, NULL, 10);
    if (n >= 1) return n < MAX_THREADS ? (int)n : MAX_THREADS;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n >= 1) return n < MAX_THREADS ? n : MAX_THREADS;
  }
  return 1;
}

void xtvm_set_num_threads(int32_t count) {
  if (count < 1) count = 1;
  if (count > MAX_THREADS) count = MAX_THREADS;
  atomic_store(&pool.wanted, count);
}

int32_t xtvm_get_num_threads(void) {
  int wanted = atomic_load(&pool.wanted);
  return wanted ? wanted : default_threads();
}

/* Once it has workers, this library must stay loaded (they run its code): it pins itself,
   so that a library that never started any can still be unloaded. (Stopping and joining the
   workers in a destructor deadlocks: dlclose holds the loader's lock that exiting threads
   take.) */
static void pin_library(void) {
  Dl_info info;
  if (dladdr((void *)pin_library, &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* A child process of fork() has none of the workers: it starts its own. */
static void after_fork_in_child(void) {
  pthread_mutex_init(&pool.launch, NULL);
  pool.started = 0;
  atomic_store(&pool.sleepers, 0);
  atomic_store(&pool.inside, 0);
  atomic_store(&pool.finished, 1);
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;
static void install_fork_handler(void) { pthread_atfork(NULL, NULL, after_fork_in_child); }

/* Run body over [lower, upper) in chunks on the pool and this thread. */
void xtvm_parallel_for(xtvm_chunk_fn body, void *data, int64_t lower, int64_t upper) {
  if (upper <= lower) return;
  int threads = xtvm_get_num_threads();
  if (threads <= 1 || upper - lower == 1 || pthread_mutex_trylock(&pool.launch) != 0) {
    body(data, lower, upper);
    return;
  }
  pthread_once(&fork_handler_once, install_fork_handler);
  if (pool.started == 0 && threads > 1) pin_library();
  while (pool.started < threads - 1) {
    void *index = (void *)(intptr_t)pool.started;
    if (pthread_create(&pool.workers[pool.started], NULL, worker, index) != 0) break;
    pool.started++;
  }
  int64_t total = upper - lower;
  int team = total < threads ? (int)total : threads;
  int64_t share = (total + team - 1) / team; /* iterations of the largest slice */
  int64_t chunk = (share + CHUNKS_PER_THREAD - 1) / CHUNKS_PER_THREAD;
  atomic_store(&pool.body, body);
  atomic_store(&pool.data, data);
  atomic_store(&pool.chunk, chunk);
  atomic_store(&pool.team, team);
  for (int t = 0; t < team; t++) { /* slice t: [lower + t total / team, ...) */
    atomic_store(&pool.slices[t].next, lower + total / team * t + total % team * t / team);
    atomic_store(&pool.slices[t].end,
                 lower + total / team * (t + 1) + total % team * (t + 1) / team);
  }
  atomic_store(&pool.remaining, total);
  atomic_store(&pool.finished, 0);
  atomic_fetch_add(&pool.generation, 1);
  if (atomic_load(&pool.sleepers)) futex_wake_all(&pool.generation);
  run_chunks(body, data, chunk, team, 0);
  /* Wait for the chunks others claimed (a preempted worker gets the core back sooner when
     this thread yields after a while). */
  for (int polls = 0; atomic_load(&pool.remaining) > 0; polls++) {
    if (polls < 4096)
      cpu_relax();
    else
      sched_yield();
  }
  atomic_store(&pool.finished, 1);
  /* Workers that joined before `finished` may still read the job: wait them out (a few
     instructions, unless one is preempted right there). */
  while (atomic_load(&pool.inside) > 0) sched_yield();
  pthread_mutex_unlock(&pool.launch);
}
