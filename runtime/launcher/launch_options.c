/*
 * launch_options.c - parses dsmrun's command line; holds the help text.
 *
 * Layer: launcher.  Entry points in launch_options.h.  Start-up only.
 * getopt_long runs in "+" mode: the first non-option word is the program,
 * and everything after it belongs to the program.
 */
#include "launch_options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "launch_report.h"

#ifndef DSM_VERSION
#error "DSM_VERSION must be defined by the build"
#endif

enum {
    OPT_KILL_GRACE = 256,
    OPT_HOSTS,
    OPT_HOSTFILE,
    OPT_SSH,
    OPT_INTERFACE,
    OPT_LOCAL,
    OPT_NODE_AGENT,
    OPT_TIMEOUT,
};

static dsm_launcher_config_t launcher_config;   /* strings outlive parse */

static const struct option long_options[] = {
    {"nodes",      required_argument, NULL, 'n'},
    {"threads",    required_argument, NULL, 't'},
    {"kill-grace", required_argument, NULL, OPT_KILL_GRACE},
    {"timeout",    required_argument, NULL, OPT_TIMEOUT},
    {"hosts",      required_argument, NULL, OPT_HOSTS},
    {"hostfile",   required_argument, NULL, OPT_HOSTFILE},
    {"ssh",        required_argument, NULL, OPT_SSH},
    {"interface",  required_argument, NULL, OPT_INTERFACE},
    {"env",        required_argument, NULL, 'x'},
    {"local",      no_argument,       NULL, OPT_LOCAL},
    {"node-agent", no_argument,       NULL, OPT_NODE_AGENT},
    {"verbose",    no_argument,       NULL, 'v'},
    {"help",       no_argument,       NULL, 'h'},
    {"version",    no_argument,       NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* "+": stop at the program name; ":": report a missing value as ':'. */
static const char short_options[] = "+:n:t:x:vhV";

void dsm_launch_print_help(FILE *stream)
{
    fprintf(stream,
"Usage: dsmrun [OPTIONS] PROGRAM [ARGUMENTS...]\n"
"\n"
"Start PROGRAM as the nodes of one dsmomp job: on this machine, on the hosts\n"
"of --hosts or --hostfile (over ssh), or inside a Slurm allocation (srun).\n"
"Every node runs with address-space randomisation off, so code and data have\n"
"the same addresses on every node.  Options after PROGRAM belong to PROGRAM.\n"
"\n"
"Options:\n"
"  -n, --nodes N           number of nodes to start, 1 to %d (default 1)\n"
"  -t, --threads T         threads per node, 1 to %d (default 1); passed to\n"
"                          the nodes as DSM_THREADS\n"
"      --kill-grace SECS   after a failure or a forwarded signal, wait SECS\n"
"                          seconds (0 to %d) before sending SIGKILL to\n"
"                          the job (default: DSM_KILL_GRACE, else %d)\n"
"      --timeout SECS      end the job when it has run SECS seconds (1 to\n"
"                          %d; 0: never), first printing what every thread\n"
"                          of every node waits for (default: DSM_JOB_TIMEOUT,\n"
"                          else 0)\n"
"      --hosts H1,H2[:S],..  start the nodes on these hosts over ssh, S slots\n"
"                          (nodes) per host, default 1; -n defaults to the\n"
"                          total; ranks fill the hosts in order\n"
"      --hostfile FILE     the same from FILE: one host per line, 'NAME' or\n"
"                          'NAME slots=S'; '#' comments (default DSM_HOSTFILE)\n"
"      --ssh COMMAND       remote shell, split at spaces, then HOST and the\n"
"                          agent command are appended (default: DSM_SSH,\n"
"                          else '" DSM_DEFAULT_SSH_COMMAND "')\n"
"      --interface IFACE   node 0 listens for the others on IFACE's IPv4\n"
"                          address (default: DSM_INTERFACE, else the address\n"
"                          that routes to the next host)\n"
"  -x, --env NAME          also pass NAME to remote nodes (repeatable;\n"
"                          DSM_PASS_ENV=N1,N2 does the same)\n"
"      --local             start on this machine even inside Slurm\n"
"  -v, --verbose           report what is started and how each node ends\n"
"  -h, --help              print this help and exit\n"
"  -V, --version           print the version and exit\n"
"\n"
"Set for every node (locally, other variables pass through unchanged):\n"
"  DSM_RANK                the node's number, 0 to N-1\n"
"  DSM_SIZE                N\n"
"  DSM_THREADS             T\n"
"  DSM_RENDEZVOUS          127.0.0.1:PORT (across hosts: node 0's address),\n"
"                          where node 0 accepts the others\n"
"  DSM_RENDEZVOUS_FD       node 0 only: the already listening socket\n"
"  DSM_TOKEN               the job's secret (128 random bits); never printed\n"
"  DSM_JOB_ID              unique per job: DSMRUN_PID.RANDOM\n"
"  DSM_ACTIVITY_FD         the activity board, where each node records what\n"
"                          it is doing, for the message when it fails\n"
"  UCX_POSIX_DIR           only with UCX_POSIX_USE_PROC_LINK=n, when UCX keeps\n"
"                          its shared-memory files, and unless already set:\n"
"                          a private directory, removed with its files at\n"
"                          the end of the job\n"
"  UCX_NET_DEVICES         unless already set: on one machine lo, across\n"
"                          hosts the interface towards node 0's address on\n"
"                          the node's host (and the active RDMA ports), so\n"
"                          that UCX's TCP transport listens there only\n"
"\n"
"Read by dsmrun:\n"
"  DSM_KILL_GRACE          default of --kill-grace\n"
"  DSM_JOB_TIMEOUT         default of --timeout\n"
"  DSM_SSH, DSM_INTERFACE, DSM_HOSTFILE, DSM_PASS_ENV   see above\n"
"  SLURM_JOB_ID            set: start the nodes with srun, one per allocated\n"
"                          node (-n at most the allocation's node count)\n"
"\n"
"Remote nodes (ssh, srun) get DSM_*, OMP_*, KMP_*, UCX_*, PATH,\n"
"LD_LIBRARY_PATH, HOME, USER, LOGNAME, LANG, LC_*, TZ, TMPDIR, ASAN_OPTIONS,\n"
"UBSAN_OPTIONS, LSAN_OPTIONS and the --env names from dsmrun's environment,\n"
"and nothing else; the program (and dsmrun) must be at the same path on\n"
"every host.  The token travels on the remote shell's standard input, never\n"
"on a command line.\n"
"\n"
"Behaviour:\n"
"  The nodes form one process group.  SIGINT, SIGTERM and SIGHUP\n"
"  received by dsmrun are forwarded to it.  SIGQUIT (and --timeout) first\n"
"  prints the hang report, one line per thread of every node saying what\n"
"  it waits for, then ends the job with SIGTERM.  When a node exits with a\n"
"  non-zero status or is killed by a signal, dsmrun names it and what it\n"
"  was doing, sends SIGTERM (and SIGCONT) to the others and SIGKILL after\n"
"  the grace period.  Processes left in the job's process group after the\n"
"  last node ended are ended the same way.\n"
"  If dsmrun itself is killed, the nodes receive SIGKILL.  Shared-memory\n"
"  segments created by the nodes and left behind are removed.\n"
"  Standard input reaches node 0 unless it is a terminal; the other nodes\n"
"  read /dev/null.\n"
"\n"
"Exit status: 0 when every node exits 0; otherwise the status of the node\n"
"that failed first (128+N when killed by signal N); 128+N when dsmrun\n"
"received signal N; %d when --timeout ended the job; 2 for a usage error;\n"
"1 when dsmrun itself fails.\n",
            DSM_LAUNCH_MAX_NODES, DSM_LAUNCH_MAX_THREADS,
            DSM_LAUNCH_MAX_KILL_GRACE, DSM_LAUNCH_DEFAULT_KILL_GRACE,
            DSM_LAUNCH_MAX_TIMEOUT, DSM_LAUNCH_EXIT_TIMEOUT);
}

void dsm_launch_print_version(FILE *stream)
{
    fprintf(stream, "dsmrun (dsmomp) %s\n", DSM_VERSION);
}

static dsm_status_t parse_count(const char *what, const char *text, long min,
                                long max, int *out)
{
    long value;
    if (dsm_parse_int_range(text, min, max, &value) != DSM_OK) {
        dsm_launch_say("invalid %s '%s': expected an integer from %ld to %ld",
                       what, text, min, max);
        return DSM_ERR_INVALID;
    }
    *out = (int)value;
    return DSM_OK;
}

/* The option word getopt just rejected, for the message. */
static void report_bad_option(int code, char **argv)
{
    const char *word = argv[optind - 1];
    int is_long = word && word[0] == '-' && word[1] == '-';

    if (code == ':') {
        if (is_long)
            dsm_launch_say("option '%s' needs a value", word);
        else
            dsm_launch_say("option '-%c' needs a value", optopt);
    } else if (is_long && optopt != 0) {
        /* a known long option given a value it does not take */
        int name_len = (int)strcspn(word, "=");
        dsm_launch_say("option '%.*s' does not take a value", name_len, word);
    } else if (is_long) {
        /* unknown or ambiguous */
        dsm_launch_say("unknown option '%s' (see dsmrun --help)", word);
    } else {
        dsm_launch_say("unknown option '-%c' (see dsmrun --help)", optopt);
    }
}

dsm_status_t dsm_launch_options_parse(int argc, char **argv,
                                      dsm_launch_options_t *out)
{
    dsm_launch_options_t opts = {
        .action = DSM_LAUNCH_RUN,
        .nodes = 1,
        .threads = 1,
        .kill_grace_s = DSM_LAUNCH_DEFAULT_KILL_GRACE,
    };

    if (dsm_launcher_config_load(&launcher_config) != DSM_OK)
        return DSM_ERR_INVALID;
    opts.ssh_command = launcher_config.ssh_command;
    opts.interface = launcher_config.interface;
    opts.pass_env = launcher_config.pass_env;
    if (launcher_config.hostfile[0])
        opts.hostfile = launcher_config.hostfile;
    int force_local = 0;

    const char *grace_env = getenv("DSM_KILL_GRACE");
    if (grace_env && *grace_env &&
        parse_count("DSM_KILL_GRACE", grace_env, 0, DSM_LAUNCH_MAX_KILL_GRACE,
                    &opts.kill_grace_s) != DSM_OK)
        return DSM_ERR_INVALID;
    const char *timeout_env = getenv("DSM_JOB_TIMEOUT");
    if (timeout_env && *timeout_env &&
        parse_count("DSM_JOB_TIMEOUT", timeout_env, 0, DSM_LAUNCH_MAX_TIMEOUT,
                    &opts.timeout_s) != DSM_OK)
        return DSM_ERR_INVALID;

    opterr = 0;   /* our own one-line messages instead of getopt's */
    optind = 1;
    int code;
    while ((code = getopt_long(argc, argv, short_options, long_options,
                               NULL)) != -1) {
        switch (code) {
        case 'n':
            if (parse_count("node count", optarg, 1, DSM_LAUNCH_MAX_NODES,
                            &opts.nodes) != DSM_OK)
                return DSM_ERR_INVALID;
            opts.nodes_given = 1;
            break;
        case OPT_HOSTS:
            opts.hosts_list = optarg;
            break;
        case OPT_HOSTFILE:
            opts.hostfile = optarg;
            break;
        case OPT_SSH:
            opts.ssh_command = optarg;
            break;
        case OPT_INTERFACE:
            opts.interface = optarg;
            break;
        case 'x':
            if (opts.pass_count == DSM_LAUNCH_MAX_PASS) {
                dsm_launch_say("too many --env options (at most %d)",
                               DSM_LAUNCH_MAX_PASS);
                return DSM_ERR_INVALID;
            }
            opts.pass[opts.pass_count++] = optarg;
            break;
        case OPT_LOCAL:
            force_local = 1;
            break;
        case OPT_NODE_AGENT:
            opts.action = DSM_LAUNCH_AGENT;
            *out = opts;
            return DSM_OK;
        case 't':
            if (parse_count("thread count", optarg, 1, DSM_LAUNCH_MAX_THREADS,
                            &opts.threads) != DSM_OK)
                return DSM_ERR_INVALID;
            break;
        case OPT_TIMEOUT:
            if (parse_count("timeout", optarg, 0, DSM_LAUNCH_MAX_TIMEOUT,
                            &opts.timeout_s) != DSM_OK)
                return DSM_ERR_INVALID;
            break;
        case OPT_KILL_GRACE:
            if (parse_count("kill grace", optarg, 0, DSM_LAUNCH_MAX_KILL_GRACE,
                            &opts.kill_grace_s) != DSM_OK)
                return DSM_ERR_INVALID;
            break;
        case 'v':
            opts.verbose = 1;
            break;
        case 'h':
        case 'V':
            opts.action = code == 'h' ? DSM_LAUNCH_HELP : DSM_LAUNCH_VERSION;
            *out = opts;
            return DSM_OK;
        default:
            report_bad_option(code, argv);
            return DSM_ERR_INVALID;
        }
    }

    if (optind >= argc) {
        dsm_launch_say("no program given (see dsmrun --help)");
        return DSM_ERR_INVALID;
    }
    opts.program_argv = argv + optind;
    if (opts.hosts_list && opts.hostfile &&
        !(launcher_config.hostfile[0] &&
          opts.hostfile == launcher_config.hostfile)) {
        dsm_launch_say("--hosts and --hostfile exclude each other");
        return DSM_ERR_INVALID;
    }
    if (opts.hosts_list)
        opts.hostfile = NULL;   /* the command line wins over DSM_HOSTFILE */
    if (force_local && (opts.hosts_list || opts.hostfile)) {
        dsm_launch_say("--local and a host list exclude each other");
        return DSM_ERR_INVALID;
    }
    const char *slurm_job = getenv("SLURM_JOB_ID");
    if (opts.hosts_list || opts.hostfile)
        opts.where = DSM_LAUNCH_SSH;
    else if (!force_local && slurm_job && *slurm_job)
        opts.where = DSM_LAUNCH_SLURM;
    *out = opts;
    return DSM_OK;
}
