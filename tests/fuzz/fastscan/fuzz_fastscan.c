/* libFuzzer target for the compiled pre-check (bindings/python/verify_contract/_fastscan.c), without Python.
 *
 * Built by tests/fuzz/fastscan/harness.py with clang -fsanitize=fuzzer,address,undefined. The field tables
 * come from the resolved contract model: harness.py writes them (fastpath.field_table and
 * fastpath.clean_kinds of every version and profile) into the generated header fuzz_tables.h.
 *
 * Each input is a chunk of JSON Lines, scanned with one table (picked by its size). Memory safety is the
 * sanitizers' job; the harness adds the invariants that need no reference, and aborts when one breaks:
 *   - one status per line, lines as count_lines counts them, each line ending at its newline;
 *   - a status byte the Python side knows; blank exactly when the line is JSON whitespace only;
 *   - a memo key only on a line that asks the reference, of a kind that fits its status, naming a token or
 *     a member name that is in the line, a byte order mark the line starts with, or a known syntax or
 *     UTF-8 tag with a column or byte offset inside the line;
 *   - a line gets the same status and key alone, in an exact-size buffer, as in its chunk, with or without
 *     its newline: a read past the line's end then hits poisoned memory instead of the next line;
 *   - every UTF-8 validator the CPU runs (scalar, SSSE3, AVX2) gives the input the exact locator's verdict;
 *   - a table with the failure budget's group members (--group-by) gives each line the status and key of
 *     the same table without them: the members are recorded, never judged nor keyed, and reading on past a
 *     repeated name on no group path (for the line's groups) leaves the first one the line's key.
 * Agreement with the reference (verdicts, rule ids, counted facts) is checked by replaying the corpus
 * through the Python module: harness.py replay.
 */
#define FASTSCAN_CORE_ONLY
#include "_fastscan.c"

#include <sanitizer/asan_interface.h>
#include <stdlib.h>

#include "fuzz_tables.h"

typedef struct {
    int status;
    int keyed;
    size_t key_len;
    uint8_t key[MEMO_KEY_BYTES];
    size_t length; /* bytes of the line, its newline included */
} Line;

static Scanner scanner; /* the harness's one scanner, loaded with the table of each input */

static void load(size_t t) {
    if (!load_table(&scanner.table, FUZZ_TABLES[t].table, FUZZ_TABLES[t].table_len)) abort();
    if (!load_kinds(&scanner.kinds, FUZZ_TABLES[t].kinds, FUZZ_TABLES[t].kinds_len)) abort();
    /* as scan_budget with group fields: the walk reads on past a repeated name on no group path */
    if (FUZZ_TABLES[t].group_count) table_group_paths(&scanner.table, FUZZ_TABLES[t].group_fields, FUZZ_TABLES[t].group_count);
}

static const uint8_t *scan_one(const uint8_t *q, const uint8_t *end, Line *line) {
    Fields f;
    KeyBuf key;
    const uint8_t *next = scan_line(&scanner, q, end, &f, &key, &line->status, &line->keyed);
    line->key_len = line->keyed ? key.len : 0;
    if (line->key_len > MEMO_KEY_BYTES) abort();
    memcpy(line->key, key.buf, line->key_len);
    line->length = (size_t)(next - q);
    return next;
}

static int is_status(int status) {
    return status == STATUS_BLANK || (status >= 1 && status <= 12) || status == STATUS_TEXT ||
           status == STATUS_CONTRACT;
}

static int json_whitespace_only(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) return 0;
    return 1;
}

static int contains(const uint8_t *haystack, size_t n, const uint8_t *needle, size_t m) {
    if (m > n) return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(haystack + i, needle, m) == 0) return 1;
    return 0;
}

/* A key names what decides the line's outcome: 'N' a non-finite token and 'D' a member name (both in the
 * line, where the line asks the reference about its text), 'C' the contract fields of a strict-JSON line. */
