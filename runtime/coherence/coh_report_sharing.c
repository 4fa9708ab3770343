/*
 * coh_report_sharing.c - the sharing report: the pages that cost the
 * protocol most, grouped by the program's data that they hold, with the
 * pattern recognised and one line of advice each (doc/usage.md, "Why is my
 * program slow?"; doc/design.md, "Statistics and the sharing
 * report").
 *
 * Node 0 merges every node's page records (coh_report_wire.h), ranks the
 * pages by their estimated cost (coh_report_page_cost_ns), and names the
 * TOP_PAGES costliest by their hot words (those faulted on, written or
 * used by atomics, on any node):
 *   - a global: the executable's symbol table;
 *   - a heap block: its allocation's call site, asked of the node whose
 *     arena holds it (names request);
 *   - node 0's main stack: the frame of the master's call chain that holds
 *     it, recorded at the forks (coh_sharing_chains).
 * A page holding several objects shares its cost among them by the hot
 * words each holds.  The pattern of an object on a page comes from node
 * 0's record of who wrote the page in each barrier epoch
 * (coh_sharing_epochs_of) and the words each node wrote:
 *   false sharing  several nodes wrote the page between the same barriers,
 *                  in most of its epochs, and no two of them the same
 *                  words of the object (different parts of it, or it and
 *                  its neighbours);
 *   ping-pong      they wrote the same words (taking turns under a lock
 *                  or a flag), or one node after another epoch by epoch,
 *                  or its home moved often;
 *   flag           a node polled it (atomic reads, or fetches far more
 *                  often than there were barrier epochs, writing little);
 *   homed away     one node wrote it in most epochs, not its home;
 *   communication  one node writes it, others read it.
 * An object's pattern is that of the larger part of its cost.
 *
 * Layer: coherence.  Node 0's main thread at finalize.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_protocol.h"
#include "coh_report.h"
#include "coh_report_names.h"
#include "coh_sharing.h"
#include "coherence.h"
#include "sys_symbols.h"

#define TOP_PAGES 256
#define TOP_OBJECTS 10
#define OBJECTS_PER_PAGE 4
#define JSON_PAGES 256

enum pattern {
    PAT_NONE,
    PAT_FALSE_SHARING,
    PAT_PING_PONG,
    PAT_FLAG,
    PAT_HOMED_AWAY,
    PAT_COMMUNICATION,
    PAT_COUNT
};

static const char *const pattern_names[PAT_COUNT] = {
    "no pattern recognised", "false sharing", "ping-pong", "flag spun on",
    "homed away from its writer", "communication",
};
static const char *const pattern_keys[PAT_COUNT] = {
    "none", "false_sharing", "ping_pong", "flag", "homed_away",
    "communication",
};

enum kind { KIND_GLOBAL, KIND_HEAP, KIND_STACK, KIND_OTHER };
static const char *const kind_names[] = {"global", "heap", "stack", "other"};

typedef struct merged {
    uint32_t page;
    double cost;
    uint32_t read_faults, write_faults, fetches, diffs, atomics, atomic_loads;
    uint32_t migrations;
    uint64_t diff_bytes, fault_ns;
    uint64_t threads_read, threads_wrote;
    uint64_t writers, readers;           /* node bits (63: 63 and above) */
    uint64_t hot[COH_SHARING_MASK_WORDS];
    uint32_t timeline[COH_SHARING_BUCKETS];
    enum pattern pattern;                /* of the whole page */
    int objects[OBJECTS_PER_PAGE];
    uintptr_t lo[OBJECTS_PER_PAGE], hi[OBJECTS_PER_PAGE]; /* their extents */
    int nobjects;
} merged_t;

/* One node's part in one of the top pages. */
typedef struct node_page {
    uint32_t fetches, writes, atomic_loads, updates;
    uint64_t written[COH_SHARING_MASK_WORDS];
} node_page_t;

typedef struct object {
    enum kind kind;
    uintptr_t key;
    char name[COH_NAME_TEXT];            /* global's or function's name */
    char where[COH_NAME_TEXT];           /* allocation or frame's place */
    uintptr_t start;
    uint64_t size;
    int nblocks, runtime;
    double cost;
    double pattern_cost[PAT_COUNT];
    enum pattern pattern;
    uint64_t writers, readers, threads_read, threads_wrote;
    uint64_t faults, fetches, diffs, atomics, migrations, diff_bytes;
    int npages;
    uint32_t pages[8];
} object_t;

typedef struct sync_site {
    uintptr_t pc, inside;
    uint64_t count, ns;
    char where[COH_NAME_TEXT];
} sync_site_t;

struct coh_sharing_report {
    const coh_report_job_t *job;
    merged_t *pages;                     /* by cost, highest first */
    size_t npages, top;
    node_page_t *per_node;               /* [top page][node] */
    object_t *objects;
    size_t nobjects, cap_objects;
    sync_site_t *sync;
    size_t nsync;
    double protocol_ns;                  /* every node's, summed */
    double named_cost;
    uint64_t untracked;
    uint32_t steps, shift, epochs;
};

