/*
 * fj_altstack.c - page faults taken on a sharable stack are handled on a
 * private alternate signal stack.
 *
 * Team threads run on sharable stacks.  Once another node has read a page
 * of such a stack, the protocol write-protects it at every release, and
 * the owner's next write to it faults.  Without an alternate stack the
 * kernel pushes the signal frame just below the stack pointer - often on
 * that same write-protected page - fails, and kills the process.  So every
 * runtime thread gets its own alternate stack (the sys layer installs the
 * SIGSEGV action with SA_ONSTACK).
 *
 * Layer: forkjoin.  fj_altstack_thread: each runtime thread, before it
 * first runs on a sharable stack.
 */
#include <signal.h>
#include <sys/mman.h>

#include "base_log.h"
#include "fj_internal.h"

/* The fault handler may progress the transport (UCX) on this stack. */
#define ALTSTACK_BYTES ((size_t)1 << 20)

dsm_status_t fj_altstack_thread(void)
{
    void *base = mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                      -1, 0);
    if (base == MAP_FAILED)
        return DSM_ERR_NOMEM;
    stack_t ss = {.ss_sp = base, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(base, ALTSTACK_BYTES);
        return DSM_ERR_IO;
    }
    return DSM_OK;
}
