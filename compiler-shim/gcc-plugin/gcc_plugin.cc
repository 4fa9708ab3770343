/*
 * gcc_plugin.cc - entry of dsm's GCC plug-in: dsmgcc and dsmfort load it
 * into every compilation (-fplugin=dsm_gcc_plugin.so).  It registers the
 * dsm-atomic GIMPLE pass (gcc_atomic.cc) at two places of the pipeline,
 * before "fab" and before "optimized" (see gcc_plugin.h).
 *
 * Layer: compiler-shim (runs inside gcc).  Entry point: plugin_init.
 *
 * gcc loads only plug-ins that declare plugin_is_GPL_compatible; dsmomp is
 * MIT-licensed, which is compatible with the GPL.
 */
#include "gcc_plugin.h"


__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

static struct plugin_info dsm_plugin_info = {
    "0.1",
    "dsmomp: atomics on sharable memory become runtime calls, flush becomes "
    "a DSM flush, region data blocks carry their size",
};

__attribute__((visibility("default"))) int
plugin_init(struct plugin_name_args *info,
            struct plugin_gcc_version *version)
{
    /* The pass works on gcc's internal representation: the plug-in must be
     * built against the gcc that loads it. */
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("dsm plug-in: built for gcc %s, loaded by gcc %s",
              gcc_version.basever, version->basever);
        return 1;
    }
    register_callback(info->base_name, PLUGIN_INFO, NULL, &dsm_plugin_info);

    static const char *const before[] = {"fab", "optimized"};
    for (const char *reference : before) {
        struct register_pass_info pass;
        pass.pass = dsm_gcc::make_atomic_pass(g);
        pass.reference_pass_name = reference;
        pass.ref_pass_instance_number = 1;
        pass.pos_op = PASS_POS_INSERT_BEFORE;
        register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL,
                          &pass);
    }
    return 0;
}
