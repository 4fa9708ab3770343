/*
 * launch_identity.c - job id and token from the kernel's random source.
 * Layer: launcher.  Entry points in launch_identity.h.  Start-up only.
 */
#include "launch_identity.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <unistd.h>

static dsm_status_t random_bytes(unsigned char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = getrandom(buf + done, len - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return DSM_ERR_IO;
        }
        done += (size_t)n;
    }
    return DSM_OK;
}

static void to_hex(const unsigned char *bytes, size_t len, char *text)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 0xf];
    }
    text[2 * len] = '\0';
}

dsm_status_t dsm_launch_make_job_id(char job_id[DSM_LAUNCH_JOB_ID_MAX])
{
    unsigned char salt[4];
    char salt_hex[2 * sizeof salt + 1];
    dsm_status_t status = random_bytes(salt, sizeof salt);
    if (status != DSM_OK)
        return status;
    to_hex(salt, sizeof salt, salt_hex);
    snprintf(job_id, DSM_LAUNCH_JOB_ID_MAX, "%ld.%s", (long)getpid(),
             salt_hex);
    return DSM_OK;
}

dsm_status_t dsm_launch_make_token(char token[DSM_LAUNCH_TOKEN_CHARS + 1])
{
    unsigned char secret[DSM_LAUNCH_TOKEN_BYTES];
    dsm_status_t status = random_bytes(secret, sizeof secret);
    if (status != DSM_OK)
        return status;
    to_hex(secret, sizeof secret, token);
    return DSM_OK;
}
