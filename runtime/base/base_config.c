/*
 * base_config.c - reads and validates the DSM_* environment.
 * Layer: base.  Start-up only; errors are reported with the variable's name.
 */
#include "base_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_log.h"

static dsm_config_t config;

const dsm_config_t *dsm_config(void) { return &config; }

dsm_status_t dsm_parse_size(const char *text, uint64_t *out)
{
    if (!text || !*text || *text == '-')
        return DSM_ERR_INVALID;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text)
        return DSM_ERR_INVALID;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return DSM_ERR_INVALID;
    }
    if (*end || (shift && v > (~0ull >> shift)))
        return DSM_ERR_INVALID;
    *out = v << shift;
    return DSM_OK;
}

dsm_status_t dsm_parse_int_range(const char *text, long min, long max,
                                 long *out)
{
    if (!text || !*text || isspace((unsigned char)*text))
        return DSM_ERR_INVALID;
    errno = 0;
    char *end;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return DSM_ERR_INVALID;
    *out = v;
    return DSM_OK;
}

dsm_status_t dsm_parse_hostport(const char *text, char *host, size_t hostlen,
                                uint16_t *port)
{
    const char *colon = text ? strrchr(text, ':') : NULL;
    if (!colon || colon == text || (size_t)(colon - text) >= hostlen)
        return DSM_ERR_INVALID;
    long p;
    if (dsm_parse_int_range(colon + 1, 1, 65535, &p) != DSM_OK)
        return DSM_ERR_INVALID;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    *port = (uint16_t)p;
    return DSM_OK;
}

static dsm_status_t env_int(const char *name, long min, long max, long dflt,
                            long *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return DSM_OK;
    }
    if (dsm_parse_int_range(v, min, max, out) != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected an integer in [%ld, %ld]",
                name, v, min, max);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

static dsm_status_t env_size(const char *name, uint64_t dflt, uint64_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return DSM_OK;
    }
    if (dsm_parse_size(v, out) != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected a size (number with optional "
                "K, M, G or T suffix)", name, v);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

static dsm_status_t load_token(void)
{
    const char *tok = getenv("DSM_TOKEN");
    const char *file = getenv("DSM_TOKEN_FILE");
    config.token[0] = '\0';
    if (tok && *tok) {
        if (strlen(tok) >= sizeof config.token) {
            dsm_log(DSM_LOG_ERROR, "DSM_TOKEN is longer than %d characters",
                    DSM_TOKEN_MAX - 1);
            return DSM_ERR_INVALID;
        }
        strcpy(config.token, tok);
        return DSM_OK;
    }
    if (file && *file) {
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            dsm_log(DSM_LOG_ERROR, "DSM_TOKEN_FILE=%s: %s", file,
                    strerror(errno));
            return DSM_ERR_INVALID;
        }
        /* a secret others can read is no secret: refuse it */
        struct stat st;
        if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
            (st.st_mode & 077) != 0) {
            dsm_log(DSM_LOG_ERROR, "DSM_TOKEN_FILE=%s must belong to this "
                    "user and be readable by its owner only (chmod 600)",
                    file);
            close(fd);
            return DSM_ERR_INVALID;
        }
        ssize_t n = read(fd, config.token, sizeof config.token - 1);
        close(fd);
        if (n < 0)
            return DSM_ERR_IO;
        while (n > 0 && isspace((unsigned char)config.token[n - 1]))
            n--;
        config.token[n] = '\0';
    }
    return DSM_OK;
}