static uint64_t node_bit(int n) { return (uint64_t)1 << (n < 63 ? n : 63); }

static void *must(void *p)
{
    if (!p)
        dsm_fatal("no memory for the sharing report");
    return p;
}

/* ---- merging the nodes' pages ------------------------------------------------ */

typedef struct page_map {
    uint32_t *slot;        /* index into pages + 1, 0: empty */
    size_t mask;
} page_map_t;

static merged_t *merged_of(page_map_t *m, merged_t *pages, size_t *n,
                           uint32_t page)
{
    size_t h = ((uint64_t)page * 0x9E3779B97F4A7C15ull) >> 20;
    for (;; h++) {
        uint32_t *s = &m->slot[h & m->mask];
        if (*s && pages[*s - 1].page == page)
            return &pages[*s - 1];
        if (!*s) {
            merged_t *p = &pages[(*n)++];
            memset(p, 0, sizeof *p);
            p->page = page;
            *s = (uint32_t)*n;
            return p;
        }
    }
}

static void add_node_page(merged_t *m, int node, const coh_report_page_t *p,
                          const coh_msg_report_t *h, unsigned target_shift)
{
    m->cost += coh_report_page_cost_ns(p, h);
    m->read_faults += p->read_faults;
    m->write_faults += p->write_faults;
    m->fetches += p->fetches;
    m->diffs += p->diffs;
    m->atomics += p->atomics;
    m->atomic_loads += p->atomic_loads;
    m->migrations += p->migrations;
    m->diff_bytes += p->diff_bytes;
    m->fault_ns += p->fault_ns;
    m->threads_read |= p->threads_read;
    m->threads_wrote |= p->threads_wrote;
    int wrote = p->write_faults || p->diffs || p->atomics > p->atomic_loads;
    if (wrote)
        m->writers |= node_bit(node);
    if (p->read_faults || p->fetches || p->atomic_loads)
        m->readers |= node_bit(node);
    for (int w = 0; w < COH_SHARING_MASK_WORDS; w++)
        m->hot[w] |= p->written[w] | p->touched[w];
    unsigned down = target_shift - h->shift;
    for (int b = 0; b < COH_SHARING_BUCKETS; b++)
        m->timeline[b >> down] += p->timeline[b];
}

static int by_cost(const void *a, const void *b)
{
    double x = ((const merged_t *)a)->cost, y = ((const merged_t *)b)->cost;
    return x > y ? -1 : x < y;
}

static void merge(coh_sharing_report_t *r)
{
    const coh_report_job_t *job = r->job;
    size_t total = 0;
    for (int n = 0; n < job->size; n++) {
        const coh_msg_report_t *h = &job->node[n].hdr;
        total += h->npages;
        r->protocol_ns += (double)h->stats.protocol_ns + (double)h->sync_ns +
                          (double)h->atomic_ns;
        r->untracked += h->untracked;
        if (!h->sharing)
            continue;
        if (h->shift > r->shift)
            r->shift = h->shift;
        if (h->steps > r->steps)
            r->steps = h->steps;
    }
    r->pages = must(calloc(total ? total : 1, sizeof *r->pages));
    page_map_t map;
    size_t slots = 1;
    while (slots < 2 * total + 2)
        slots *= 2;
    map.slot = must(calloc(slots, sizeof *map.slot));
    map.mask = slots - 1;
    for (int n = 0; n < job->size; n++) {
        const coh_report_view_t *v = &job->node[n];
        for (uint32_t k = 0; k < v->hdr.npages; k++) {
            coh_report_page_t p = coh_report_page_at(v, k);
            add_node_page(merged_of(&map, r->pages, &r->npages, p.page), n, &p,
                          &v->hdr, r->shift);
        }
    }
    free(map.slot);
    qsort(r->pages, r->npages, sizeof *r->pages, by_cost);
}

/* ---- patterns ----------------------------------------------------------------- */

static int popcount64(uint64_t v) { return __builtin_popcountll(v); }

static const node_page_t *part(const coh_sharing_report_t *r, size_t i,
                               int node)
{
    return &r->per_node[i * (size_t)r->job->size + (size_t)node];
}

/* The pattern of top page i for the words [lo, hi) of it (an object, or
 * the whole page). */
