/*
 * tp_wire.h - byte layouts of what nodes send each other outside UCX (the
 * bootstrap messages, the control frames, the same-host lane records) and
 * their pure decoders (tp_wire.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_WIRE_H
#define TP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* Bootstrap messages, all integers big-endian.  A node record describes
 *   one node: a 16-byte host identity (the kernel's boot id), u32 worker
 *   address length, u64 network namespace (inode), u32 process id, u32
 *   lane file descriptor and u32 wake pipe descriptor a same-host peer may
 *   open (TP_WIRE_NO_FD: none), then per segment {u64 base, u64 size, u32
 *   rkey length, u32 descriptor a same-host peer may map
 *   (TP_WIRE_NO_FD: none)}, then the worker address and the packed rkeys.
 * hello (rank > 0 -> rank 0): u32 magic "DSMH", u32 version, u32 rank,
 *   the token field, then the node record.
 * table (rank 0 -> all): u32 magic "DSMT", u32 version, u32 size,
 *   u32 body length, then the records of ranks 0..size-1.
 * control frame (both ways, after the table): u32 type, u32 argument. */
#define TP_WIRE_VERSION 4u
#define TP_WIRE_TOKEN_LEN 128u   /* the token field, zero padded */
#define TP_WIRE_BLOB_MAX (64u * 1024u)        /* per address or rkey */
#define TP_WIRE_HELLO_FIXED (4u + 4u + 4u + TP_WIRE_TOKEN_LEN)
#define TP_WIRE_HOST_ID_LEN 16u
#define TP_WIRE_SEG_LEN (8u + 8u + 4u + 4u)
#define TP_WIRE_RECORD_FIXED \
    (TP_WIRE_HOST_ID_LEN + 4u + 8u + 4u + 8u + \
     DSM_TP_SEG_COUNT * TP_WIRE_SEG_LEN)
#define TP_WIRE_NO_FD UINT32_MAX
#define TP_WIRE_TABLE_FIXED (4u * 4u)
#define TP_WIRE_FRAME_LEN 8u

typedef struct tp_record {
    unsigned char host_id[TP_WIRE_HOST_ID_LEN];   /* same kernel, same id */
    const void *addr;                         /* UCX worker address */
    size_t addr_len;
    uint64_t netns;        /* network namespace: with host_id, "same host" */
    uint32_t pid;
    uint32_t lane_fd;      /* in pid: its lane file, or TP_WIRE_NO_FD */
    uint32_t bell_fd;      /* in pid: its wake pipe's write end, or NO_FD */
    uint32_t map_fd[DSM_TP_SEG_COUNT];        /* in pid, or TP_WIRE_NO_FD */
    uint64_t seg_base[DSM_TP_SEG_COUNT];
    uint64_t seg_size[DSM_TP_SEG_COUNT];
    const void *rkey[DSM_TP_SEG_COUNT];       /* packed remote keys */
    size_t rkey_len[DSM_TP_SEG_COUNT];
} tp_record_t;

typedef enum tp_frame_type {
    TP_FRAME_READY = 1,     /* rank > 0: endpoints created */
    TP_FRAME_GO = 2,        /* rank 0: everyone is ready */
    TP_FRAME_BYE = 3,       /* rank > 0: finalizing, nothing outstanding */
    TP_FRAME_BYE_ACK = 4,   /* rank 0: every node said BYE */
    TP_FRAME_ABORT = 5,     /* rank 0: node <arg> failed */
    TP_FRAME_HEARTBEAT = 6, /* both ways: the sender's progress thread runs */
} tp_frame_type_t;

size_t tp_wire_record_len(const tp_record_t *rec);
void tp_wire_put_record(unsigned char *out, const tp_record_t *rec);
/* Parse one record from [in, in+len); pointers in *rec point into in.
 * Returns the bytes consumed, 0 if malformed or truncated. */
size_t tp_wire_get_record(const unsigned char *in, size_t len,
                          tp_record_t *rec);
/* Parse only the fixed part: the total record length it announces, or 0
 * when a length exceeds TP_WIRE_BLOB_MAX. */
size_t tp_wire_record_total(const unsigned char fixed[TP_WIRE_RECORD_FIXED]);

/* Write the fixed hello header (magic, version, rank, token). */
void tp_wire_put_hello_header(unsigned char out[TP_WIRE_HELLO_FIXED],
                              uint32_t rank, const char *token);
uint32_t tp_wire_magic(const unsigned char *in);     /* first u32 */
uint32_t tp_wire_get_u32(const unsigned char *in);
void tp_wire_put_u32(unsigned char *out, uint32_t v);
/* Constant-time comparison of a received token field with ours. */
int tp_wire_token_matches(const unsigned char field[TP_WIRE_TOKEN_LEN],
                          const char *token);
