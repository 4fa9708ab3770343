/*
 * coh_msg.h - active-message ids and wire formats of the coherence protocol.
 *
 * Layer: coherence (internal).  Every handler checks the length of what it
 * receives against these layouts before reading it; a malformed message
 * ends the job (dsm_fatal), it never corrupts memory.
 * The ids are in coherence's range of transport.h (DSM_TP_AM_COH_FIRST..
 * DSM_TP_AM_COH_LAST); dsm_tp_am_register refuses any other.
 */
#ifndef COH_MSG_H
#define COH_MSG_H

#include <stdint.h>

enum coh_am_id {
    COH_AM_SHARE_REQ      = 1,  /* non-home -> home: I now hold a copy */
    COH_AM_SHARE_ACK      = 2,
    COH_AM_BARRIER_ARRIVE = 3,  /* node -> node 0, with its write notices */
    COH_AM_BARRIER_DEPART = 4,  /* node 0 -> all, every node's notices */
    COH_AM_LOCK_REQ       = 5,  /* node -> lock manager */
    COH_AM_LOCK_GRANT     = 6,  /* manager -> node (granted or busy) */
    COH_AM_LOCK_RELEASE   = 7,  /* holder -> manager, with its vector time */
    COH_AM_HEAP_FREE      = 8,  /* any node -> owner of the block */
    COH_AM_HEAP_SIZE_REQ  = 9,  /* any node -> owner: usable size? */
    COH_AM_HEAP_SIZE_REP  = 10,
    COH_AM_DIFF           = 11, /* writer -> home: diffs of its pages */
    COH_AM_DIFF_ACK       = 12, /* home -> writer: applied (not for
                                   COH_DIFF_ARRIVAL_FOLLOWS) */
    COH_AM_MIGRATE_DONE   = 13, /* node -> node 0: a barrier's home moves applied */
    COH_AM_MIGRATE_GO     = 14, /* node 0 -> all: every node applied them */
    COH_AM_ATOMIC_REQ     = 15, /* node -> home: an atomic on its word */
    COH_AM_ATOMIC_REP     = 16, /* home -> node: the word before it */
    COH_AM_REPORT         = 17, /* node -> node 0 at finalize: statistics
                                   (coh_report_wire.h) */
    COH_AM_REPORT_NAMES_REQ = 18, /* node 0 -> node: name heap blocks */
    COH_AM_REPORT_NAMES_REP = 19,
    COH_AM_LAST           = 19,
};

typedef struct coh_msg_share {
    uint32_t first;     /* page index */
    uint32_t count;
    uint32_t slot;      /* requester's reply slot */
    uint32_t pad;
} coh_msg_share_t;

/* A write-notice record: interval `seq` of node `creator` wrote the listed
 * page ranges.  Followed by nranges coh_range_t. */
typedef struct coh_range {
    uint32_t first;
    uint32_t count;
} coh_range_t;

/* A wanted range (arrival and departure wants, coh_want.c): a coh_range_t
 * whose count holds the pages in its low 16 bits and, above them, the
 * tag of the program point where the reader's copies were dropped. */
#define COH_WANT_PAGES(count) ((count) & 0xffffu)
#define COH_WANT_TAG(count) ((count) >> 16)
#define COH_WANT_COUNT(pages, tag) ((uint32_t)(pages) | (uint32_t)(tag) << 16)

typedef struct coh_record_hdr {
    uint32_t creator;
    uint32_t seq;
    uint32_t nranges;
    uint32_t pad;
} coh_record_hdr_t;

/* Barrier arrival: header then records of intervals created by the sender
 * since the last barrier, then push_len bytes of whole pages the sender
 * homes and other nodes want (coh_push.c; a coh_msg_diff_t as in a
 * departure's push), then nwants wanted ranges (coh_range_t with a tag,
 * above) the sender wants pushed (coh_want.c), then extra_len bytes the
 * layer above attached to a one-way join (at most COH_JOIN_EXTRA_MAX;
 * coherence.h). */
typedef struct coh_msg_arrive {
    uint64_t epoch;
    uint32_t vc_self;        /* sender's interval count */
    uint32_t overflow;       /* records were lost: invalidate everything */
    uint32_t nrecords;
    uint32_t extra_len;
    uint32_t push_len;
    uint32_t nwants;
} coh_msg_arrive_t;
#define COH_JOIN_EXTRA_MAX 1024u