static enum pattern classify(const coh_sharing_report_t *r, size_t i,
                             uintptr_t lo, uintptr_t hi)
{
    const merged_t *m = &r->pages[i];
    uintptr_t base = coh_page_addr(m->page);
    uint64_t in[COH_SHARING_MASK_WORDS] = {0};
    for (unsigned w = 0; w < 64 * COH_SHARING_MASK_WORDS; w++)
        if (base + 8u * w + 8 > lo && base + 8u * w < hi)
            in[w / 64] |= (uint64_t)1 << (w % 64);
    int writers_obj = 0, writers_page = 0, overlap = 0;
    uint64_t seen[COH_SHARING_MASK_WORDS] = {0};
    uint32_t epochs = r->epochs;
    int polled = 0;
    for (int n = 0; n < r->job->size; n++) {
        const node_page_t *np = part(r, i, n);
        int wrote_obj = 0;
        for (int w = 0; w < COH_SHARING_MASK_WORDS; w++) {
            uint64_t mine = np->written[w] & in[w];
            overlap |= (seen[w] & mine) != 0;
            seen[w] |= mine;
            wrote_obj |= mine != 0;
        }
        writers_obj += wrote_obj;
        writers_page += np->writes != 0;
        if ((np->atomic_loads >= 64 && np->atomic_loads >= 4 * np->updates) ||
            (np->fetches >= 16 && np->fetches > 4 * (epochs + 1) &&
             4 * np->writes <= np->fetches))
            polled = 1;
    }
    const coh_sharing_epochs_t *e = coh_sharing_epochs_of(m->page);
    int concurrent = e && e->multi_epochs >= 1 &&
                     e->multi_epochs * 4 >= e->write_epochs;
    if (concurrent && overlap)
        return PAT_PING_PONG;       /* the same words, in turn */
    if (concurrent && (writers_obj >= 2 || writers_page >= 2))
        return PAT_FALSE_SHARING;
    if (m->migrations >= 2 ||
        (e && e->writer_changes >= 2 &&
         e->writer_changes * 4 >= e->write_epochs))
        return PAT_PING_PONG;
    if (polled)
        return PAT_FLAG;
    if (e && e->away_epochs >= 2 && e->away_epochs * 2 >= e->write_epochs)
        return PAT_HOMED_AWAY;
    if (writers_obj >= 2)
        return overlap ? PAT_PING_PONG : PAT_FALSE_SHARING;
    if (popcount64(m->writers) == 1 && (m->readers & ~m->writers))
        return PAT_COMMUNICATION;
    return PAT_NONE;
}

/* Each node's part in the top pages. */
static void fill_parts(coh_sharing_report_t *r)
{
    int n = r->job->size;
    r->per_node = must(calloc(r->top * (size_t)n + 1, sizeof *r->per_node));
    page_map_t map;
    size_t slots = 1;
    while (slots < 2 * r->top + 2)
        slots *= 2;
    map.slot = must(calloc(slots, sizeof *map.slot));
    map.mask = slots - 1;
    for (size_t i = 0; i < r->top; i++) {
        size_t h = ((uint64_t)r->pages[i].page * 0x9E3779B97F4A7C15ull) >> 20;
        while (map.slot[h & map.mask])
            h++;
        map.slot[h & map.mask] = (uint32_t)i + 1;
    }
    for (int k = 0; k < n; k++) {
        const coh_report_view_t *v = &r->job->node[k];
        for (uint32_t j = 0; j < v->hdr.npages; j++) {
            coh_report_page_t p = coh_report_page_at(v, j);
            size_t h = ((uint64_t)p.page * 0x9E3779B97F4A7C15ull) >> 20;
            for (;; h++) {
                uint32_t s = map.slot[h & map.mask];
                if (!s)
                    break;
                if (r->pages[s - 1].page != p.page)
                    continue;
                node_page_t *np = &r->per_node[(s - 1) * (size_t)n + (size_t)k];
                np->fetches = p.fetches;
                np->writes = p.write_faults + p.diffs +
                             (p.atomics - p.atomic_loads);
                np->atomic_loads = p.atomic_loads;
                np->updates = p.atomics - p.atomic_loads;
                memcpy(np->written, p.written, sizeof np->written);
                break;
            }
        }
    }
    free(map.slot);
}

/* ---- objects ------------------------------------------------------------------ */

static int object_for(coh_sharing_report_t *r, enum kind kind, uintptr_t key)
{
    for (size_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].kind == kind && r->objects[i].key == key)
            return (int)i;
    if (r->nobjects == r->cap_objects) {
        r->cap_objects = r->cap_objects ? 2 * r->cap_objects : 64;
        r->objects = must(realloc(r->objects,
                                  r->cap_objects * sizeof *r->objects));
    }
    object_t *o = &r->objects[r->nobjects];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->key = key;
    return (int)r->nobjects++;
}

static void attach(merged_t *m, int obj, uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < m->nobjects; i++)
        if (m->objects[i] == obj)
            return;
    if (m->nobjects < OBJECTS_PER_PAGE) {
        m->lo[m->nobjects] = lo;
        m->hi[m->nobjects] = hi;
        m->objects[m->nobjects++] = obj;
    }
}

static uintptr_t word_addr(const merged_t *m, unsigned w)
{
    return coh_page_addr(m->page) + 8u * w;
}

static int hot(const merged_t *m, unsigned w)
{
    return (m->hot[w / 64] >> (w % 64)) & 1;
}

