/*
 * shim_cxx_sync.c - the C++ library's mutexes across nodes.
 *
 * std::mutex, std::recursive_mutex, std::timed_mutex (and lock_guard,
 * unique_lock, scoped_lock over them) and std::shared_mutex are pthread
 * mutexes and rwlocks, locked by inline code in the program's objects, so
 * dsmc++ links with -Wl,--wrap for the pthread calls below (and for
 * std::condition_variable::wait, which libstdc++ has out of line) and
 * the program's calls come here.  A pthread mutex is atomic within one node
 * only: two nodes would both enter.  While a job of several nodes runs,
 * a mutex or rwlock in sharable memory is therefore a cluster lock named
 * by its address (fj_named_lock, as a critical section), whose acquire
 * and release also carry the data it protects between nodes; the
 * pthread object itself is not used.  Readers of a shared_mutex exclude
 * each other too (correct, not concurrent).  A condition variable cannot
 * wait on such a mutex: waiting on sharable memory in a job of several
 * nodes ends the job naming std::condition_variable, and so does a timed
 * wait for a mutex another thread holds.  Everything else
 * (before and after the job, one-node jobs, private memory) is libc's.
 *
 * Layer: compiler-shim.  Entry points __wrap_pthread_mutex_lock, _trylock,
 * _timedlock, _clocklock, _unlock, __wrap_pthread_rwlock_rdlock, _wrlock,
 * _tryrdlock, _trywrlock, _unlock, __wrap_pthread_cond_wait, _timedwait,
 * _clockwait, and the wrapper of std::condition_variable::wait: any
 * application thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_cxx.h"

SHIM_EXPORT int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
SHIM_EXPORT int __wrap_pthread_mutex_trylock(pthread_mutex_t *m);
SHIM_EXPORT int __wrap_pthread_mutex_timedlock(pthread_mutex_t *m,
                                               const struct timespec *t);
SHIM_EXPORT int __wrap_pthread_mutex_clocklock(pthread_mutex_t *m,
                                               clockid_t clock,
                                               const struct timespec *t);
SHIM_EXPORT int __wrap_pthread_mutex_unlock(pthread_mutex_t *m);
SHIM_EXPORT int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t *l);
SHIM_EXPORT int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t *l);
SHIM_EXPORT int __wrap_pthread_rwlock_tryrdlock(pthread_rwlock_t *l);
SHIM_EXPORT int __wrap_pthread_rwlock_trywrlock(pthread_rwlock_t *l);
SHIM_EXPORT int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l);
SHIM_EXPORT int __wrap_pthread_cond_wait(pthread_cond_t *c,
                                         pthread_mutex_t *m);
SHIM_EXPORT int __wrap_pthread_cond_timedwait(pthread_cond_t *c,
                                              pthread_mutex_t *m,
                                              const struct timespec *t);
SHIM_EXPORT int __wrap_pthread_cond_clockwait(pthread_cond_t *c,
                                              pthread_mutex_t *m,
                                              clockid_t clock,
                                              const struct timespec *t);

static const char mutex_what[] = "std::mutex (pthread_mutex) across nodes";
static const char rwlock_what[] = "std::shared_mutex (pthread_rwlock) "
                                  "across nodes";

static int across_nodes(const void *object)
{
    return fj_started() && fj_heap_open() && dsm_num_nodes() > 1 &&
           dsm_is_sharable(object);
}

/* The C (or C++) library's function of that name: the program's
 * references are wrapped, the process's definition is the library's. */
static void *library_fn(const char *name)
{
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (!fn)
        dsm_fatal("cannot find %s in the C or C++ library", name);
    return fn;
}

#define LIBC(type, name)                                                      \
    static type name##_fn;                                                    \
    if (!name##_fn)                                                           \
        name##_fn = (type)library_fn(#name)

typedef int (*one_arg_t)(void *);

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    if (across_nodes(m)) {
        fj_named_lock(m, mutex_what);
        return 0;
    }
    LIBC(one_arg_t, pthread_mutex_lock);
    return pthread_mutex_lock_fn(m);
}

int __wrap_pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (across_nodes(m))
        return fj_named_trylock(m, mutex_what) ? 0 : EBUSY;
    LIBC(one_arg_t, pthread_mutex_trylock);
    return pthread_mutex_trylock_fn(m);
}

/* A deadline across nodes: the lock is granted in turn; waiting for it
 * until a deadline would need a cancellable request. */
static int timed_across_nodes(pthread_mutex_t *m)
{
    if (fj_named_trylock(m, mutex_what))
        return 0;
    dsm_fatal("std::timed_mutex::try_lock_for/until (pthread_mutex_"
              "timedlock) on a mutex another thread holds is not "
              "supported across nodes: use lock() or try_lock()");
}

