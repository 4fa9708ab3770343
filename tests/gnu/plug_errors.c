/* plug_errors.c - atomics the runtime cannot make atomic across nodes
 * must not compile silently: a 16-byte __sync builtin on possibly
 * sharable memory is an error of dsm's GCC plug-in.  The gnu suite
 * (check_gimple.sh --expect-error).
 * CHECK: error: dsm-atomic: a 16-byte {{.*}}__sync{{.*}} builtin on possibly sharable memory
 */
__int128 wide;

__int128 legacy_wide(void) { return __sync_fetch_and_add(&wide, 1); }
