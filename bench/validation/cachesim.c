/* Two-level write-back cache simulation of a valgrind lackey trace, for the two-level validation.
 *
 * cachegrind counts the misses of each level but models no write-backs.  This program reads the
 * data accesses of `valgrind --tool=lackey --trace-mem=yes` on standard input and simulates,
 * for every configuration given on the command line, an L1 and an L2 with LRU replacement,
 * write-allocate and write-back: the caches cachegrind simulates, plus dirty bits.  Every
 * configuration sees the same trace, so one (slow) lackey run serves all cache sizes.
 *
 * Usage: cachesim [-l LINE_BYTES] L1_BYTES:L1_WAYS:L2_BYTES:L2_WAYS ...
 *   WAYS 0 means fully associative (one set).
 * Output, one line per configuration, whole-run counts in lines:
 *   L1_BYTES:L1_WAYS:L2_BYTES:L2_WAYS l1_read_misses l1_write_misses l1_writebacks
 *       l2_read_misses l2_write_misses l2_writebacks l2_writeback_allocations
 *
 * Semantics, chosen to match cachegrind where cachegrind has an answer:
 *  - an access touches every line between its first and last byte; "M" (modify) is one read
 *    access that also dirties the line, counted with the reads as cachegrind does;
 *  - an L1 miss reads the line from L2 (an L2 miss reads it from memory); the L2 is filled on
 *    every L1 miss, and nothing is invalidated in L1 when L2 evicts (cachegrind's L2 is not
 *    strictly inclusive either);
 *  - a store dirties its L1 line; evicting a dirty L1 line writes it to L2, where it becomes
 *    the most recently used line and dirty (if L2 no longer holds it, it is allocated there
 *    without a read: a whole line is written); evicting a dirty L2 line writes it to memory;
 *  - instruction fetches ("I" lines) are ignored: cachegrind sends them through a separate L1
 *    to the L2, a few hundred lines in these programs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t *tag;     /* sets * ways, most recently used first within a set */
    unsigned char *dirty;
    unsigned *used;    /* valid lines per set */
    unsigned sets, ways;
    /* fully associative: a hash of line -> slot, and a doubly linked LRU list of slots */
    int full;
    unsigned capacity, count, head, tail, free_slot;
    unsigned *prev, *next;
    int64_t *table;    /* open addressing: slot index or -1 */
    unsigned table_mask;
} Cache;

typedef struct {
    uint64_t read_misses, write_misses, writebacks, writeback_allocations;
} Counts;

typedef struct {
    Cache l1, l2;
    Counts c1, c2;
    unsigned long l1_bytes, l2_bytes;
    unsigned l1_ways, l2_ways;
} Hierarchy;

static unsigned line_shift = 6;
#define NONE 0xffffffffu