#define TP_MAGIC_HELLO 0x44534d48u   /* "DSMH" */
#define TP_MAGIC_TABLE 0x44534d54u   /* "DSMT" */

/* Decoding a hello as its bytes arrive: tp_wire_check_hello looks at the
 * first `have` bytes (never more than it asked for) and says whether they
 * are a complete hello, the start of one (read on to `need` bytes), or
 * not one at all (`why` says what was wrong, a static string).  Checked in
 * order: magic, version, token (constant time), rank (1..size-1), lengths,
 * the record.  Whether the rank already joined is the caller's to check. */
typedef enum tp_hello_verdict {
    TP_HELLO_MORE,
    TP_HELLO_BAD,
    TP_HELLO_DONE,
} tp_hello_verdict_t;

typedef struct tp_hello {
    size_t need;          /* MORE: bytes to read before looking again;
                             DONE: length of the hello */
    uint32_t rank;        /* once the token matched */
    int bad_rank;         /* BAD because rank is out of range */
    const char *why;      /* BAD */
    tp_record_t rec;      /* DONE; pointers into the caller's bytes */
} tp_hello_t;

tp_hello_verdict_t tp_wire_check_hello(const unsigned char *in, size_t have,
                                       const char *token, int size,
                                       tp_hello_t *out);

/* The table's fixed header: magic, version, the job's size, and a body
 * length bounded by size records of the largest size; *body_len on
 * success. */
dsm_status_t tp_wire_get_table_header(
    const unsigned char head[TP_WIRE_TABLE_FIXED], int size,
    size_t *body_len);
/* The table's body: exactly size records and nothing after them; table[r]
 * points into body. */
dsm_status_t tp_wire_get_table(const unsigned char *body, size_t len,
                               int size, tp_record_t *table);

/* Same-host lane records (tp_lane.c).  Each record starts on a 64-byte
 * line of the ring with a 16-byte header: u64 ready (the record's position
 * + 1, stored last: the reader polls this word, so a message costs the
 * line it is written on and no separate head word), u32 payload length,
 * u8 message id, u8 kind, u16 zero; the payload follows, and the record
 * takes 16 + length bytes rounded up to the line.  The reader zeroes the
 * first word of every line it consumed, so the first word of a line is 0
 * or the ready word of the record starting there.  A record never crosses
 * the ring's end (a WRAP record sends the reader to offset 0).  A message
 * of more than TP_LANE_MAX_PAYLOAD bytes is a FIRST record (u64 total
 * length, then bytes), MORE records and a LAST one, in a row.  Native
 * byte order: both ends run on one host. */
#define TP_LANE_LINE 64u
#define TP_LANE_HDR_BYTES 16u
#define TP_LANE_MAX_PAYLOAD ((uint64_t)32 << 10)
#define TP_LANE_MAX_MESSAGE ((uint64_t)1 << 40)
enum tp_lane_kind {
    TP_LANE_WHOLE = 1,
    TP_LANE_FIRST = 2,
    TP_LANE_MORE = 3,
    TP_LANE_LAST = 4,
    TP_LANE_WRAP = 5,
};
typedef struct tp_lane_view {
    unsigned kind, id;
    const unsigned char *payload;   /* inside the ring */
    uint32_t len;
    uint64_t next;                  /* the position after the record */
} tp_lane_view_t;
/* Bytes of the ring a record of payload len takes (header, padding). */
static inline uint64_t tp_lane_record_bytes(uint64_t len)
{
    return (TP_LANE_HDR_BYTES + len + TP_LANE_LINE - 1) &
           ~(uint64_t)(TP_LANE_LINE - 1);
}
/* The record at position tail of a ring of ring_bytes (a multiple of the
 * line), whose ready word the reader found to be ready (non-zero): ready
 * must be tail + 1, the record lie before the ring's end, its kind and id
 * be valid, a WRAP carry nothing and not stand at offset 0. */
dsm_status_t tp_wire_lane_record(const unsigned char *ring, uint64_t ring_bytes,
                                 uint64_t tail, uint64_t ready,
                                 tp_lane_view_t *out);
/* Reassembly of fragmented messages, one state per ring.  Feed every
 * record but WRAPs: *deliver says the message is whole (a WHOLE record,
 * or the LAST fragment, after which st->total bytes were collected); a
 * FIRST sets st->total and *first_bytes (the payload after the length);
 * out of order, a changing id or more bytes than announced are errors. */
typedef struct tp_lane_asm {
    int active;
    unsigned id;
    uint64_t total, have;
} tp_lane_asm_t;
dsm_status_t tp_wire_lane_step(tp_lane_asm_t *st, const tp_lane_view_t *rec,
                               int *deliver);

#endif