static void name_globals(coh_sharing_report_t *r, merged_t *m)
{
    uintptr_t end = 0;
    for (unsigned w = 0; w < 64 * COH_SHARING_MASK_WORDS; w++) {
        uintptr_t a = word_addr(m, w);
        if (!hot(m, w) || a < end)
            continue;
        dsm_sys_symbol_t sym;
        if (dsm_sys_symbol_find((const void *)a, &sym) != 0 || sym.function) {
            int obj = object_for(r, KIND_OTHER, coh_page_addr(m->page));
            object_t *o = &r->objects[obj];
            snprintf(o->name, sizeof o->name, "unnamed data");
            o->start = coh_page_addr(m->page);
            o->size = DSM_PAGE_SIZE;
            attach(m, obj, o->start, o->start + DSM_PAGE_SIZE);
            end = o->start + DSM_PAGE_SIZE;
            continue;
        }
        int obj = object_for(r, KIND_GLOBAL, sym.start);
        object_t *o = &r->objects[obj];
        snprintf(o->name, sizeof o->name, "%s", sym.name);
        o->start = sym.start;
        o->size = sym.size;
        end = sym.start + (sym.size ? sym.size : 8);
        attach(m, obj, sym.start, end);
    }
}

/* The master's frame holding addr, in the chain most regions came from. */
static const dsm_sys_frame_t *frame_of(uintptr_t addr)
{
    size_t n;
    const coh_sharing_chain_t *chains = coh_sharing_chains(&n);
    const dsm_sys_frame_t *best = NULL;
    uint32_t best_forks = 0;
    for (size_t c = 0; c < n; c++)
        for (int k = 0; k < chains[c].nframes; k++) {
            const dsm_sys_frame_t *f = &chains[c].frame[k];
            if (addr >= f->lo && addr < f->hi && chains[c].forks > best_forks) {
                best = f;
                best_forks = chains[c].forks;
            }
        }
    return best;
}

static void name_stack(coh_sharing_report_t *r, merged_t *m)
{
    uintptr_t done_lo = 1, done_hi = 0;
    for (unsigned w = 0; w < 64 * COH_SHARING_MASK_WORDS; w++) {
        uintptr_t a = word_addr(m, w);
        if (!hot(m, w) || (a >= done_lo && a < done_hi))
            continue;
        const dsm_sys_frame_t *f = frame_of(a);
        dsm_sys_symbol_t sym;
        if (!f || dsm_sys_symbol_find((const void *)(f->ip - 1), &sym) != 0) {
            int obj = object_for(r, KIND_STACK, 0);
            object_t *o = &r->objects[obj];
            snprintf(o->name, sizeof o->name, "the master's stack below "
                     "the frames that opened the regions (thread 0's own "
                     "frames in a region, the runtime's)");
            attach(m, obj, a, a + 8);
            continue;
        }
        int obj = object_for(r, KIND_STACK, sym.start);
        object_t *o = &r->objects[obj];
        if (!o->where[0]) {
            char where[1][COH_NAME_TEXT];
            coh_report_where(&f->ip, 1, 0, where);
            snprintf(o->name, sizeof o->name, "%s", sym.name);
            memcpy(o->where, where[0], sizeof o->where);
            o->start = f->lo;
            o->size = f->hi - f->lo;
        }
        attach(m, obj, f->lo, f->hi);
        done_lo = f->lo;
        done_hi = f->hi;
    }
}

/* The heap pages of node `node`'s arena among the top pages: one names
 * request, the blocks in the reply become objects (by allocation site). */
static void name_heap_of(coh_sharing_report_t *r, int node,
                         coh_report_ask_fn ask, size_t top)
{
    coh_names_item_t *items = must(calloc(COH_NAMES_MAX_ITEMS,
                                          sizeof *items));
    merged_t **of = must(calloc(COH_NAMES_MAX_ITEMS, sizeof *of));
    uint32_t count = 0;
    for (size_t i = 0; i < top && count < COH_NAMES_MAX_ITEMS; i++) {
        merged_t *m = &r->pages[i];
        uintptr_t addr = coh_page_addr(m->page);
        void *lo;
        size_t len;
        dsm_coh_main_stack(&lo, &len);
        if (addr - (uintptr_t)lo < len || coh_heap_arena_of(m->page) != node)
            continue;
        items[count].page_addr = addr;
        memcpy(items[count].hot, m->hot, sizeof m->hot);
        of[count++] = m;
    }
    if (!count && node == 0) {
        free(items);
        free(of);
        return;
    }
    size_t len = 0;
    void *reply = ask(node, items, count, &len);
    uint32_t nblocks = 0;
    if (reply && coh_report_names_rep_decode(reply, len, count, &nblocks) !=
                     DSM_OK)
        dsm_fatal("malformed names reply from node %d", node);
    /* a block spanning several pages is in several items: count it once */
    uint64_t *seen = must(calloc(nblocks ? nblocks : 1, sizeof *seen));
    uint32_t nseen = 0;
    for (uint32_t k = 0; reply && k < nblocks; k++) {
        coh_names_block_t b = coh_report_names_block(reply, k);
        /* blocks of one allocation site are one object */
        uintptr_t key = 5381;
        for (const char *c = b.where; *c; c++)
            key = key * 33 + (unsigned char)*c;
        int obj = object_for(r, KIND_HEAP, key);
        object_t *o = &r->objects[obj];
        if (!o->where[0]) {
            memcpy(o->where, b.where, sizeof o->where);
            o->runtime = (int)b.runtime;
            o->start = b.start;
        }
        uint32_t j = 0;
        while (j < nseen && seen[j] != b.start)
            j++;
        if (j == nseen) {
            seen[nseen++] = b.start;
            o->nblocks++;
            o->size += b.size;
        }
        attach(of[b.item], obj, (uintptr_t)b.start,
               b.size ? (uintptr_t)(b.start + b.size) : UINTPTR_MAX);
    }
    free(seen);
    /* heap pages no recorded block covers */
    for (uint32_t k = 0; k < count; k++)
        if (!of[k]->nobjects) {
            int obj = object_for(r, KIND_OTHER, items[k].page_addr);
            object_t *o = &r->objects[obj];
            snprintf(o->name, sizeof o->name, "heap data (no allocation "
                     "recorded)");
            o->start = items[k].page_addr;
            o->size = DSM_PAGE_SIZE;
            attach(of[k], obj, o->start, o->start + DSM_PAGE_SIZE);
        }
    free(reply);
    free(items);
    free(of);
}