int __wrap_pthread_mutex_timedlock(pthread_mutex_t *m,
                                   const struct timespec *t)
{
    if (across_nodes(m))
        return timed_across_nodes(m);
    typedef int (*timed_t)(pthread_mutex_t *, const struct timespec *);
    LIBC(timed_t, pthread_mutex_timedlock);
    return pthread_mutex_timedlock_fn(m, t);
}

int __wrap_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                   const struct timespec *t)
{
    if (across_nodes(m))
        return timed_across_nodes(m);
    typedef int (*clock_t_)(pthread_mutex_t *, clockid_t,
                            const struct timespec *);
    LIBC(clock_t_, pthread_mutex_clocklock);
    return pthread_mutex_clocklock_fn(m, clock, t);
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
    if (across_nodes(m)) {
        fj_named_unlock(m, mutex_what);
        return 0;
    }
    LIBC(one_arg_t, pthread_mutex_unlock);
    return pthread_mutex_unlock_fn(m);
}

int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    if (across_nodes(l)) {
        fj_named_lock(l, rwlock_what);
        return 0;
    }
    LIBC(one_arg_t, pthread_rwlock_rdlock);
    return pthread_rwlock_rdlock_fn(l);
}

int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    if (across_nodes(l)) {
        fj_named_lock(l, rwlock_what);
        return 0;
    }
    LIBC(one_arg_t, pthread_rwlock_wrlock);
    return pthread_rwlock_wrlock_fn(l);
}

int __wrap_pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
    if (across_nodes(l))
        return fj_named_trylock(l, rwlock_what) ? 0 : EBUSY;
    LIBC(one_arg_t, pthread_rwlock_tryrdlock);
    return pthread_rwlock_tryrdlock_fn(l);
}

int __wrap_pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
    if (across_nodes(l))
        return fj_named_trylock(l, rwlock_what) ? 0 : EBUSY;
    LIBC(one_arg_t, pthread_rwlock_trywrlock);
    return pthread_rwlock_trywrlock_fn(l);
}

int __wrap_pthread_rwlock_unlock(pthread_rwlock_t *l)
{
    if (across_nodes(l)) {
        fj_named_unlock(l, rwlock_what);
        return 0;
    }
    LIBC(one_arg_t, pthread_rwlock_unlock);
    return pthread_rwlock_unlock_fn(l);
}

__attribute__((noreturn)) static void no_condition_variables(const void *c)
{
    dsm_fatal("std::condition_variable (pthread_cond_wait) on shared "
              "memory at %p is not supported in a job of several nodes: "
              "wait with OpenMP constructs (barrier, locks, atomics)", c);
}

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (across_nodes(c) || across_nodes(m))
        no_condition_variables(c);
    typedef int (*wait_t)(pthread_cond_t *, pthread_mutex_t *);
    LIBC(wait_t, pthread_cond_wait);
    return pthread_cond_wait_fn(c, m);
}

int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *t)
{
    if (across_nodes(c) || across_nodes(m))
        no_condition_variables(c);
    typedef int (*wait_t)(pthread_cond_t *, pthread_mutex_t *,
                          const struct timespec *);
    LIBC(wait_t, pthread_cond_timedwait);
    return pthread_cond_timedwait_fn(c, m, t);
}

int __wrap_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  clockid_t clock, const struct timespec *t)
{
    if (across_nodes(c) || across_nodes(m))
        no_condition_variables(c);
    typedef int (*wait_t)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                          const struct timespec *);
    LIBC(wait_t, pthread_cond_clockwait);
    return pthread_cond_clockwait_fn(c, m, clock, t);
}

/* std::condition_variable::wait(std::unique_lock<std::mutex> &), out of
 * line in libstdc++ (its pthread_cond_wait is not the program's call). */
#define CV_WAIT _ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE
#define WRAP_(name) __wrap_##name
#define WRAP(name) WRAP_(name)
#define NAME_(name) #name
#define NAME(name) NAME_(name)

struct unique_lock_layout {      /* std::unique_lock<std::mutex> */
    pthread_mutex_t *mutex;
    _Bool owns;
};

SHIM_EXPORT void WRAP(CV_WAIT)(void *cv, struct unique_lock_layout *lock);

void WRAP(CV_WAIT)(void *cv, struct unique_lock_layout *lock)
{
    if (across_nodes(cv) || (lock && across_nodes(lock->mutex)))
        no_condition_variables(cv);
    typedef void (*cv_wait_t)(void *, struct unique_lock_layout *);
    static cv_wait_t real;
    if (!real)
        real = (cv_wait_t)library_fn(NAME(CV_WAIT));
    real(cv, lock);
}