static void die(const char *what)
{
    fprintf(stderr, "cachesim: %s\n", what);
    exit(2);
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

static void cache_init(Cache *c, unsigned long bytes, unsigned ways)
{
    unsigned long lines = bytes >> line_shift;
    memset(c, 0, sizeof *c);
    if (lines == 0)
        die("cache smaller than a line");
    if (ways == 0) {
        c->full = 1;
        c->capacity = (unsigned)lines;
        c->tag = zalloc(lines, sizeof *c->tag);
        c->dirty = zalloc(lines, 1);
        c->prev = zalloc(lines, sizeof *c->prev);
        c->next = zalloc(lines, sizeof *c->next);
        unsigned size = 1;
        while (size < 2 * lines)
            size <<= 1;
        c->table = malloc(size * sizeof *c->table);
        if (!c->table)
            die("out of memory");
        for (unsigned i = 0; i < size; i++)
            c->table[i] = -1;
        c->table_mask = size - 1;
        c->head = c->tail = NONE;
        return;
    }
    if (lines % ways)
        die("size is not a whole number of sets");
    c->sets = (unsigned)(lines / ways);
    if (c->sets & (c->sets - 1))
        die("number of sets is not a power of two");
    c->ways = ways;
    c->tag = zalloc(lines, sizeof *c->tag);
    c->dirty = zalloc(lines, 1);
    c->used = zalloc(c->sets, sizeof *c->used);
}

/* ---- fully associative: hash with linear probing and backward-shift deletion */

static unsigned hash(uint64_t line, unsigned mask)
{
    return (unsigned)((line * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

static int64_t *find_slot(Cache *c, uint64_t line)
{
    unsigned h = hash(line, c->table_mask);
    while (c->table[h] >= 0 && c->tag[c->table[h]] != line)
        h = (h + 1) & c->table_mask;
    return &c->table[h];
}

static void table_remove(Cache *c, uint64_t line)
{
    unsigned h = (unsigned)(find_slot(c, line) - c->table);
    unsigned j = h;
    c->table[h] = -1;
    for (;;) {
        j = (j + 1) & c->table_mask;
        if (c->table[j] < 0)
            return;
        unsigned want = hash(c->tag[c->table[j]], c->table_mask);
        /* move the entry back if its home position is not within (h, j] */
        if ((j > h && (want <= h || want > j)) || (j < h && (want <= h && want > j))) {
            c->table[h] = c->table[j];
            c->table[j] = -1;
            h = j;
        }
    }
}

static void list_unlink(Cache *c, unsigned s)
{
    if (c->prev[s] != NONE) c->next[c->prev[s]] = c->next[s]; else c->head = c->next[s];
    if (c->next[s] != NONE) c->prev[c->next[s]] = c->prev[s]; else c->tail = c->prev[s];
}

static void list_front(Cache *c, unsigned s)
{
    c->prev[s] = NONE;
    c->next[s] = c->head;
    if (c->head != NONE) c->prev[c->head] = s;
    c->head = s;
    if (c->tail == NONE) c->tail = s;
}

/* Look a line up; on a hit make it most recently used and return 1.  With `insert`, a miss
 * inserts it (evicting the least recently used line into *victim, *victim_dirty). */
static int cache_access(Cache *c, uint64_t line, int make_dirty, int insert,
                        uint64_t *victim, int *victim_dirty)
{
    *victim_dirty = -1; /* no eviction */
    if (c->full) {
        int64_t *slot = find_slot(c, line);
        if (*slot >= 0) {
            unsigned s = (unsigned)*slot;
            list_unlink(c, s);
            list_front(c, s);
            c->dirty[s] |= (unsigned char)make_dirty;
            return 1;
        }
        if (!insert)
            return 0;
        unsigned s;
        if (c->count < c->capacity) {
            s = c->count++;
        } else {
            s = c->tail;
            *victim = c->tag[s];
            *victim_dirty = c->dirty[s];
            list_unlink(c, s);
            table_remove(c, c->tag[s]);
            slot = find_slot(c, line); /* the removal may have moved entries */
        }
        c->tag[s] = line;
        c->dirty[s] = (unsigned char)make_dirty;
        *slot = s;
        list_front(c, s);
        return 0;
    }
    unsigned set = (unsigned)(line & (c->sets - 1));
    uint64_t *tags = c->tag + (size_t)set * c->ways;
    unsigned char *dirty = c->dirty + (size_t)set * c->ways;
    unsigned used = c->used[set];
    for (unsigned w = 0; w < used; w++) {
        if (tags[w] == line) {
            unsigned char d = dirty[w] | (unsigned char)make_dirty;
            memmove(tags + 1, tags, w * sizeof *tags);
            memmove(dirty + 1, dirty, w);
            tags[0] = line;
            dirty[0] = d;
            return 1;
        }
    }
    if (!insert)
        return 0;
    if (used == c->ways) {
        *victim = tags[used - 1];
        *victim_dirty = dirty[used - 1];
        used--;
    } else {
        c->used[set] = used + 1;
    }
    memmove(tags + 1, tags, used * sizeof *tags);
    memmove(dirty + 1, dirty, used);
    tags[0] = line;
    dirty[0] = (unsigned char)make_dirty;
    return 0;
}

static void l2_writeback(Hierarchy *h, uint64_t line)
{
    uint64_t victim;
    int victim_dirty;
    if (!cache_access(&h->l2, line, 1, 1, &victim, &victim_dirty))
        h->c2.writeback_allocations++;
    if (victim_dirty == 1)
        h->c2.writebacks++;
}

static void access_line(Hierarchy *h, uint64_t line, int is_store, int dirties)
{
    uint64_t victim;
    int victim_dirty;
    if (cache_access(&h->l1, line, dirties, 1, &victim, &victim_dirty))
        return;
    if (is_store) h->c1.write_misses++; else h->c1.read_misses++;
    if (victim_dirty == 1) {
        h->c1.writebacks++;
        l2_writeback(h, victim);
    }
    uint64_t victim2;
    int victim2_dirty;
    if (!cache_access(&h->l2, line, 0, 1, &victim2, &victim2_dirty)) {
        if (is_store) h->c2.write_misses++; else h->c2.read_misses++;
    }
    if (victim2_dirty == 1)
        h->c2.writebacks++;
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-l") == 0) {
        unsigned long bytes = strtoul(argv[2], NULL, 10);
        line_shift = 0;
        while ((1ul << line_shift) < bytes)
            line_shift++;
        if ((1ul << line_shift) != bytes)
            die("line size must be a power of two");
        first = 3;
    }
    int n = argc - first;
    if (n <= 0)
        die("usage: cachesim [-l LINE_BYTES] L1_BYTES:L1_WAYS:L2_BYTES:L2_WAYS ...");
    Hierarchy *hs = zalloc((size_t)n, sizeof *hs);
    for (int i = 0; i < n; i++) {
        Hierarchy *h = &hs[i];
        if (sscanf(argv[first + i], "%lu:%u:%lu:%u", &h->l1_bytes, &h->l1_ways, &h->l2_bytes,
                   &h->l2_ways) != 4)
            die("configuration must be L1_BYTES:L1_WAYS:L2_BYTES:L2_WAYS");
        cache_init(&h->l1, h->l1_bytes, h->l1_ways);
        cache_init(&h->l2, h->l2_bytes, h->l2_ways);
    }
    static char buffer[1 << 20];
    setvbuf(stdin, NULL, _IOFBF, sizeof buffer);
    char text[256];
    while (fgets(text, sizeof text, stdin)) {
        /* data accesses: " L addr,size", " S addr,size", " M addr,size" */
        if (text[0] != ' ' || (text[1] != 'L' && text[1] != 'S' && text[1] != 'M'))
            continue;
        char *end;
        uint64_t addr = strtoull(text + 3, &end, 16);
        if (*end != ',')
            continue;
        unsigned long size = strtoul(end + 1, NULL, 10);
        if (size == 0)
            continue;
        int is_store = text[1] == 'S';
        int dirties = text[1] != 'L';
        uint64_t last = (addr + size - 1) >> line_shift;
        for (uint64_t line = addr >> line_shift; line <= last; line++)
            for (int i = 0; i < n; i++)
                access_line(&hs[i], line, is_store, dirties);
    }
    for (int i = 0; i < n; i++) {
        Hierarchy *h = &hs[i];
        printf("%lu:%u:%lu:%u %llu %llu %llu %llu %llu %llu %llu\n", h->l1_bytes, h->l1_ways,
               h->l2_bytes, h->l2_ways,
               (unsigned long long)h->c1.read_misses, (unsigned long long)h->c1.write_misses,
               (unsigned long long)h->c1.writebacks, (unsigned long long)h->c2.read_misses,
               (unsigned long long)h->c2.write_misses, (unsigned long long)h->c2.writebacks,
               (unsigned long long)h->c2.writeback_allocations);
    }
    return 0;
}
