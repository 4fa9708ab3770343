/*
 * launch_report.h - dsmrun's messages to the user.
 *
 * Layer: launcher.  Entry point: dsm_launch_say.  Every message is one line
 * on stderr that starts with "dsmrun: ", written with a single write(2) so
 * that output of concurrently running nodes cannot split it.  Uses
 * vsnprintf: never call it in a child between fork and exec.
 */
#ifndef LAUNCH_REPORT_H
#define LAUNCH_REPORT_H

void dsm_launch_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