static void check_key(const Line *line, const uint8_t *text, size_t n) {
    if (!line->keyed) return;
    if (line->status != STATUS_TEXT && line->status != STATUS_CONTRACT) abort();
    if (line->key_len == 0) abort();
    const uint8_t *body = line->key + 1;
    size_t m = line->key_len - 1;
    switch (line->key[0]) {
    case 'N':
        if (line->status != STATUS_TEXT) abort();
        if (!((m == 3 && memcmp(body, "NaN", 3) == 0) || (m == 8 && memcmp(body, "Infinity", 8) == 0) ||
              (m == 9 && memcmp(body, "-Infinity", 9) == 0)))
            abort();
        if (!contains(text, n, body, m)) abort();
        break;
    case 'D': {
        if (line->status != STATUS_TEXT) abort();
        if (memchr(text, '\\', n)) break; /* the name may be spelt with escapes */
        /* the name, in quotes, occurs at least twice */
        uint8_t quoted[MEMO_KEY_BYTES + 2];
        quoted[0] = '"';
        memcpy(quoted + 1, body, m);
        quoted[m + 1] = '"';
        size_t found = 0;
        for (size_t i = 0; i + m + 2 <= n && found < 2; i++) found += memcmp(text + i, quoted, m + 2) == 0;
        if (found < 2) abort();
        break;
    }
    case 'B':
        if (line->status != STATUS_TEXT || m != 0 || n < 3 || memcmp(text, "\xEF\xBB\xBF", 3) != 0) abort();
        break;
    case 'T':
        if (line->status != STATUS_TEXT || m != 0) abort();
        break;
    case 'S':
    case 'U': {
        /* tag ':' decimal [':' hex]: a known tag, a column or offset inside the line */
        if (line->status != STATUS_TEXT) abort();
        const char *const *tags = line->key[0] == 'S' ? syntax_tags : utf8_tags;
        int count = line->key[0] == 'S' ? TAG_COUNT : UTF8_COUNT, tag = -1;
        const uint8_t *colon = memchr(body, ':', m);
        if (!colon) abort();
        for (int i = 0; i < count; i++)
            if (strlen(tags[i]) == (size_t)(colon - body) && memcmp(tags[i], body, (size_t)(colon - body)) == 0) tag = i;
        if (tag < 0) abort();
        size_t number = 0;
        const uint8_t *q = colon + 1, *stop = body + m;
        if (q >= stop) abort();
        for (; q < stop && *q != ':'; q++) {
            if (*q < '0' || *q > '9') abort();
            number = number * 10 + (size_t)(*q - '0');
        }
        int coded = line->key[0] == 'S' && TAG_CODED(tag);
        if ((q < stop) != coded) abort();
        if (line->key[0] == 'S' ? number < 1 || number > n + 1 : number >= n) abort();
        if (coded) {
            q++;
            if (q >= stop) abort();
            for (; q < stop; q++)
                if (!((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F'))) abort();
        }
        break;
    }
    case 'C':
        break;
    default:
        abort();
    }
}

static int same_line(const Line *a, const Line *b) {
    return a->status == b->status && a->keyed == b->keyed && a->key_len == b->key_len &&
           memcmp(a->key, b->key, a->key_len) == 0;
}

/* The line [q, q + n) alone, in a buffer of exactly n bytes that ASan guards at both ends. A malloc per
 * line and table made inputs of many short lines a hundred times slower than the scan; instead the line
 * goes into a poisoned arena, with exactly its bytes unpoisoned (ASan tracks addressability per byte at
 * the end of an 8-byte granule). Longer lines than the arena (beyond -max_len) take a malloc. */
#define GUARD 64
#define ARENA_LINE 8192
static uint8_t arena[GUARD + ARENA_LINE + GUARD] __attribute__((aligned(64)));

static void alone(const uint8_t *q, size_t n, Line *line) {
    uint8_t *copy = arena + GUARD, *heap = NULL;
    if (n > ARENA_LINE) {
        copy = heap = malloc(n);
        if (!heap) abort();
    } else {
        ASAN_UNPOISON_MEMORY_REGION(copy, n);
    }
    memcpy(copy, q, n);
    const uint8_t *next = scan_one(copy, copy + n, line);
    if (next != copy + n) abort(); /* one line: nothing after it */
    if (heap) free(heap);
    else ASAN_POISON_MEMORY_REGION(copy, n);
}

/* Every UTF-8 validator this machine runs (utf8_run: scalar, SSSE3, AVX2) says of the bytes what the exact
 * scalar locator of text keys (utf8_error, Python's decoder's rules) says: valid or not. The copy sits in
 * the poisoned arena too, so a SIMD load past the end is reported. */
static void same_utf8_verdicts(const uint8_t *p, size_t n) {
    if (n > ARENA_LINE) return;
    uint8_t *copy = arena + GUARD;
    ASAN_UNPOISON_MEMORY_REGION(copy, n);
    memcpy(copy, p, n);
    size_t at;
    int reason;
    int valid = !utf8_error(copy, copy + n, &at, &reason);
    if (utf8_valid_with(utf8_run_scalar, copy, copy + n) != valid) abort();
#if defined(UTF8_SIMD)
    if (__builtin_cpu_supports("ssse3") && utf8_valid_with(utf8_run_ssse3, copy, copy + n) != valid) abort();
    if (__builtin_cpu_supports("avx2") && utf8_valid_with(utf8_run_avx2, copy, copy + n) != valid) abort();
#endif
    ASAN_POISON_MEMORY_REGION(copy, n);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ASAN_POISON_MEMORY_REGION(arena, sizeof arena);
    pick_utf8_run();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *end = data + size;
    size_t expected_lines = 0;
    for (size_t i = 0; i < size; i++) expected_lines += data[i] == '\n';
    expected_lines += size && data[size - 1] != '\n';
    same_utf8_verdicts(data, size);
    /* One table per input, picked by its size: every table at a sixth of the cost of all of them (the
     * replay in harness.py runs every input at every version and profile). */
    {
        size_t t = size % (sizeof FUZZ_TABLES / sizeof FUZZ_TABLES[0]);
        load(t);
        size_t lines = 0;
        for (const uint8_t *q = data; q < end; lines++) {
            Line line, single, bare;
            const uint8_t *next = scan_one(q, end, &line);
            if (next <= q || next > end) abort();
            size_t n = (size_t)(next - q);
            const uint8_t *newline = memchr(q, '\n', n);
            if (newline && newline != next - 1) abort(); /* the line ends at its first newline */
            if (!newline && next != end) abort();
            size_t text = newline ? n - 1 : n; /* the line without its newline */
            if (!is_status(line.status)) abort();
            if ((line.status == STATUS_BLANK) != json_whitespace_only(q, text)) abort();
            check_key(&line, q, text);
            alone(q, n, &single);
            if (!same_line(&line, &single)) abort();
            if (newline) {
                alone(q, text, &bare);
                if (!same_line(&line, &bare)) abort();
            }
            if (FUZZ_TABLES[t].plain >= 0) {
                /* group members (the budget's --group-by) are recorded but change no verdict nor memo key */
                Line plain;
                load((size_t)FUZZ_TABLES[t].plain);
                if (scan_one(q, end, &plain) != next || !same_line(&line, &plain)) abort();
                load(t);
            }
            q = next;
        }
        if (lines != expected_lines) abort();
    }
    return 0;
}