static int by_object_cost(const void *a, const void *b)
{
    double x = ((const object_t *)a)->cost, y = ((const object_t *)b)->cost;
    return x > y ? -1 : x < y;
}

static void build_objects(coh_sharing_report_t *r, size_t top,
                          coh_report_ask_fn ask)
{
    void *stack_lo;
    size_t stack_len;
    dsm_coh_main_stack(&stack_lo, &stack_len);
    for (size_t i = 0; i < top; i++) {
        merged_t *m = &r->pages[i];
        uintptr_t addr = coh_page_addr(m->page);
        if (addr - (uintptr_t)stack_lo < stack_len)
            name_stack(r, m);
        else if (coh_heap_arena_of(m->page) < 0)
            name_globals(r, m);
    }
    for (int n = 0; n < r->job->size; n++)
        if (n == 0 || r->job->node[n].hdr.sharing)
            name_heap_of(r, n, ask, top);
    /* the objects' figures; a page's cost is shared among its objects */
    for (size_t i = 0; i < top; i++) {
        merged_t *m = &r->pages[i];
        uintptr_t base = coh_page_addr(m->page);
        /* a page's cost is shared by the hot words each object holds */
        double weight[OBJECTS_PER_PAGE], total = 0;
        for (int k = 0; k < m->nobjects; k++) {
            weight[k] = 0;
            for (unsigned w = 0; w < 64 * COH_SHARING_MASK_WORDS; w++)
                if (hot(m, w) && base + 8u * w + 8 > m->lo[k] &&
                    base + 8u * w < m->hi[k])
                    weight[k]++;
            weight[k] = weight[k] ? weight[k] : 1;
            total += weight[k];
        }
        for (int k = 0; k < m->nobjects; k++) {
            object_t *o = &r->objects[m->objects[k]];
            double part = m->cost * weight[k] / total;
            o->cost += part;
            o->pattern_cost[classify(r, i, m->lo[k], m->hi[k])] += part;
            o->writers |= m->writers;
            o->readers |= m->readers;
            o->threads_read |= m->threads_read;
            o->threads_wrote |= m->threads_wrote;
            o->faults += m->read_faults + m->write_faults;
            o->fetches += m->fetches;
            o->diffs += m->diffs;
            o->diff_bytes += m->diff_bytes;
            o->atomics += m->atomics;
            o->migrations += m->migrations;
            if (o->npages < 8)
                o->pages[o->npages] = m->page;
            o->npages++;
        }
    }
    for (size_t i = 0; i < r->nobjects; i++) {
        object_t *o = &r->objects[i];
        enum pattern best = PAT_NONE;
        for (int p = 1; p < PAT_COUNT; p++)
            if (o->pattern_cost[p] > o->pattern_cost[best])
                best = (enum pattern)p;
        o->pattern = best;
        r->named_cost += o->cost;
    }
    /* the pages keep object indices: sort a copy for printing */
}

/* ---- flush call sites --------------------------------------------------------- */

static int by_sync_ns(const void *a, const void *b)
{
    uint64_t x = ((const sync_site_t *)a)->ns, y = ((const sync_site_t *)b)->ns;
    return x > y ? -1 : x < y;
}