/* Handoff (a one-way release carried in another layer's message, e.g. a
 * fork): header, then nrecords records of the creator's intervals since
 * the last barrier, then depart_len bytes of the departure of a one-way
 * join the creator held (coh_msg_depart_t and what follows), if it fits,
 * then push_len bytes of pushed updates of node 0's pages that the
 * records name (as in a departure; coh_push.c).  overflow: the records
 * did not fit (or the log lost one); the receiver invalidates every page
 * instead, and nothing is pushed. */
typedef struct coh_msg_handoff {
    uint32_t creator;
    uint32_t vc_creator;     /* the creator's intervals, all included */
    uint32_t overflow;
    uint32_t nrecords;
    uint32_t depart_len;
    uint32_t push_len;
} coh_msg_handoff_t;

/* Barrier departure: header, the merged vector time (size entries), the
 * records of every node, nmigrations home moves, nwants wanted ranges
 * (coh_range_t with a tag) other nodes want pushed by their homes other
 * than node 0 (coh_want.c), then push_len bytes of pushed updates
 * (coh_push.c): a coh_msg_diff_t whose pad counts the u64 page hashes at
 * the end (0, or two per page in the invariants build: the pushed page,
 * and the snapshot a diff is from), its pages' diffs (node 0's pages) and
 * whole pages (node 0's, and those other homes pushed at their arrival),
 * the hashes. */
typedef struct coh_msg_depart {
    uint64_t epoch;
    uint32_t overflow;
    uint32_t nrecords;
    uint32_t nmigrations;
    uint32_t push_len;
    uint32_t nwants;
    uint32_t pad;
} coh_msg_depart_t;

/* A home move decided at a barrier: pages [first, first+count) are homed
 * at `home` from the end of that barrier on. */
typedef struct coh_migration {
    uint32_t first;
    uint32_t count;
    uint32_t home;
    uint32_t pad;
} coh_migration_t;

typedef struct coh_msg_lock {
    uint32_t lock;           /* index at the manager; 0 for a named lock */
    uint32_t slot;           /* requester's reply slot */
    uint32_t flags;          /* COH_LOCK_TRY / _GRANTED / _NAMED */
    uint32_t nvc;            /* entries of vector time that follow */
    uint64_t key;            /* a named lock's full key (COH_LOCK_NAMED) */
} coh_msg_lock_t;
#define COH_LOCK_TRY     1u
#define COH_LOCK_GRANTED 2u
#define COH_LOCK_NAMED   4u

/* Diffs for one home: header, then per page a coh_diff_page_t followed by
 * `len` bytes of encoded diff (coh_diff.h).  The same header starts a
 * push section (coh_push.c), whose aux is the number of hashes at its
 * end. */
typedef struct coh_msg_diff {
    uint32_t npages;
    uint32_t aux;            /* a DIFF message: COH_DIFF_* flags */
} coh_msg_diff_t;
/* The sender's barrier or join arrival follows these diffs to node 0:
 * node 0 applies them before it takes the arrival, so no acknowledgement
 * (its departure, or the next fork, comes after them anyway). */
#define COH_DIFF_ARRIVAL_FOLLOWS 1u
/* The same, and the arrival is in this message, after the diffs: one
 * message where there were two. */
#define COH_DIFF_ARRIVAL_INSIDE  2u

typedef struct coh_diff_page {
    uint32_t index;
    uint32_t len;
} coh_diff_page_t;

typedef struct coh_msg_heap {
    uint64_t ptr;
    uint64_t value;
    uint32_t slot;
    uint32_t pad;
} coh_msg_heap_t;

/* An atomic the home performs (coh_atomic.c): operation op
 * (dsm_coh_atomic_op_t) on the size bytes at offset in the sharable
 * space; the reply carries the naturally aligned word around them (4 or
 * 8 bytes) as it was before. */
typedef struct coh_msg_atomic {
    uint64_t offset;
    uint64_t operand;
    uint64_t expected;
    uint32_t slot;
    uint16_t op;
    uint16_t size;
} coh_msg_atomic_t;

typedef struct coh_msg_atomic_rep {
    uint64_t word;
    uint32_t slot;
    uint32_t pad;
} coh_msg_atomic_rep_t;

#endif
