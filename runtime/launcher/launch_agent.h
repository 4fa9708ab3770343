/*
 * launch_agent.h - the node agent: the process dsmrun starts on a remote
 * host (over ssh or srun) as "dsmrun --node-agent", and its protocol.
 *
 * Layer: launcher.  Entry point: dsm_launch_agent_main, called from
 * dsmrun's main in agent mode.  The agent reads everything from its
 * standard input, so that nothing secret is on a command line:
 *
 *   dsmrun -> agent, NUL-terminated records, first byte the type:
 *     setup:  V<version> [r<rank>] n<size> t<threads> j<job id> k<token>
 *             [i<interface>] [h<host to route to>] H<host name> c<cwd>
 *             p<program path> a<arg>... e<NAME=VALUE>... .
 *     later:  R<host:port>   the rendezvous (the node starts)
 *             S<signal>      forward this signal to the node
 *             Q<nonce>       print the hang report of the node: what each
 *                            of its threads is doing (its board), one
 *                            "dsmrun: node R on host H thread T ..." line
 *                            each on the agent's stderr; then write
 *                            "dsmrun-agent reported <nonce>\n" to stdout
 *                            (16 hex digits; launch_marker.h), which
 *                            dsmrun takes out of the node's output
 *     end of file: dsmrun, its ssh or srun is gone: SIGKILL the node.
 *   agent -> dsmrun, one line on standard output before the program's:
 *     "dsmrun-agent rendezvous HOST:PORT" from rank 0 once it listens;
 *     "dsmrun-agent ready" from the others (ssh only; under srun the
 *     others say nothing, their output is merged with rank 0's).
 *
 * Without r, the rank is SLURM_PROCID.  The agent disables address-space
 * randomisation for the node, gives it exactly the received environment
 * plus the variables of a local node (launch_env.c), so every node's
 * initial stack has the same layout, and, unless received,
 * UCX_NET_DEVICES: the interface towards node 0's rendezvous address on
 * this host (launch_ucxnet.h).  It keeps an activity board for its node
 * (launch_activity.h) and exits with the node's status (128+N when it
 * was killed by signal N), after naming a failed node and what it was
 * doing.
 */
#ifndef LAUNCH_AGENT_H
#define LAUNCH_AGENT_H

#define DSM_AGENT_VERSION "2"
#define DSM_AGENT_LINE_RENDEZVOUS "dsmrun-agent rendezvous "
#define DSM_AGENT_LINE_READY "dsmrun-agent ready"
#define DSM_AGENT_LINE_PREFIX "dsmrun-agent "

enum {
    DSM_AGENT_REC_VERSION = 'V',
    DSM_AGENT_REC_RANK = 'r',
    DSM_AGENT_REC_SIZE = 'n',
    DSM_AGENT_REC_THREADS = 't',
    DSM_AGENT_REC_JOB = 'j',
    DSM_AGENT_REC_TOKEN = 'k',
    DSM_AGENT_REC_INTERFACE = 'i',
    DSM_AGENT_REC_ROUTE = 'h',
    DSM_AGENT_REC_HOST = 'H',
    DSM_AGENT_REC_CWD = 'c',
    DSM_AGENT_REC_PROGRAM = 'p',
    DSM_AGENT_REC_ARG = 'a',
    DSM_AGENT_REC_ENV = 'e',
    DSM_AGENT_REC_END = '.',
    DSM_AGENT_REC_RENDEZVOUS = 'R',
    DSM_AGENT_REC_SIGNAL = 'S',
    DSM_AGENT_REC_REPORT = 'Q',
};

/* Runs the agent; returns the exit status. */
int dsm_launch_agent_main(void);

#endif