static void merge_sync(coh_sharing_report_t *r)
{
    size_t cap = 0;
    for (int n = 0; n < r->job->size; n++)
        cap += r->job->node[n].hdr.nsync;
    r->sync = must(calloc(cap ? cap : 1, sizeof *r->sync));
    for (int n = 0; n < r->job->size; n++) {
        const coh_report_view_t *v = &r->job->node[n];
        for (uint32_t k = 0; k < v->hdr.nsync; k++) {
            coh_report_sync_t s = coh_report_sync_at(v, k);
            size_t i = 0;
            while (i < r->nsync && (r->sync[i].pc != s.pc ||
                                    r->sync[i].inside != s.inside))
                i++;
            if (i == r->nsync) {
                r->sync[i].pc = s.pc;
                r->sync[i].inside = s.inside;
                r->nsync++;
            }
            r->sync[i].count += s.count;
            r->sync[i].ns += s.ns;
        }
    }
    qsort(r->sync, r->nsync, sizeof *r->sync, by_sync_ns);
    uintptr_t *pcs = must(calloc(r->nsync ? r->nsync : 1, sizeof *pcs));
    char (*where)[COH_NAME_TEXT] = must(calloc(r->nsync ? r->nsync : 1,
                                               sizeof *where));
    for (size_t i = 0; i < r->nsync; i++)
        pcs[i] = r->sync[i].pc ? r->sync[i].pc : r->sync[i].inside;
    coh_report_where(pcs, r->nsync, 0, where);
    for (size_t i = 0; i < r->nsync; i++)
        memcpy(r->sync[i].where, where[i], COH_NAME_TEXT);
    free(pcs);
    free(where);
}

coh_sharing_report_t *coh_report_sharing_analyse(const coh_report_job_t *job,
                                                 coh_report_ask_fn ask)
{
    coh_sharing_report_t *r = must(calloc(1, sizeof *r));
    r->job = job;
    r->epochs = coh_sharing_epoch_count();
    merge(r);
    size_t top = r->npages < TOP_PAGES ? r->npages : TOP_PAGES;
    r->top = top;
    fill_parts(r);
    for (size_t i = 0; i < top; i++)
        r->pages[i].pattern = classify(r, i, 0, UINTPTR_MAX);
    build_objects(r, top, ask);
    merge_sync(r);
    return r;
}

void coh_report_sharing_free(coh_sharing_report_t *r)
{
    free(r->pages);
    free(r->per_node);
    free(r->objects);
    free(r->sync);
    free(r);
}

/* ---- text --------------------------------------------------------------------- */

/* "0-3,5,63+" from a bit set. */
static void list_bits(uint64_t bits, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = '\0';
    for (int b = 0; b < 64 && at < cap;) {
        if (!(bits >> b & 1)) {
            b++;
            continue;
        }
        int e = b;
        while (e + 1 < 63 && (bits >> (e + 1) & 1))
            e++;
        if (b == 63)
            at += (size_t)snprintf(out + at, cap - at, "%s63+", at ? "," : "");
        else if (e > b)
            at += (size_t)snprintf(out + at, cap - at, "%s%d-%d", at ? "," : "",
                                   b, e);
        else
            at += (size_t)snprintf(out + at, cap - at, "%s%d", at ? "," : "", b);
        b = e + 1;
    }
    if (!out[0])
        snprintf(out, cap, "none");
}

static void describe(const object_t *o, char *out, size_t cap)
{
    switch (o->kind) {
    case KIND_GLOBAL:
        snprintf(out, cap, "global `%s' (%" PRIu64 " byte%s at %#lx)",
                 o->name, o->size, o->size == 1 ? "" : "s",
                 (unsigned long)o->start);
        break;
    case KIND_HEAP:
        if (o->runtime)
            snprintf(out, cap, "memory the runtime allocated in %s "
                     "(a team thread's stack, a task, a copy)", o->where);
        else if (o->nblocks > 1)
            snprintf(out, cap, "%d heap blocks allocated at %s (%" PRIu64
                     " bytes)", o->nblocks, o->where, o->size);
        else
            snprintf(out, cap, "heap block allocated at %s (%" PRIu64
                     " bytes at %#lx)", o->where, o->size,
                     (unsigned long)o->start);
        break;
    case KIND_STACK:
        if (o->where[0])
            snprintf(out, cap, "local variables of %s on the master's stack "
                     "(its frame at the call at %s)", o->name, o->where);
        else
            snprintf(out, cap, "%s", o->name);
        break;
    default:
        snprintf(out, cap, "%s at %#lx", o->name, (unsigned long)o->start);
        break;
    }
}

