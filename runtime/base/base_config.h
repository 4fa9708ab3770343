/*
 * base_config.h - the DSM_* environment, parsed and validated once.
 * Layer: base.  dsm_config_load is called at start-up (not thread-safe);
 * dsm_config() may then be read from anywhere, the fault handler included.
 * Every variable is documented with its default in doc/usage.md.
 */
#ifndef BASE_CONFIG_H
#define BASE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"

typedef enum dsm_stats_mode {
    DSM_STATS_OFF = 0,
    DSM_STATS_TEXT,
    DSM_STATS_JSON,
} dsm_stats_mode_t;

typedef enum dsm_report_mode {
    DSM_REPORT_AUTO = 0,           /* with DSM_STATS=1, when the protocol
                                      takes a noticeable share of the run */
    DSM_REPORT_SHARING,            /* always */
    DSM_REPORT_OFF,
} dsm_report_mode_t;

typedef enum dsm_ucx_err_mode {
    DSM_UCX_ERR_AUTO = 0,          /* peer mode only towards other hosts */
    DSM_UCX_ERR_PEER,
    DSM_UCX_ERR_NONE,
} dsm_ucx_err_mode_t;

#define DSM_TOKEN_MAX 128
#define DSM_HOST_MAX 256

typedef struct dsm_config {
    int rank;                      /* DSM_RANK, default 0 */
    int size;                      /* DSM_SIZE, default 1 */
    int threads;                   /* DSM_THREADS, default 1 */
    char rendezvous_host[DSM_HOST_MAX]; /* DSM_RENDEZVOUS host part */
    uint16_t rendezvous_port;      /* DSM_RENDEZVOUS port part */
    int rendezvous_fd;             /* DSM_RENDEZVOUS_FD: listening socket, -1 */
    char token[DSM_TOKEN_MAX];     /* DSM_TOKEN, or read from DSM_TOKEN_FILE */
    uintptr_t region_base;         /* DSM_REGION_BASE */
    size_t region_size;            /* DSM_REGION_SIZE */
    size_t stack_size;             /* DSM_STACK_SIZE: sharable main stack */
    dsm_stats_mode_t stats;        /* DSM_STATS: 0, 1, json */
    char stats_file[256];          /* DSM_STATS_FILE, "" = stderr/stdout */
    dsm_report_mode_t report;      /* DSM_REPORT: auto, sharing, off */
    unsigned timeout_ms;           /* DSM_TIMEOUT in seconds, stored in ms */
    int progress_thread;           /* DSM_PROGRESS_THREAD: 1 */
    int progress_realtime;         /* DSM_PROGRESS_REALTIME: 0 */
    int activity_fd;               /* DSM_ACTIVITY_FD: dsmrun's board, -1 */
    dsm_ucx_err_mode_t ucx_err_mode; /* DSM_UCX_ERR_MODE: auto */
    int migrate_after;             /* DSM_MIGRATE_AFTER: barrier epochs, 0 off */
    int same_host_map;             /* DSM_SAME_HOST_MAP: 1 */
    int same_host_lanes;           /* DSM_SAME_HOST_LANES: 1 */
    int lane_membarrier;           /* DSM_LANE_MEMBARRIER: 1 */
    int direct_read;               /* DSM_DIRECT_READ: 1 */
    int prefetch;                  /* DSM_PREFETCH: 1 */
    int named_lock_hash_bits;      /* DSM_NAMED_LOCK_HASH_BITS: 64 (testing) */
    unsigned named_locks;          /* DSM_NAMED_LOCKS: per manager */
    int push_updates;              /* DSM_PUSH_UPDATES: 1 */
    int line_output;               /* DSM_LINE_OUTPUT: 1 */
} dsm_config_t;

#define DSM_DEFAULT_REGION_BASE ((uintptr_t)0x200000000000ull)
#define DSM_DEFAULT_REGION_SIZE ((size_t)16 << 30)
#define DSM_DEFAULT_STACK_SIZE  ((size_t)64 << 20)
#define DSM_DEFAULT_TIMEOUT_S   120u
#define DSM_DEFAULT_MIGRATE_AFTER 1
#define DSM_DEFAULT_NAMED_LOCKS 16384u

/* What dsmrun reads for multi-host jobs (doc/usage.md).  Empty strings
 * mean "not set". */
#define DSM_LAUNCH_TEXT_MAX 1024
typedef struct dsm_launcher_config {
    char ssh_command[DSM_LAUNCH_TEXT_MAX]; /* DSM_SSH: the remote shell */
    char interface[64];            /* DSM_INTERFACE: rendezvous interface */
    char pass_env[DSM_LAUNCH_TEXT_MAX]; /* DSM_PASS_ENV: names, commas */
    char hostfile[DSM_LAUNCH_TEXT_MAX]; /* DSM_HOSTFILE: default hostfile */
} dsm_launcher_config_t;

#define DSM_DEFAULT_SSH_COMMAND \
    "ssh -T -o BatchMode=yes -o ConnectTimeout=10"

/* dsmrun's variables; DSM_ERR_INVALID (logged) when one is too long. */
dsm_status_t dsm_launcher_config_load(dsm_launcher_config_t *out);

/* Parse the environment into the process-wide configuration. */
dsm_status_t dsm_config_load(void);
const dsm_config_t *dsm_config(void);

/* Parsing helpers shared with the launcher.  Each accepts the whole string
 * only (no trailing garbage), returns DSM_ERR_INVALID otherwise. */
dsm_status_t dsm_parse_size(const char *text, uint64_t *out); /* K/M/G/T */
dsm_status_t dsm_parse_int_range(const char *text, long min, long max,
                                 long *out);
dsm_status_t dsm_parse_hostport(const char *text, char *host, size_t hostlen,
                                uint16_t *port);

#endif