dsm_status_t dsm_config_load(void)
{
    long v;
    uint64_t u;
    const char *s;

    memset(&config, 0, sizeof config);
    s = getenv("DSM_LOG_LEVEL");
    if (s && *s) {
        static const char *const names[] = {"error", "warn", "info", "debug"};
        int found = 0;
        for (int i = 0; i < 4; i++)
            if (!strcmp(s, names[i])) {
                dsm_log_set_level((dsm_log_level_t)i);
                found = 1;
            }
        if (!found) {
            dsm_log(DSM_LOG_ERROR, "DSM_LOG_LEVEL=%s: expected error, warn, "
                    "info or debug", s);
            return DSM_ERR_INVALID;
        }
    }

    if (env_int("DSM_SIZE", 1, 4096, 1, &v)) return DSM_ERR_INVALID;
    config.size = (int)v;
    if (env_int("DSM_RANK", 0, config.size - 1, 0, &v)) return DSM_ERR_INVALID;
    config.rank = (int)v;
    dsm_log_set_rank(config.rank);
    if (env_int("DSM_THREADS", 1, 1024, 1, &v)) return DSM_ERR_INVALID;
    config.threads = (int)v;
    if (env_int("DSM_RENDEZVOUS_FD", -1, 65535, -1, &v)) return DSM_ERR_INVALID;
    config.rendezvous_fd = (int)v;
    if (env_int("DSM_TIMEOUT", 1, 86400, DSM_DEFAULT_TIMEOUT_S, &v))
        return DSM_ERR_INVALID;
    config.timeout_ms = (unsigned)v * 1000u;
    if (env_int("DSM_PROGRESS_THREAD", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.progress_thread = (int)v;
    if (env_int("DSM_PROGRESS_REALTIME", 0, 1, 0, &v)) return DSM_ERR_INVALID;
    config.progress_realtime = (int)v;
    if (env_int("DSM_ACTIVITY_FD", -1, 65535, -1, &v)) return DSM_ERR_INVALID;
    config.activity_fd = (int)v;
    if (env_int("DSM_MIGRATE_AFTER", 0, 255, DSM_DEFAULT_MIGRATE_AFTER, &v))
        return DSM_ERR_INVALID;
    config.migrate_after = (int)v;
    if (env_int("DSM_SAME_HOST_MAP", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.same_host_map = (int)v;
    if (env_int("DSM_SAME_HOST_LANES", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.same_host_lanes = (int)v;
    if (env_int("DSM_LANE_MEMBARRIER", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.lane_membarrier = (int)v;
    if (env_int("DSM_DIRECT_READ", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.direct_read = (int)v;
    if (env_int("DSM_PREFETCH", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.prefetch = (int)v;
    if (env_int("DSM_NAMED_LOCK_HASH_BITS", 0, 64, 64, &v))
        return DSM_ERR_INVALID;
    config.named_lock_hash_bits = (int)v;
    if (env_int("DSM_NAMED_LOCKS", 1, 1L << 22, DSM_DEFAULT_NAMED_LOCKS, &v))
        return DSM_ERR_INVALID;
    config.named_locks = (unsigned)v;
    if (env_int("DSM_PUSH_UPDATES", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.push_updates = (int)v;
    if (env_int("DSM_LINE_OUTPUT", 0, 1, 1, &v)) return DSM_ERR_INVALID;
    config.line_output = (int)v;

    s = getenv("DSM_RENDEZVOUS");
    if (s && *s) {
        if (dsm_parse_hostport(s, config.rendezvous_host,
                               sizeof config.rendezvous_host,
                               &config.rendezvous_port) != DSM_OK) {
            dsm_log(DSM_LOG_ERROR, "DSM_RENDEZVOUS=%s: expected HOST:PORT", s);
            return DSM_ERR_INVALID;
        }
    } else if (config.size > 1) {
        dsm_log(DSM_LOG_ERROR, "DSM_SIZE=%d but DSM_RENDEZVOUS is not set: "
                "start multi-node jobs with dsmrun", config.size);
        return DSM_ERR_INVALID;
    }
    if (load_token() != DSM_OK)
        return DSM_ERR_INVALID;
    if (config.size > 1 && !config.token[0]) {
        dsm_log(DSM_LOG_ERROR, "no job token (DSM_TOKEN or DSM_TOKEN_FILE): "
                "start multi-node jobs with dsmrun");
        return DSM_ERR_INVALID;
    }

    if (env_size("DSM_REGION_BASE", DSM_DEFAULT_REGION_BASE, &u))
        return DSM_ERR_INVALID;
    config.region_base = (uintptr_t)u;
    if (env_size("DSM_REGION_SIZE", DSM_DEFAULT_REGION_SIZE, &u))
        return DSM_ERR_INVALID;
    config.region_size = (size_t)u;
    if (env_size("DSM_STACK_SIZE", DSM_DEFAULT_STACK_SIZE, &u))
        return DSM_ERR_INVALID;
    config.stack_size = (size_t)u;

    s = getenv("DSM_UCX_ERR_MODE");
    if (!s || !*s || !strcmp(s, "auto"))
        config.ucx_err_mode = DSM_UCX_ERR_AUTO;
    else if (!strcmp(s, "peer"))
        config.ucx_err_mode = DSM_UCX_ERR_PEER;
    else if (!strcmp(s, "none"))
        config.ucx_err_mode = DSM_UCX_ERR_NONE;
    else {
        dsm_log(DSM_LOG_ERROR, "DSM_UCX_ERR_MODE=%s: expected auto, peer or "
                "none", s);
        return DSM_ERR_INVALID;
    }

    s = getenv("DSM_STATS");
    if (!s || !*s || !strcmp(s, "0"))
        config.stats = DSM_STATS_OFF;
    else if (!strcmp(s, "1"))
        config.stats = DSM_STATS_TEXT;
    else if (!strcmp(s, "json"))
        config.stats = DSM_STATS_JSON;
    else {
        dsm_log(DSM_LOG_ERROR, "DSM_STATS=%s: expected 0, 1 or json", s);
        return DSM_ERR_INVALID;
    }
    s = getenv("DSM_STATS_FILE");
    if (s && *s) {
        if (strlen(s) >= sizeof config.stats_file) {
            dsm_log(DSM_LOG_ERROR, "DSM_STATS_FILE is too long");
            return DSM_ERR_INVALID;
        }
        strcpy(config.stats_file, s);
    }
    s = getenv("DSM_REPORT");
    if (!s || !*s || !strcmp(s, "auto"))
        config.report = DSM_REPORT_AUTO;
    else if (!strcmp(s, "sharing"))
        config.report = DSM_REPORT_SHARING;
    else if (!strcmp(s, "off") || !strcmp(s, "0"))
        config.report = DSM_REPORT_OFF;
    else {
        dsm_log(DSM_LOG_ERROR, "DSM_REPORT=%s: expected auto, sharing or off",
                s);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

static dsm_status_t env_text(const char *name, const char *dflt, char *out,
                             size_t len)
{
    const char *v = getenv(name);
    if (!v || !*v)
        v = dflt;
    if (strlen(v) >= len) {
        dsm_log(DSM_LOG_ERROR, "%s is longer than %zu characters", name,
                len - 1);
        return DSM_ERR_INVALID;
    }
    strcpy(out, v);
    return DSM_OK;
}

dsm_status_t dsm_launcher_config_load(dsm_launcher_config_t *out)
{
    dsm_launcher_config_t c;
    memset(&c, 0, sizeof c);
    if (env_text("DSM_SSH", DSM_DEFAULT_SSH_COMMAND, c.ssh_command,
                 sizeof c.ssh_command) != DSM_OK ||
        env_text("DSM_INTERFACE", "", c.interface, sizeof c.interface) !=
            DSM_OK ||
        env_text("DSM_PASS_ENV", "", c.pass_env, sizeof c.pass_env) !=
            DSM_OK ||
        env_text("DSM_HOSTFILE", "", c.hostfile, sizeof c.hostfile) != DSM_OK)
        return DSM_ERR_INVALID;
    *out = c;
    return DSM_OK;
}