static void advice(const object_t *o, const coh_sharing_report_t *r,
                   char *out, size_t cap)
{
    char writers[96], readers[96];
    list_bits(o->writers, writers, sizeof writers);
    list_bits(o->readers & ~o->writers, readers, sizeof readers);
    int migrate = dsm_config()->migrate_after;
    switch (o->pattern) {
    case PAT_FALSE_SHARING:
        snprintf(out, cap, "nodes %s write different parts of the same page "
                 "between the same barriers, and each write makes the other "
                 "nodes' copies stale: give each node's (thread's) part its "
                 "own page (pad or align it to 4096 bytes: aligned_alloc(4096, "
                 "...) or __attribute__((aligned(4096)))), or add up in a "
                 "private variable and write once at the end", writers);
        break;
    case PAT_PING_PONG:
        snprintf(out, cap, "nodes %s take turns writing it, so it travels "
                 "from node to node%s: let one node do these writes, or "
                 "combine the values with a reduction instead of updating the "
                 "shared copy", writers,
                 o->migrations ? " (and its home moves with it)" : "");
        break;
    case PAT_FLAG:
        snprintf(out, cap, "polled across nodes: every poll that finds it "
                 "changed is a round trip, and fetches the whole page again; "
                 "wait with a barrier, a lock or a taskwait instead, or keep "
                 "the flag alone in its own page so that polling it moves "
                 "nothing else");
        break;
    case PAT_HOMED_AWAY:
        snprintf(out, cap, "written by node %s in most phases but kept at "
                 "another node (its home), so each phase costs a twin and a "
                 "diff sent there: initialise it in a parallel loop with the "
                 "schedule of the loop that writes it (first touch)%s",
                 writers, migrate ? "" : ", or turn home migration on "
                 "(DSM_MIGRATE_AFTER=1; it is 0)");
        break;
    case PAT_COMMUNICATION:
        snprintf(out, cap, "written by node %s and read by node%s %s: data "
                 "that must move (shared boundaries, results); more work "
                 "between barriers moves it less often", writers,
                 strchr(readers, ',') || strchr(readers, '-') ? "s" : "",
                 readers);
        break;
    default:
        snprintf(out, cap, "no pattern recognised (little or mixed "
                 "traffic): the counts above say what it cost");
        break;
    }
    (void)r;
}

static int several(uint64_t bits) { return (bits & (bits - 1)) != 0; }

/* "node 1 (thread 2)", "nodes 0-2 (threads 0,2-5)", "no node" */
static void who(FILE *f, uint64_t nodes, const char *node_list,
                uint64_t threads, const char *thread_list)
{
    if (!nodes) {
        fprintf(f, "no node");
        return;
    }
    fprintf(f, "node%s %s", several(nodes) ? "s" : "", node_list);
    if (threads)
        fprintf(f, " (thread%s %s)", several(threads) ? "s" : "",
                thread_list);
}

void coh_report_sharing_text(FILE *f, const coh_sharing_report_t *r)
{
    object_t *sorted = must(calloc(r->nobjects ? r->nobjects : 1,
                                   sizeof *sorted));
    memcpy(sorted, r->objects, r->nobjects * sizeof *sorted);
    qsort(sorted, r->nobjects, sizeof *sorted, by_object_cost);
    fprintf(f, "dsm sharing report: the data the protocol spent its time on "
               "(protocol time %.1f ms on all nodes)\n",
            r->protocol_ns / 1e6);
    if (!r->nobjects)
        fprintf(f, "  no page cost the protocol anything worth naming\n");
    size_t shown = r->nobjects < TOP_OBJECTS ? r->nobjects : TOP_OBJECTS;
    for (size_t i = 0; i < shown; i++) {
        const object_t *o = &sorted[i];
        char what[2 * COH_NAME_TEXT + 128], text[1024], w[96], wt[96], rd[96],
            rt[96];
        describe(o, what, sizeof what);
        fprintf(f, "%2zu. %s\n", i + 1, what);
        fprintf(f, "    pattern: %s; cost %.2f ms (estimated, %.0f%% of the "
                   "protocol time), %d page%s\n",
                pattern_names[o->pattern], o->cost / 1e6,
                r->protocol_ns ? 100 * o->cost / r->protocol_ns : 0, o->npages,
                o->npages == 1 ? "" : "s");
        list_bits(o->writers, w, sizeof w);
        list_bits(o->readers, rd, sizeof rd);
        list_bits(o->threads_wrote, wt, sizeof wt);
        list_bits(o->threads_read, rt, sizeof rt);
        fprintf(f, "    written by ");
        who(f, o->writers, w, o->threads_wrote, wt);
        fprintf(f, ", read by ");
        who(f, o->readers, rd, o->threads_read, rt);
        fprintf(f, "\n    on its page%s: faults %" PRIu64 " (pages fetched %"
                   PRIu64 "), diffs %" PRIu64 " (%" PRIu64 " bytes), home "
                   "moves %" PRIu64 ", atomics %" PRIu64 "\n",
                o->npages == 1 ? "" : "s", o->faults, o->fetches, o->diffs,
                o->diff_bytes, o->migrations, o->atomics);
        advice(o, r, text, sizeof text);
        fprintf(f, "    advice: %s\n", text);
    }
    if (r->nobjects > shown)
        fprintf(f, "    (%zu more)\n", r->nobjects - shown);
    int shown_sync = 0;
    for (size_t i = 0; i < r->nsync && shown_sync < 5; i++) {
        const sync_site_t *s = &r->sync[i];
        if (s->ns < 1000000 && s->count < 1000)
            continue;
        if (!shown_sync++)
            fprintf(f, "flushes by call site (each reads every node's "
                       "write notices):\n");
        fprintf(f, "    %s: %" PRIu64 " flushes, %.2f ms%s\n", s->where,
                s->count, s->ns / 1e6,
                s->count >= 1000 ? " - a flag polled with flush? a barrier "
                                   "or a lock waits without polling" : "");
    }
    if (r->untracked)
        fprintf(f, "    (%" PRIu64 " events on pages beyond the report's "
                   "tables are not shown)\n", r->untracked);
    free(sorted);
}

