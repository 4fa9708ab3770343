/*
 * epcc_main.c - the common body of syncbench, schedbench and mpibench:
 * options, delay calibration, "#" header lines naming the runtime, layout,
 * parameters and wait policy, then one row per selected test.
 *
 * Layer: bench (libc only).  Entry point: epcc_main_run.  Main thread only.
 */
#include <stdlib.h>

#include "epcc_delay.h"
#include "epcc_main.h"

int epcc_main_run(const epcc_program_t *p, int argc, char *argv[])
{
    epcc_options_t options;
    if (epcc_options_parse(argc, argv, p->names, p->count, stderr,
                           &options) != DSM_OK) {
        if (p->print)
            epcc_options_usage(stderr, argv[0], p->names, p->count);
        return 2;
    }
    unsigned long delay_iterations;
    if (epcc_delay_calibrate(options.delay_us, &delay_iterations) != DSM_OK)
        return 2;
    /* Every MPI rank must spin alike: rank 0's count wins. */
    if (p->agree)
        delay_iterations = (unsigned long)p->agree((double)delay_iterations);

    const char *policy = getenv("OMP_WAIT_POLICY");
    if (p->print) {
        printf("# %s runtime=%s workers=%d outer_reps=%u test_time_us=%g "
               "delay_us=%g delay_iterations=%lu OMP_WAIT_POLICY=%s\n",
               p->benchmark, p->runtime, p->workers, options.outer_reps,
               options.test_time_us, options.delay_us, delay_iterations,
               policy && *policy ? policy : "(unset)");
        epcc_print_header(stdout);
    }
    for (size_t i = 0; i < p->count; i++) {
        if (!epcc_options_selected(&options, i))
            continue;
        epcc_test_t test;
        epcc_result_t result;
        p->prepare(i, delay_iterations, &test);
        dsm_status_t st = epcc_measure(&options, &test, p->agree, &result);
        if (st != DSM_OK) {
            fprintf(stderr, "%s: %s failed (status %d)\n", p->benchmark,
                    p->names[i], (int)st);
            return 1;
        }
        if (p->print)
            epcc_print_row(stdout, p->names[i], &result);
    }
    return 0;
}