/* ---- JSON --------------------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_bits(FILE *f, uint64_t bits)
{
    fputc('[', f);
    int first = 1;
    for (int b = 0; b < 64; b++)
        if (bits >> b & 1) {
            fprintf(f, "%s%d", first ? "" : ", ", b);
            first = 0;
        }
    fputc(']', f);
}

void coh_report_sharing_json(FILE *f, const coh_sharing_report_t *r)
{
    unsigned buckets = r->steps ? ((r->steps - 1) >> r->shift) + 1 : 1;
    if (buckets > COH_SHARING_BUCKETS)
        buckets = COH_SHARING_BUCKETS;
    fprintf(f, "{\"steps\": \"phases\", \"step_count\": %u, "
               "\"bucket_steps\": %u, \"buckets\": %u, \"page_size\": %zu, "
               "\"epochs\": %u, \"protocol_ns\": %.0f, "
               "\"untracked_events\": %" PRIu64 ",\n",
            r->steps, 1u << r->shift, buckets, DSM_PAGE_SIZE, r->epochs,
            r->protocol_ns, r->untracked);
    /* by cost, each with its index, which the pages refer to */
    size_t *order = must(calloc(r->nobjects ? r->nobjects : 1, sizeof *order));
    for (size_t i = 0; i < r->nobjects; i++)
        order[i] = i;
    for (size_t i = 1; i < r->nobjects; i++)
        for (size_t j = i; j > 0 && r->objects[order[j]].cost >
                                        r->objects[order[j - 1]].cost; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    fprintf(f, "  \"objects\": [");
    for (size_t n = 0; n < r->nobjects; n++) {
        size_t i = order[n];
        const object_t *o = &r->objects[i];
        char what[2 * COH_NAME_TEXT + 128], text[1024];
        describe(o, what, sizeof what);
        advice(o, r, text, sizeof text);
        fprintf(f, "%s\n   {\"id\": %zu, \"kind\": \"%s\", \"name\": ",
                n ? "," : "", i, kind_names[o->kind]);
        json_string(f, o->name);
        fprintf(f, ", \"where\": ");
        json_string(f, o->where);
        fprintf(f, ", \"description\": ");
        json_string(f, what);
        fprintf(f, ", \"address\": \"%#lx\", \"bytes\": %" PRIu64
                   ", \"cost_ns\": %.0f, \"pattern\": \"%s\", \"advice\": ",
                (unsigned long)o->start, o->size, o->cost,
                pattern_keys[o->pattern]);
        json_string(f, text);
        fprintf(f, ", \"writers\": ");
        json_bits(f, o->writers);
        fprintf(f, ", \"readers\": ");
        json_bits(f, o->readers);
        fprintf(f, ", \"threads_wrote\": ");
        json_bits(f, o->threads_wrote);
        fprintf(f, ", \"threads_read\": ");
        json_bits(f, o->threads_read);
        fprintf(f, ", \"pages\": %d}", o->npages);
    }
    free(order);
    fprintf(f, "],\n  \"pages\": [");
    size_t shown = r->npages < JSON_PAGES ? r->npages : JSON_PAGES;
    for (size_t i = 0; i < shown; i++) {
        const merged_t *m = &r->pages[i];
        fprintf(f, "%s\n   {\"page\": %u, \"address\": \"%#lx\", \"home\": %d, "
                   "\"cost_ns\": %.0f, \"pattern\": \"%s\", \"objects\": [",
                i ? "," : "", m->page, (unsigned long)coh_page_addr(m->page),
                coh.pages[m->page].home, m->cost,
                i < TOP_PAGES ? pattern_keys[m->pattern] : "none");
        for (int k = 0; k < m->nobjects; k++)
            fprintf(f, "%s%d", k ? ", " : "", m->objects[k]);
        fprintf(f, "], \"read_faults\": %u, \"write_faults\": %u, "
                   "\"fetches\": %u, \"diffs\": %u, \"diff_bytes\": %" PRIu64
                   ", \"atomics\": %u, \"migrations\": %u, \"writers\": ",
                m->read_faults, m->write_faults, m->fetches, m->diffs,
                m->diff_bytes, m->atomics, m->migrations);
        json_bits(f, m->writers);
        fprintf(f, ", \"readers\": ");
        json_bits(f, m->readers);
        fprintf(f, ", \"timeline\": [");
        for (unsigned b = 0; b < buckets; b++)
            fprintf(f, "%s%u", b ? ", " : "", m->timeline[b]);
        fprintf(f, "]}");
    }
    fprintf(f, "],\n  \"flush_sites\": [");
    for (size_t i = 0; i < r->nsync; i++) {
        fprintf(f, "%s\n   {\"where\": ", i ? "," : "");
        json_string(f, r->sync[i].where);
        fprintf(f, ", \"count\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
                r->sync[i].count, r->sync[i].ns);
    }
    fprintf(f, "]}");
}
