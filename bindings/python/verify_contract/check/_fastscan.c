/* The fast path of `verify-contract check`: one pass over a buffer of JSONL lines.
 *
 * For each line it answers either "certainly valid and clean" (no finding at all from the reference
 * validator: strict parse per reference/_jsonio.py, schema, semantic rules) together with the few counts the report
 * counts (effective mask, legacy mask in use, failure-kind class), or "ask the reference". So this scanner
 * may be conservative but must never call clean what the reference would not: tests/check/test_differential.py
 * holds it to that.
 *
 * For a line it cannot settle it may add a memo key: bytes that determine the reference's whole outcome
 * for the line (check/_lines.py looks the key up, and asks the reference once per new key). Two kinds:
 *   - 'C' (contract): the text is strict JSON with no JSON-rule defect; the key holds every input of the
 *     schema and semantic rules and of the counts (the constrained top-level members: a type byte,
 *     plus the raw value bytes wherever the value itself can matter).
 *   - 'N' / 'D' (text event): the line's first defect in text order (SPEC 2.1, the reference's one
 *     finding for it) is a NaN/Infinity token where a value belongs (key: the token) or a repeated member
 *     name, at its second occurrence (key: the raw name), and the whole line is valid UTF-8 (a line that
 *     is not gets json-syntax whatever its defects). The scan stops at the first thing it cannot follow
 *     exactly (syntax errors, escaped names, huge objects, deep nesting, big numbers, lone surrogates), so
 *     everything before an event is known to be free of defects: the event is the first defect.
 *   - 'B' / 'U' / 'S' / 'N' / 'D' / 'T' (text key): a line the scan stopped on is read again by text_key()
 *     (below), which names its first defect exactly as jsonio.parse_json would, or gives no key.
 *
 * Status byte per line: 0 blank, 1..12 clean (1 + masked + 2*legacy + 4*failure-kind class), and
 * STATUS_TEXT (the JSON text itself may break a rule) or STATUS_CONTRACT (the text is strict JSON with
 * no duplicate key, no deep nesting, only finite numbers and small integers, but a contract field needs
 * the reference's judgement).
 *
 * This file knows no contract field. The contract's shape arrives with each call as a field table built
 * from the resolved contract model (check/_fastpath.py's field_table): every member the profile declares, at every
 * depth, with its parent, the JSON types it may have, whether the profile requires it, its SPEC role
 * (mask, legacy mask, failure kind) and its constraint class: PLAIN (no constraint beyond the types),
 * KIND (the failure-kind grammar below plus the registry, passed as `kinds`) or UNSURE (constraints this
 * scanner does not implement: a line holding the member is never clean, it goes to the reference).
 */
#ifndef FASTSCAN_CORE_ONLY /* the fuzz harness (tests/fuzz/fastscan) compiles the scanner without Python */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define STATUS_BLANK 0
#define STATUS_TEXT 254
#define STATUS_CONTRACT 253

/* The one failure-kind grammar kind_class() implements; fastpath gives a field the KIND class only when
 * the model's grammar is this very pattern (any other grammar makes the field UNSURE). */
#define KIND_GRAMMAR "^[a-z][a-z0-9_]*(:[a-z][a-z0-9_]*)?$"
#define SEM_LEGACY 1 /* the version declares the legacy mask: legacy-mask-only/-divergent apply */
#define SEM_KIND 2   /* the version declares the failure kind: registry rules apply */
#define MAX_FIELDS 64
#define NODE_NONE 255 /* a container that is not a table field with members */

#define MAX_DEPTH 100       /* the model's limits.max_depth; fastpath declines a model with another */
#define MAX_OBJECT_KEYS 256 /* beyond this, duplicate detection is left to the reference */
#define KEY_STACK 8192
#define MAX_NUMBER_CHARS 1000
#define MEMO_KEY_BYTES 512 /* longer memo keys are not made: such lines take the reference path */

/* T_NUM: a number with a fraction or an exponent; T_INT: an integer literal. */
enum { T_NONE = 0, T_OBJ, T_ARR, T_STR, T_NUM, T_TRUE, T_FALSE, T_NULL, T_INT };
enum { CLASS_PLAIN = 0, CLASS_KIND, CLASS_UNSURE };
/* ROLE_GROUP: a member the failure budget groups by (or one on its path), not a contract field: it is
 * recorded like a field but never in a memo key, so a table with group members keys lines alike. */
enum { ROLE_NONE = 0, ROLE_MASK, ROLE_LEGACY_MASK, ROLE_KIND, ROLE_GROUP };
#define F_NONE 0
#define F_COUNT (MAX_FIELDS + 1) /* fields are numbered from 1; 0 is "no field" */
enum { SCAN_UNSURE = 0, SCAN_OK, SCAN_NAN, SCAN_DUP };

typedef struct {
    const uint8_t *p;
    uint32_t len;
} Key;

typedef struct {
    uint8_t parent; /* the parent field's number; 0: the document */
    uint8_t cls;
    uint8_t role;
    uint8_t required; /* the profile requires the member whenever its parent is an object */
    uint16_t types;   /* allowed types: bit (1 << T_x) */
    uint8_t has_members;
    uint32_t len;
    const uint8_t *name;
} FieldSpec;

typedef struct {
    int count;
    int sem;
    uint8_t mask, legacy, kind; /* the numbers of the role fields, 0 when absent */
    FieldSpec field[F_COUNT];   /* field[1..count] */
    /* Name look-up per node (0: the document): the first member whose name has n bytes (names are at most 255 bytes; a longer one lands in the bucket of its length mod 256 and fails the length compare),
     * then the next member of the same node and length; 0 ends the chain. Most names need one compare. */
    uint8_t first[F_COUNT][256];
    uint8_t next[F_COUNT];
    uint64_t head[F_COUNT]; /* each name's first 8 bytes, zero-padded */
    uint64_t tail[F_COUNT]; /* and its last 8 (names of 8 bytes or more) */
    uint32_t len[F_COUNT];
    /* The types a present value may have for its line to be clean, from the field's types and class. */
    uint16_t clean[F_COUNT];
    uint8_t required[F_COUNT];
    /* How many fields the profile requires. A line is clean only if it holds them all, so a required
     * member under a parent that is not an object makes the line ask the reference: conservative. */
    int required_count;
    /* With the failure budget's groups (table_group_paths): the group fields and every field above one. A
     * repeated member name none of them has then does not end the walk (read_name): the line keeps its
     * status and key, and its group members are read on. Zero for a plain scan. */
    int read_past_repeats;
    uint8_t on_group_path[F_COUNT];
} Table;

typedef struct {
    uint8_t is_obj;
    uint8_t node; /* the table field whose members this object holds (0: the document), or NODE_NONE */
    uint8_t pending; /* field of the member whose value comes next */
    uint8_t field;   /* field whose value this container is */
    uint32_t key_base;
    uint32_t nkeys;
    uint64_t seen; /* one bit per name hash: most names need no comparison at all */
} Frame;

typedef struct {
    /* what every line touches first, in one cache line */
    int wide_int; /* an integer beyond 18 digits: orjson and json would not agree on it */
    unsigned unclean; /* a field holds a type or a value the table does not let through as clean */
    int required_seen;
    uint8_t type[F_COUNT];
    /* the event of SCAN_NAN / SCAN_DUP: the token or the raw member name */
    const uint8_t *event;
    size_t event_len;
    const uint8_t *start[F_COUNT];
    const uint8_t *stop[F_COUNT];
    int scanned; /* the whole document was read (SCAN_OK): the field spans above are the line's */
    /* SCAN_DUP with Table.read_past_repeats: the walk read on past the line's repeated names (none on a group
     * path) to its end, so the group members recorded are the values a parse finds */
    int past_repeats;
} Fields;

/* scan_document's stacks: the member names of the open objects (duplicate detection) and the open
 * containers. Part of a call's Scanner (below), never shared between calls. */
typedef struct {
    Key keys[KEY_STACK];
    Frame frames[MAX_DEPTH + 2];
} DocStacks;

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define HAS_ZERO(v) (((v) - ONES) & ~(v) & HIGHS)
#define HAS_LESS(v, n) (((v) - ONES * (n)) & ~(v) & HIGHS)
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
#endif
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
#else
#define HOT static inline
#define NOINLINE
#endif

/* JSON whitespace except the newline, which ends the line: no token accepts it, so the parse stops there. */
HOT const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end) {
    if (p < end && *p == ' ') p++; /* the usual single space after ':' or ',' */
    while (p < end && *p <= ' ' && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    return p;
}

/* The first byte at or after p that is '"', '\\', a control character or not ASCII; or end. */
HOT const uint8_t *string_special(const uint8_t *p, const uint8_t *end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        /* signed compare: bytes >= 0x80 are negative, so "< 0x20" catches them with the controls */
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                 _mm_cmplt_epi8(x, space));
        int mask = _mm_movemask_epi8(m);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#elif defined(SWAR)
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        /* the lowest flagged byte is exact (borrows only spoil the bytes above it) */
        uint64_t special = HAS_ZERO(x ^ (ONES * '"')) | HAS_ZERO(x ^ (ONES * '\\')) | HAS_LESS(x, 0x20) | (x & HIGHS);
        if (special) return p + (__builtin_ctzll(special) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    return p;
}

/* The first newline or non-ASCII byte at or after p; or end. */
static inline const uint8_t *line_special(const uint8_t *p, const uint8_t *end) {
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, newline), x));
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (p < end && *p != '\n' && *p < 0x80) p++;
    return p;
}

/* The value of four hex digits at p, or -1. */
static inline int hex4(const uint8_t *p, const uint8_t *end) {
    if (end - p < 4) return -1;
    int value = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t c = p[i];
        int digit;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        else return -1;
        value = value * 16 + digit;
    }
    return value;
}

/* One UTF-8 sequence starting at *pp (a byte >= 0x80), as strictly as Python's decoder: no overlong
 * forms, no surrogates, nothing above U+10FFFF. Returns 0 on a bad sequence. */
static inline int utf8_seq(const uint8_t **pp, const uint8_t *end) {
    const uint8_t *p = *pp;
    uint8_t c = p[0];
    int n;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) { n = 2; lo = 0xA0; }
    else if (c == 0xED) { n = 2; hi = 0x9F; }
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) { n = 3; lo = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) { n = 3; hi = 0x8F; }
    else return 0;
    if (end - p <= n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i <= n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    *pp = p + n + 1;
    return 1;
}

/* The end of the line that holds p (its newline, or end) if the rest of it is valid UTF-8; else NULL. */
static const uint8_t *utf8_line_end(const uint8_t *p, const uint8_t *end) {
    for (;;) {
        p = line_special(p, end);
        if (p >= end || *p == '\n') return p;
        if (!utf8_seq(&p, end)) return NULL;
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * UTF-8 in strings at SIMD speed. string_special() stops at the first non-ASCII byte of a string; from there
 * utf8_run() reads on to the next '"', '\\' or control byte and says whether every byte before it is
 * well-formed UTF-8 (as strictly as Python's decoder: no overlong forms, no surrogates, nothing above
 * U+10FFFF, no sequence cut short). On x86-64 it is the lookup algorithm of Keiser and Lemire ("Validating
 * UTF-8 In Less Than One Instruction Per Byte", 2021; simdjson's and simdutf's validator): three 16-entry
 * table look-ups classify each pair of adjacent bytes, and a saturating subtraction marks the bytes two or
 * three after a 3- or 4-byte lead, which must be continuations. Each byte's error bits involve only it and
 * the three bytes before it, so the prefix before the stopping byte is valid exactly when no error bit is
 * set at or before that byte (a sequence the stopping byte cuts short flags the stopping byte itself).
 * AVX2 (32 bytes a step) or SSSE3 (16) is picked at run time (__builtin_cpu_supports); other CPUs and
 * compilers take utf8_run_scalar, which also serves as the fuzzers' reference. The exact offset and reason
 * of an error are not needed here: the scan gives up, and text_key() locates the error byte by byte.
 * (simdutf, the well-kept library of this algorithm, is C++ and validates whole buffers; the JSON scan
 * needs it fused with the search for the string's end, in a C extension, so the ~80 lines live here.)
 *
 * utf8_run(p, end): p is a non-ASCII byte that starts a sequence. Returns the first '"', '\\' or byte below
 * 0x20 at or after p if all of [p, it) is UTF-8; end if there is none and [p, end) is UTF-8; else NULL
 * (a caller may treat end and NULL alike: a string that reaches the end is cut anyway). */
typedef const uint8_t *(*Utf8Run)(const uint8_t *p, const uint8_t *end);

static const uint8_t *utf8_run_scalar(const uint8_t *p, const uint8_t *end) {
    for (;;) {
        if (!utf8_seq(&p, end)) return NULL;
        p = string_special(p, end);
        if (p >= end || *p < 0x80) return p;
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(FASTSCAN_NO_SIMD)
#define UTF8_SIMD 1
#include <immintrin.h>

/* The Keiser-Lemire tables: bit flags of the error classes a byte pair may be in. */
#define TOO_SHORT (1 << 0)  /* a lead byte or ASCII, then a lead byte or ASCII where a continuation belongs */
#define TOO_LONG (1 << 1)   /* ASCII, then a continuation */
#define OVERLONG_3 (1 << 2) /* E0 80..9F */
#define TOO_LARGE (1 << 3)  /* F4 90..BF, F5.. */
#define SURROGATE (1 << 4)  /* ED A0..BF */
#define OVERLONG_2 (1 << 5) /* C0..C1 */
#define TOO_LARGE_1000 (1 << 6)
#define OVERLONG_4 (1 << 6) /* F0 80..8F */
#define TWO_CONTS (-128)    /* bit 7 (0x80 as a signed char): two continuations, which must23 then sorts out */
#define CARRY (TOO_SHORT | TOO_LONG | TWO_CONTS)
#define BYTE_1_HIGH                                                                                          \
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TWO_CONTS, TWO_CONTS,    \
        TWO_CONTS, TWO_CONTS, TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,          \
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4
#define BYTE_1_LOW                                                                                           \
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,        \
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,                              \
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,                              \
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,                              \
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,                              \
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,                  \
        CARRY | TOO_LARGE | TOO_LARGE_1000
#define BYTE_2_HIGH                                                                                          \
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,                  \
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,                         \
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,                                          \
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,                                           \
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT

/* The last bytes of a block must be read with the next: a copy padded with '"' ends the string there, and
 * a sequence cut by the end then flags the padding quote (TOO_SHORT or must23). */
#define UTF8_PAD '"'

__attribute__((target("ssse3"))) static const uint8_t *utf8_run_ssse3(const uint8_t *p, const uint8_t *end) {
    const __m128i t1 = _mm_setr_epi8(BYTE_1_HIGH), t2 = _mm_setr_epi8(BYTE_1_LOW), t3 = _mm_setr_epi8(BYTE_2_HIGH);
    const __m128i nibble = _mm_set1_epi8(0x0F), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1F), zero = _mm_setzero_si128();
    const __m128i third = _mm_set1_epi8((char)(0xE0 - 0x80)), fourth = _mm_set1_epi8((char)(0xF0 - 0x80));
    const __m128i high = _mm_set1_epi8((char)0x80);
    __m128i prev = zero; /* p starts a sequence: what came before it is complete */
    uint8_t pad[16];
    for (;;) {
        const uint8_t *block = p;
        __m128i x;
        if (end - p >= 16) {
            x = _mm_loadu_si128((const __m128i *)p);
        } else {
            memset(pad, UTF8_PAD, sizeof pad);
            memcpy(pad, p, (size_t)(end - p));
            x = _mm_loadu_si128((const __m128i *)pad);
        }
        __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                       _mm_cmpeq_epi8(_mm_max_epu8(x, control), control));
        __m128i prev1 = _mm_alignr_epi8(x, prev, 15), prev2 = _mm_alignr_epi8(x, prev, 14),
                prev3 = _mm_alignr_epi8(x, prev, 13);
        __m128i classes = _mm_and_si128(
            _mm_and_si128(_mm_shuffle_epi8(t1, _mm_and_si128(_mm_srli_epi16(prev1, 4), nibble)),
                          _mm_shuffle_epi8(t2, _mm_and_si128(prev1, nibble))),
            _mm_shuffle_epi8(t3, _mm_and_si128(_mm_srli_epi16(x, 4), nibble)));
        __m128i must23 = _mm_and_si128(_mm_or_si128(_mm_subs_epu8(prev2, third), _mm_subs_epu8(prev3, fourth)), high);
        unsigned errors = 0xFFFFu & ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_xor_si128(must23, classes), zero));
        unsigned stops = (unsigned)_mm_movemask_epi8(special);
        if (stops) {
            unsigned first = stops & (0u - stops);
            if (errors & (first | (first - 1))) return NULL;
            const uint8_t *stop = block + __builtin_ctz(stops);
            return stop < end ? stop : end;
        }
        if (errors) return NULL;
        prev = x;
        p += 16;
    }
}

__attribute__((target("avx2"))) static const uint8_t *utf8_run_avx2(const uint8_t *p, const uint8_t *end) {
    const __m256i t1 = _mm256_setr_epi8(BYTE_1_HIGH, BYTE_1_HIGH), t2 = _mm256_setr_epi8(BYTE_1_LOW, BYTE_1_LOW),
                  t3 = _mm256_setr_epi8(BYTE_2_HIGH, BYTE_2_HIGH);
    const __m256i nibble = _mm256_set1_epi8(0x0F), quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    const __m256i control = _mm256_set1_epi8(0x1F), zero = _mm256_setzero_si256();
    const __m256i third = _mm256_set1_epi8((char)(0xE0 - 0x80)), fourth = _mm256_set1_epi8((char)(0xF0 - 0x80));
    const __m256i high = _mm256_set1_epi8((char)0x80);
    __m256i prev = zero;
    uint8_t pad[32];
    for (;;) {
        const uint8_t *block = p;
        __m256i x;
        if (end - p >= 32) {
            x = _mm256_loadu_si256((const __m256i *)p);
        } else {
            memset(pad, UTF8_PAD, sizeof pad);
            memcpy(pad, p, (size_t)(end - p));
            x = _mm256_loadu_si256((const __m256i *)pad);
        }
        __m256i special =
            _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, backslash)),
                            _mm256_cmpeq_epi8(_mm256_max_epu8(x, control), control));
        /* the bytes 1, 2 and 3 before each byte: alignr works per 128-bit lane, so join the lanes first */
        __m256i joined = _mm256_permute2x128_si256(prev, x, 0x21);
        __m256i prev1 = _mm256_alignr_epi8(x, joined, 15), prev2 = _mm256_alignr_epi8(x, joined, 14),
                prev3 = _mm256_alignr_epi8(x, joined, 13);
        __m256i classes = _mm256_and_si256(
            _mm256_and_si256(_mm256_shuffle_epi8(t1, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble)),
                             _mm256_shuffle_epi8(t2, _mm256_and_si256(prev1, nibble))),
            _mm256_shuffle_epi8(t3, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
        __m256i must23 =
            _mm256_and_si256(_mm256_or_si256(_mm256_subs_epu8(prev2, third), _mm256_subs_epu8(prev3, fourth)), high);
        uint32_t errors = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_xor_si256(must23, classes), zero));
        uint32_t stops = (uint32_t)_mm256_movemask_epi8(special);
        if (stops) {
            uint32_t first = stops & (0u - stops);
            if (errors & (first | (first - 1))) return NULL;
            const uint8_t *stop = block + __builtin_ctz(stops);
            return stop < end ? stop : end;
        }
        if (errors) return NULL;
        prev = x;
        p += 32;
    }
}
#endif

/* The process's one choice of UTF-8 validator: a property of the CPU, not of a call, written at each module
 * load with the same value (the only static state a scan reads; every table is the call's own). */
static Utf8Run utf8_run = utf8_run_scalar;
static const char *utf8_run_name = "scalar";

/* Picks the fastest utf8_run the CPU runs (at module load). */
static void pick_utf8_run(void) {
#if defined(UTF8_SIMD)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        utf8_run = utf8_run_avx2;
        utf8_run_name = "avx2";
    } else if (__builtin_cpu_supports("ssse3")) {
        utf8_run = utf8_run_ssse3;
        utf8_run_name = "ssse3";
    }
#endif
}

/* Whether [p, end) is UTF-8, by one utf8_run: the fuzz harness and tests compare every implementation
 * with the scalar one and with Python's decoder. */
static int utf8_valid_with(Utf8Run run, const uint8_t *p, const uint8_t *end) {
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        p = run(p, end);
        if (!p) return 0;
    }
    return 1;
}

/* A string whose opening quote is at p[-1]: a pointer past the closing quote, or NULL. */
HOT const uint8_t *scan_string(const uint8_t *p, const uint8_t *end, int *escaped) {
    for (;;) {
        p = string_special(p, end);
        if (p >= end) return NULL;
        uint8_t c = *p;
        if (c == '"') return p + 1;
        if (c == '\\') {
            *escaped = 1;
            if (end - p < 2) return NULL;
            uint8_t e = p[1];
            if (e == 'u') {
                int u = hex4(p + 2, end);
                if (u < 0) return NULL;
                p += 6;
                /* jsonio refuses unpaired surrogates: a high one must be followed at once by a low one */
                if (u >= 0xDC00 && u <= 0xDFFF) return NULL;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return NULL;
                    int low = hex4(p + 2, end);
                    if (low < 0xDC00 || low > 0xDFFF) return NULL;
                    p += 6;
                }
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                       e == 't') {
                p += 2;
            } else {
                return NULL;
            }
            continue;
        }
        if (c < 0x20) return NULL;
        p = utf8_run(p, end); /* on to the next '"', '\\' or control byte, validating UTF-8 */
        if (!p) return NULL;
    }
}

/* Past a run of ASCII digits; eight at a time where the byte order allows. */
HOT const uint8_t *skip_digits(const uint8_t *p, const uint8_t *end) {
#if defined(SWAR)
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        /* a byte is a digit when its high nibble is 3 before and after adding 6 */
        uint64_t t = ((x & (ONES * 0xF0)) ^ (ONES * 0x30)) | (((x + ONES * 0x06) & (ONES * 0xF0)) ^ (ONES * 0x30));
        if (t) return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p >= '0' && *p <= '9') p++;
    return p;
}

/* A number per Python's json grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
 * A float is accepted only when it is certainly finite as a double; big integers only when short enough
 * for Python's int() (the reference keeps integers as int). */
HOT const uint8_t *scan_number(const uint8_t *p, const uint8_t *end, int *wide, int *fraction) {
    const uint8_t *start = p;
    if (p < end && *p == '-') p++;
    if (p >= end) return NULL;
    long int_digits;
    if (*p == '0') {
        p++;
        int_digits = 0;
    } else if (*p >= '1' && *p <= '9') {
        const uint8_t *d = p;
        p = skip_digits(p, end);
        int_digits = (long)(p - d);
    } else {
        return NULL;
    }
    int is_float = 0;
    if (p < end && *p == '.') {
        p++;
        const uint8_t *d = p;
        p = skip_digits(p, end);
        if (p == d) return NULL;
        is_float = 1;
    }
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int negative = 0;
        if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
        const uint8_t *d = p;
        while (p < end && *p == '0') p++;
        const uint8_t *significant = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == d) return NULL;
        if (p - significant > 4) return NULL; /* let the reference judge absurd exponents */
        for (const uint8_t *q = significant; q < p; q++) exponent = exponent * 10 + (*q - '0');
        if (negative) exponent = -exponent;
        is_float = 1;
    }
    if (p - start > MAX_NUMBER_CHARS) return NULL;
    /* |value| < 10^(int_digits + exponent) <= 10^308 < DBL_MAX: float() cannot overflow. */
    if (is_float && int_digits + exponent > 308) return NULL;
    /* jsonio refuses integers that overflow binary64; below 309 digits none does */
    if (!is_float && int_digits > 308) return NULL;
    if (!is_float && int_digits > 18) *wide = 1;
    *fraction = is_float;
    return p;
}

/* Equal names; most are short, so no call to memcmp. */
HOT int same_bytes(const uint8_t *a, const uint8_t *b, uint32_t n) {
    while (n >= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
        a += 8;
        b += 8;
        n -= 8;
    }
    while (n--)
        if (*a++ != *b++) return 0;
    return 1;
}

/* The table field named k among the members of node, or F_NONE. */
HOT int key_field(const Table *table, uint8_t node, const uint8_t *k, uint32_t n, uint64_t head) {
    for (uint8_t i = table->first[node][n & 255]; i; i = table->next[i]) {
        if (table->head[i] != head || table->len[i] != n) continue;
        if (n <= 8) return i;
        uint64_t tail; /* the last 8 bytes in one compare (overlapping the head), then any middle */
        memcpy(&tail, k + n - 8, 8);
        if (table->tail[i] == tail && (n <= 16 || same_bytes(table->field[i].name + 8, k + 8, n - 16))) return i;
    }
    return F_NONE;
}

/* Where scan_document stands in its line: the open containers (stacks->frames[1..depth], fr the innermost)
 * and the member names of the open objects (stacks->keys[0..key_top)). */
typedef struct {
    const Table *table;
    DocStacks *stacks;
    Fields *f;
    Frame *fr;
    int depth;
    uint32_t key_top;
} Walk;

/* Opens a container as the innermost frame: node is the table field whose members it holds (NODE_NONE: none
 * the table knows), field the one whose value it is. */
HOT void push_frame(Walk *w, int is_obj, uint8_t node, uint8_t field) {
    Frame *fr = &w->stacks->frames[++w->depth];
    fr->is_obj = (uint8_t)is_obj;
    fr->node = node;
    fr->pending = F_NONE;
    fr->field = field;
    fr->key_base = w->key_top;
    fr->nkeys = 0;
    fr->seen = 0;
    w->fr = fr;
}

/* A table field's value starts at `start`: its type, whether the table lets that type through clean, and
 * one more required member seen. */
HOT void record_value(const Table *table, Fields *f, uint8_t field, uint8_t type, const uint8_t *start) {
    f->type[field] = type;
    f->unclean |= ~((unsigned)table->clean[field] >> type) & 1;
    f->required_seen += table->required[field];
    f->start[field] = start;
}

/* A name's first 8 bytes (fewer, zero-padded): the duplicate filter's hash and the field look-up. */
HOT uint64_t name_head(const uint8_t *k, uint32_t n, const uint8_t *end) {
    uint64_t head = 0;
    if (end - k >= 8) {
        memcpy(&head, k, 8);
        if (n < 8) head &= (1ULL << (8 * n)) - 1;
    } else {
        for (uint32_t i = 0; i < n && i < 8; i++) head |= (uint64_t)k[i] << (8 * i);
    }
    return head;
}

/* Whether a group field or a field above one (Table.on_group_path) has the name [k, k + n), at any depth:
 * a repeated name that one has may change a line's group, so the walk stops there (the caller parses). */
static int names_group_path(const Table *table, const uint8_t *k, uint32_t n) {
    for (int i = 1; i <= table->count; i++)
        if (table->on_group_path[i] && table->field[i].len == n && same_bytes(table->field[i].name, k, n)) return 1;
    return 0;
}

/* The member name whose opening quote is at p, in the innermost object: past its closing quote, with the
 * field it names pending; or NULL with *result SCAN_DUP (a repeated name: the event, and *eol) or
 * SCAN_UNSURE. With read_on (a constant: walk_reading_on), a repeated name on no group path is read past,
 * its value recorded nowhere (a field under it would be on no group path either). */
HOT const uint8_t *read_name(Walk *w, const uint8_t *p, const uint8_t *end, int *result, const uint8_t **eol,
                             const int read_on) {
    Frame *fr = w->fr;
    Key *keys = w->stacks->keys;
    const uint8_t *k = p + 1;
    int esc = 0;
    *result = SCAN_UNSURE;
    p = scan_string(k, end, &esc);
    if (!p || esc) return NULL; /* "a" and "\u0061" are the same name: leave escaped names to the reference */
    uint32_t n = (uint32_t)(p - 1 - k);
    if (fr->nkeys >= MAX_OBJECT_KEYS || w->key_top >= KEY_STACK) return NULL;
    uint64_t head = name_head(k, n, end);
    /* A repeated name is a defect at its second occurrence (SPEC 2.1), once its string is complete:
     * nothing before it was a defect (the scan would have stopped), so it is the line's finding. */
    uint64_t bit = 1ULL << (((head ^ n) * 0x9E3779B97F4A7C15ULL) >> 58);
    for (uint32_t i = (fr->seen & bit) ? fr->key_base : w->key_top; i < w->key_top; i++) {
        if (keys[i].len == n && same_bytes(keys[i].p, k, n)) {
            if (read_on) {
                if (names_group_path(w->table, k, n)) return NULL;
                fr->pending = F_NONE; /* which of its values a parse keeps (the last) decides no group member */
                return p;
            }
            w->f->event = k;
            w->f->event_len = n;
            *eol = utf8_line_end(p, end);
            if (*eol) *result = SCAN_DUP;
            return NULL;
        }
    }
    fr->seen |= bit;
    keys[w->key_top].p = k;
    keys[w->key_top].len = n;
    w->key_top++;
    fr->nkeys++;
    fr->pending = fr->node != NODE_NONE ? (uint8_t)key_field(w->table, fr->node, k, n, head) : F_NONE;
    return p;
}

/* A NaN or infinite token of n bytes at p where a value belongs: the line's event. */
static inline const uint8_t *non_finite(Fields *f, const uint8_t *p, size_t n, int *nan) {
    f->event = p;
    f->event_len = n;
    *nan = 1;
    return NULL;
}

/* The value at p when it is not a container: past it with its type in *type; or NULL, with *nan set for a
 * NaN or infinite token (a defect at its first character, whatever follows: SPEC 2.1), else unsure. */
HOT const uint8_t *read_scalar(const uint8_t *p, const uint8_t *end, Fields *f, uint8_t *type, int *nan) {
    uint8_t c = *p;
    *nan = 0;
    if (c == '"') {
        int esc = 0;
        *type = T_STR;
        return scan_string(p + 1, end, &esc);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (c == '-' && end - p >= 9 && memcmp(p, "-Infinity", 9) == 0) return non_finite(f, p, 9, nan);
        int fraction = 0;
        p = scan_number(p, end, &f->wide_int, &fraction);
        *type = fraction ? T_NUM : T_INT;
        return p;
    }
    if (c == 't') {
        *type = T_TRUE;
        return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
    }
    if (c == 'f') {
        *type = T_FALSE;
        return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
    }
    if (c == 'n') {
        *type = T_NULL;
        return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
    }
    if (c == 'N' && end - p >= 3 && memcmp(p, "NaN", 3) == 0) return non_finite(f, p, 3, nan);
    if (c == 'I' && end - p >= 8 && memcmp(p, "Infinity", 8) == 0) return non_finite(f, p, 8, nan);
    return NULL;
}

/* Arrays of numbers (token ids, log probs) are most of a large line: a tight loop over the elements from p
 * (just after a comma). Array elements are never contract fields, so nothing is recorded. Returns where the
 * scan goes on, with *after set when a value ended there (else a value starts there); NULL: unsure. */
HOT const uint8_t *number_run(const uint8_t *p, const uint8_t *end, int *wide, int *after) {
    *after = 0;
    while (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
        if (*p == '-' && end - p >= 2 && p[1] == 'I') return p; /* -Infinity: the value's event */
        int fraction;
        p = scan_number(p, end, wide, &fraction);
        if (!p) return NULL;
        if (p < end && *p == ',') {
            p = skip_ws(p + 1, end);
            continue;
        }
        *after = 1;
        return p;
    }
    return p;
}

/* The line whose '{' is at p. SCAN_OK: strict JSON with every rule of jsonio.parse_json met and the fields
 * recorded. SCAN_NAN / SCAN_DUP: that is the first defect in text order (SPEC 2.1), and the line is valid UTF-8.
 * SCAN_UNSURE: ask the reference. *eol is set to the line's end for all but SCAN_UNSURE.
 * Not inlined into the line loop, where its token loop would share the registers with the loop's own values:
 * inlined, the scan executes some 8% more instructions (callgrind, benchmarks/budget.py --instructions).
 * read_on (a constant): read past repeated names on no group path (walk_reading_on); without it the walk's
 * code is as if the budget had no groups (with a branch back into the loop, every line pays 50-130
 * instructions, callgrind). */
HOT int walk(const Table *table, DocStacks *stacks, const uint8_t *p, const uint8_t *end, Fields *f,
             const uint8_t **eol, const int read_on) {
    Walk w = {table, stacks, f, NULL, 0, 0};
    push_frame(&w, 1, 0, F_NONE);
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
        goto closed;
    }

key:
    if (p >= end || *p != '"') return SCAN_UNSURE;
    {
        int result;
        p = read_name(&w, p, end, &result, eol, read_on);
        if (!p) return result;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return SCAN_UNSURE;
        p = skip_ws(p + 1, end);
    }

value:
    if (p >= end) return SCAN_UNSURE;
    {
        uint8_t field = w.fr->pending;
        uint8_t c = *p;
        if (c == '{' || c == '[') {
            if (w.depth >= MAX_DEPTH) return SCAN_UNSURE;
            uint8_t node = c == '{' && field && table->field[field].has_members ? field : NODE_NONE;
            if (field) record_value(table, f, field, c == '{' ? T_OBJ : T_ARR, p);
            push_frame(&w, c == '{', node, field);
            p = skip_ws(p + 1, end);
            if (p >= end) return SCAN_UNSURE;
            if (*p == (c == '{' ? '}' : ']')) {
                p++;
                goto closed;
            }
            if (c == '{') goto key;
            goto value;
        }
        const uint8_t *s = p;
        uint8_t type;
        int nan;
        p = read_scalar(p, end, f, &type, &nan);
        if (!p) {
            if (!nan) return SCAN_UNSURE;
            *eol = utf8_line_end(s, end);
            return *eol ? SCAN_NAN : SCAN_UNSURE;
        }
        if (field) {
            record_value(table, f, field, type, s);
            f->stop[field] = p;
        }
    }

after_value:
    p = skip_ws(p, end);
    if (p >= end) return SCAN_UNSURE;
    if (*p == ',') {
        p = skip_ws(p + 1, end);
        if (w.fr->is_obj) goto key;
        int after;
        p = number_run(p, end, &f->wide_int, &after);
        if (!p) return SCAN_UNSURE;
        if (after) goto after_value;
        goto value;
    }
    if (*p != (w.fr->is_obj ? '}' : ']')) return SCAN_UNSURE;
    p++;

closed: /* p is just past the closing bracket of the innermost container */
    if (w.fr->field) f->stop[w.fr->field] = p;
    w.key_top = w.fr->key_base;
    if (--w.depth) {
        w.fr = &stacks->frames[w.depth];
        goto after_value;
    }
    p = skip_ws(p, end);
    if (p < end && *p != '\n') return SCAN_UNSURE; /* more text after the value */
    *eol = p;
    return SCAN_OK;
}

NOINLINE static int walk_document(const Table *table, DocStacks *stacks, const uint8_t *p, const uint8_t *end,
                                  Fields *f, const uint8_t **eol) {
    return walk(table, stacks, p, end, f, eol, 0);
}

NOINLINE static int walk_reading_on(const Table *table, DocStacks *stacks, const uint8_t *p, const uint8_t *end,
                                    Fields *f, const uint8_t **eol) {
    return walk(table, stacks, p, end, f, eol, 1);
}

/* walk_document; and with the budget's groups (Table.read_past_repeats), a line whose first defect is a
 * repeated name is walked again reading past the repeated names on no group path, for its group members:
 * f->past_repeats says whether that walk read the whole document. The line keeps the first walk's result,
 * event and end, as without groups. */
static int scan_document(const Table *table, DocStacks *stacks, const uint8_t *p, const uint8_t *end, Fields *f,
                         const uint8_t **eol) {
    int result = walk_document(table, stacks, p, end, f, eol);
    if (result != SCAN_DUP || !table->read_past_repeats) return result;
    const uint8_t *event = f->event, *line_end = *eol, *again;
    size_t event_len = f->event_len;
    memset(f->type, 0, (size_t)table->count + 1);
    f->wide_int = 0;
    f->past_repeats = walk_reading_on(table, stacks, p, end, f, &again) == SCAN_OK;
    f->event = event, f->event_len = event_len; /* a NaN token after it would write its own */
    *eol = line_end;
    return SCAN_DUP;
}

static int is_blank(const uint8_t *p, const uint8_t *end) {
    for (; p < end; p++) {
        uint8_t c = *p;
        if (!(c == ' ' || c == '\t' || c == '\r' || c == '\n')) return 0; /* JSON whitespace only */
    }
    return 1;
}

/* The registered kinds that draw no warning, from "\0name\0name\0". */
#define MAX_KINDS 512
typedef struct {
    const uint8_t *name[MAX_KINDS];
    size_t len[MAX_KINDS];
    int count;
} Kinds;

static int load_kinds(Kinds *table, const uint8_t *kinds, size_t kinds_len) {
    table->count = 0;
    const uint8_t *end = kinds + kinds_len;
    for (const uint8_t *k = kinds + 1; k < end;) {
        const uint8_t *stop = memchr(k, 0, (size_t)(end - k));
        if (!stop || table->count >= MAX_KINDS) return 0;
        table->name[table->count] = k;
        table->len[table->count] = (size_t)(stop - k);
        table->count++;
        k = stop + 1;
    }
    return 1;
}

/* 0 not a clean kind, 1 registered (and not deprecated), 2 namespaced. */
static int kind_class(const Fields *f, int field, const Kinds *kinds) {
    if (f->type[field] != T_STR) return 0;
    const uint8_t *s = f->start[field] + 1;
    size_t n = (size_t)(f->stop[field] - 1 - s);
    int colon = -1;
    size_t part = 0;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == ':') {
            if (colon >= 0 || part == 0) return 0;
            colon = (int)i;
            part = 0;
            continue;
        }
        /* a backslash (an escape) is outside the grammar's bytes, so escaped names are never clean */
        if (part == 0 ? !(c >= 'a' && c <= 'z') : !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
        part++;
    }
    if (part == 0) return 0;
    if (colon >= 0) return 2;
    for (int i = 0; i < kinds->count; i++)
        if (kinds->len[i] == n && same_bytes(kinds->name[i], s, (uint32_t)n)) return 1;
    return 0;
}

/* Appends a field to a memo key: its type byte, then (with_raw) its value bytes, length first. */
typedef struct {
    uint8_t buf[MEMO_KEY_BYTES];
    size_t len;
    int overflow;
} KeyBuf;

static void key_put(KeyBuf *k, const Fields *f, int field, int with_raw) {
    uint8_t type = f->type[field];
    if (k->len >= MEMO_KEY_BYTES) {
        k->overflow = 1;
        return;
    }
    k->buf[k->len++] = type;
    if (!with_raw || type == T_NONE) return;
    size_t n = (size_t)(f->stop[field] - f->start[field]);
    if (n > MEMO_KEY_BYTES || k->len + 2 + n > MEMO_KEY_BYTES) {
        k->overflow = 1;
        return;
    }
    k->buf[k->len++] = (uint8_t)(n & 0xFF);
    k->buf[k->len++] = (uint8_t)(n >> 8);
    memcpy(k->buf + k->len, f->start[field], n);
    k->len += n;
}

/* The memo key of a strict-JSON line: everything the reference's findings and the counts read.
 * Every table field in table order: its type byte, and its value bytes wherever the value itself can
 * matter (a type the schema refuses: the message quotes it; a constraint; a SPEC role). A value of an
 * allowed type with no constraint is judged by its type alone, and the members of an object are fields
 * of their own. The resolved model has no keyword relating two members (a root constraint makes fastpath
 * decline the version), so the key decides the outcome. */
static void contract_key(const Table *table, const Fields *f, KeyBuf *k) {
    k->len = 0;
    k->overflow = 0;
    k->buf[k->len++] = 'C';
    for (int i = 1; i <= table->count; i++) {
        const FieldSpec *spec = &table->field[i];
        if (spec->role == ROLE_GROUP) continue; /* the budget's, read by no rule */
        uint8_t type = f->type[i];
        int with_raw = spec->cls != CLASS_PLAIN || spec->role != ROLE_NONE || !(spec->types & (1u << type));
        size_t at = k->len;
        key_put(k, f, i, with_raw);
        /* a field allowing every number: an integer and a fraction are the same to every rule */
        if (!with_raw && type == T_INT && (spec->types & (1u << T_NUM)) && at < k->len) k->buf[at] = T_NUM;
    }
}

#define BOOL_OR_NONE ((1u << T_NONE) | (1u << T_TRUE) | (1u << T_FALSE))

static int classify(const Table *table, const Fields *f, const Kinds *kinds) {
    const uint8_t *t = f->type;
    if (f->unclean || f->required_seen != table->required_count) return STATUS_CONTRACT;
    uint8_t top = t[table->mask], legacy = t[table->legacy]; /* t[0], "no field", is always T_NONE */
    /* effective_mask() raises on a non-boolean mask at any version; leave those to the reference */
    if (!((BOOL_OR_NONE >> top) & (BOOL_OR_NONE >> legacy) & 1)) return STATUS_CONTRACT;
    int legacy_used = 0, kind = 0;
    if ((table->sem & SEM_LEGACY) && legacy != T_NONE) {
        legacy_used = 1;
        if (top != legacy) return STATUS_CONTRACT; /* legacy-mask-only or legacy-mask-divergent */
    }
    if (t[table->kind] == T_STR) {
        kind = kind_class(f, table->kind, kinds);
        if (!kind) return STATUS_CONTRACT; /* malformed, unregistered or deprecated */
    }
    int masked = top == T_TRUE || legacy == T_TRUE;
    return 1 + masked + 2 * legacy_used + 4 * kind;
}

/* The field table (fastpath.field_table): count, semantic flags, then per field: parent, allowed type
 * bits (2 bytes, little-endian), class, role, required, name length, name. Names point into the buffer,
 * which the caller holds for the whole scan. */
static int load_table(Table *table, const uint8_t *b, size_t len) {
    memset(table, 0, sizeof *table);
    if (len < 2 || b[0] > MAX_FIELDS) return 0;
    table->count = b[0];
    table->sem = b[1];
    size_t at = 2;
    for (int i = 1; i <= table->count; i++) {
        if (at + 7 > len) return 0;
        FieldSpec *spec = &table->field[i];
        spec->parent = b[at];
        spec->types = (uint16_t)(b[at + 1] | (b[at + 2] << 8));
        spec->cls = b[at + 3];
        spec->role = b[at + 4];
        spec->required = b[at + 5];
        spec->len = b[at + 6];
        at += 7;
        if (at + spec->len > len || spec->parent >= i || spec->cls > CLASS_UNSURE || spec->role > ROLE_GROUP) return 0;
        spec->name = b + at;
        for (uint32_t j = 0; j < spec->len && j < 8; j++) table->head[i] |= (uint64_t)spec->name[j] << (8 * j);
        if (spec->len >= 8) memcpy(&table->tail[i], spec->name + spec->len - 8, 8);
        table->len[i] = spec->len;
        at += spec->len;
        table->clean[i] = spec->cls == CLASS_UNSURE ? 0 : spec->types;
        table->required[i] = spec->required ? 1 : 0;
        table->required_count += table->required[i];
        table->field[spec->parent].has_members = 1;
        /* appended at the chain's end, so the first declared of two equal names is found */
        uint8_t *link = &table->first[spec->parent][spec->len];
        while (*link) link = &table->next[*link];
        *link = (uint8_t)i;
        if (spec->role == ROLE_MASK) table->mask = (uint8_t)i;
        if (spec->role == ROLE_LEGACY_MASK) table->legacy = (uint8_t)i;
        if (spec->role == ROLE_KIND) table->kind = (uint8_t)i;
    }
    return at == len;
}

/* The failure budget's group fields (field numbers, from 1) in a loaded table: the walk then reads on past a
 * repeated member name that neither they nor a field above them has (Table.read_past_repeats). */
static void table_group_paths(Table *table, const uint8_t *fields, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int at = fields[i]; at >= 1 && at <= table->count && !table->on_group_path[at]; at = table->field[at].parent)
            table->on_group_path[at] = 1;
    table->read_past_repeats = 1;
}

/* ---------------------------------------------------------------------------------------------------------
 * Text keys: the first defect of a line the scan above could not settle (SPEC 2.1), as jsonio words it.
 *
 * For a STATUS_TEXT line the scan gave up on, text_key() reads the line as the reference does (its
 * trailing "\r" bytes stripped, as check/_reference.py reads it) and mirrors jsonio.parse_json: a byte order mark ('B'),
 * else the first ill-formed UTF-8 sequence as Python's decoder reports it ('U' + reason tag + ':' + byte
 * offset), else jsonio._scan's first defect in text order: a syntax defect ('S' + tag + ':' + column in
 * code points, counted from 1 [+ ':' + the code in hex]), a NaN token ('N' + token), a repeated member
 * name ('D' + the name in UTF-8, escapes resolved as Python's json module resolves them, so "a" and
 * "\u0061" are one name) or nesting deeper than MAX_DEPTH ('T'). check/_text_events.py builds the
 * reference's finding from the key with jsonio's wording; the tags are the keys of
 * reference/_text_findings.py's SYNTAX_MESSAGES and UTF8_REASONS (exported as SYNTAX_TAGS, CODED_TAGS and
 * UTF8_TAGS; tests/reference/test_text_keys.py holds the two to each other). What it cannot follow exactly
 * gets no key: numbers that might overflow
 * (jsonio words the literal), more names in the open objects than TEXT_NAMES or TEXT_NAME_BYTES, keys
 * longer than MEMO_KEY_BYTES. */
enum {
    TAG_STRING,
    TAG_CONTROL,
    TAG_ESCAPE,
    TAG_SURROGATE_ESCAPE,
    TAG_NUMBER,
    TAG_VALUE,
    TAG_END,
    TAG_NAME,
    TAG_COLON,
    TAG_EXTRA,
    TAG_OBJECT,
    TAG_ARRAY,
    TAG_COUNT
};
static const char *const syntax_tags[TAG_COUNT] = {"string", "control", "escape", "surrogate-escape",
                                                   "number", "value",   "end",    "name",
                                                   "colon",  "extra",   "object", "array"};
/* the tags whose message quotes a code (a control character, an escape's code) */
#define TAG_CODED(tag) ((tag) == TAG_CONTROL || (tag) == TAG_SURROGATE_ESCAPE)
enum { UTF8_START, UTF8_CONTINUATION, UTF8_END, UTF8_COUNT };
static const char *const utf8_tags[UTF8_COUNT] = {"start", "continuation", "end"};

#define TEXT_NAMES 4096       /* member names of the open objects; more: no key */
#define TEXT_NAME_BYTES 65536 /* their escaped names' bytes, escapes resolved; more: no key */

/* The first ill-formed UTF-8 sequence of [s, e) as Python's decoder reports it: 1 with its start (the
 * sequence's first byte) and reason, or 0 when the whole range is UTF-8. A lead byte that starts no
 * sequence: "invalid start byte"; a byte that cannot continue the sequence (the first one after the lead
 * byte has narrower ranges for E0, ED, F0 and F4): "invalid continuation byte"; a sequence cut by the end
 * with every byte so far right: "unexpected end of data". */
static int utf8_error(const uint8_t *s, const uint8_t *e, size_t *at, int *reason) {
    const uint8_t *p = s;
    while (p < e) {
        uint8_t c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        int n;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c == 0xE0) { n = 2; lo = 0xA0; }
        else if (c == 0xED) { n = 2; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) n = 2;
        else if (c == 0xF0) { n = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) n = 3;
        else if (c == 0xF4) { n = 3; hi = 0x8F; }
        else {
            *at = (size_t)(p - s);
            *reason = UTF8_START;
            return 1;
        }
        for (int i = 1; i <= n; i++) {
            if (e - p <= i) {
                *at = (size_t)(p - s);
                *reason = UTF8_END;
                return 1;
            }
            if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xBF)) {
                *at = (size_t)(p - s);
                *reason = UTF8_CONTINUATION;
                return 1;
            }
        }
        p += n + 1;
    }
    return 0;
}

typedef struct {
    int tag;
    const uint8_t *at;
    int code;
} Defect;

/* jsonio._scan_string on UTF-8 text: the string whose opening quote is at p; past its closing quote, or
 * NULL with the defect in *d. *escaped is set when it holds an escape. */
static const uint8_t *text_string(const uint8_t *p, const uint8_t *e, Defect *d, int *escaped) {
    const uint8_t *quote = p;
    p++;
    for (;;) {
        p = string_special(p, e);
        if (p >= e) {
            d->tag = TAG_STRING;
            d->at = quote;
            return NULL;
        }
        uint8_t c = *p;
        if (c == '"') return p + 1;
        if (c >= 0x80) { /* part of a character (the text is UTF-8) */
            p++;
            continue;
        }
        if (c < 0x20) {
            d->tag = TAG_CONTROL;
            d->at = p;
            d->code = c;
            return NULL;
        }
        *escaped = 1; /* a backslash */
        uint8_t x = e - p >= 2 ? p[1] : 0;
        if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') {
            p += 2;
            continue;
        }
        int u = x == 'u' ? hex4(p + 2, e) : -1;
        if (u < 0) {
            d->tag = TAG_ESCAPE;
            d->at = p;
            return NULL;
        }
        if (u >= 0xD800 && u <= 0xDFFF) {
            const uint8_t *l = p + 6;
            int low = u <= 0xDBFF && e - l >= 2 && l[0] == '\\' && l[1] == 'u' ? hex4(l + 2, e) : -1;
            if (low < 0xDC00 || low > 0xDFFF) {
                d->tag = TAG_SURROGATE_ESCAPE;
                d->at = p;
                d->code = u;
                return NULL;
            }
            p += 12;
            continue;
        }
        p += 6;
    }
}

/* The bytes of the string body [s, e) (text_string found it well-formed) with its escapes resolved, as
 * Python's json module decodes them (a surrogate pair is one code point), in UTF-8, at out: their number.
 * Never more than e - s. */
static uint32_t decode_name(const uint8_t *s, const uint8_t *e, uint8_t *out) {
    uint8_t *o = out;
    while (s < e) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        uint8_t x = s[1];
        if (x != 'u') {
            *o++ = x == 'b' ? '\b' : x == 'f' ? '\f' : x == 'n' ? '\n' : x == 'r' ? '\r' : x == 't' ? '\t' : x;
            s += 2;
            continue;
        }
        uint32_t u = (uint32_t)hex4(s + 2, e);
        s += 6;
        if (u >= 0xD800 && u <= 0xDBFF) { /* the low half follows (text_string checked it) */
            u = 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)hex4(s + 2, e) - 0xDC00);
            s += 6;
        }
        if (u < 0x80) {
            *o++ = (uint8_t)u;
        } else if (u < 0x800) {
            *o++ = (uint8_t)(0xC0 | (u >> 6));
            *o++ = (uint8_t)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            *o++ = (uint8_t)(0xE0 | (u >> 12));
            *o++ = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (u & 0x3F));
        } else {
            *o++ = (uint8_t)(0xF0 | (u >> 18));
            *o++ = (uint8_t)(0x80 | ((u >> 12) & 0x3F));
            *o++ = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (u & 0x3F));
        }
    }
    return (uint32_t)(o - out);
}

static const uint8_t *text_ws(const uint8_t *p, const uint8_t *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static int is_digit(const uint8_t *p, const uint8_t *e) { return p < e && *p >= '0' && *p <= '9'; }

/* jsonio's number at p (p[0] is '-' or a digit): 1 and its end in *stop when it matches the grammar
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? and is certainly finite; 0 and *stop NULL when nothing
 * matches; -1 for a malformed number (the defect at *stop); -2 when it might overflow (no key). */
static int text_number(const uint8_t *p, const uint8_t *e, const uint8_t **stop) {
    const uint8_t *q = p;
    *stop = NULL;
    if (*q == '-') q++;
    long int_digits = 0;
    if (q < e && *q == '0') {
        q++;
    } else if (is_digit(q, e)) {
        const uint8_t *d = q;
        while (is_digit(q, e)) q++;
        int_digits = (long)(q - d);
    } else {
        return 0;
    }
    int fraction = 0, exponent = 0;
    if (q < e && *q == '.' && is_digit(q + 1, e)) {
        q++;
        while (is_digit(q, e)) q++;
        fraction = 1;
    }
    long power = 0;
    if (q < e && (*q == 'e' || *q == 'E')) {
        const uint8_t *r = q + 1;
        int negative = 0;
        if (r < e && (*r == '+' || *r == '-')) negative = *r++ == '-';
        if (is_digit(r, e)) {
            while (r < e && *r == '0') r++;
            const uint8_t *significant = r;
            while (is_digit(r, e)) r++;
            if (r - significant > 4) return -2;
            for (const uint8_t *t = significant; t < r; t++) power = power * 10 + (*t - '0');
            if (negative) power = -power;
            q = r;
            exponent = 1;
        }
    }
    *stop = q;
    /* a '.' or an exponent mark that could continue the number but has no digits after it */
    if (q < e && (((*q == 'e' || *q == 'E') && !exponent) || (*q == '.' && !fraction && !exponent))) return -1;
    if (fraction || exponent) {
        if (int_digits + power > 308) return -2; /* |value| < 10^(int_digits + power): finite below */
    } else if (int_digits > 308) {
        return -2;
    }
    return 1;
}

static void key_text(KeyBuf *k, const char *text) {
    size_t n = strlen(text);
    memcpy(k->buf, text, n);
    k->len = n;
}

/* text_key's stacks: the open containers, the member names of the open objects and the bytes of the escaped
 * ones with their escapes resolved. Part of a call's Scanner (below), never shared between calls. */
typedef struct {
    Key names[TEXT_NAMES];
    uint8_t decoded[TEXT_NAME_BYTES];
    struct {
        uint8_t is_obj;
        uint32_t base, bytes; /* names and decoded bytes in use when the container opened */
        uint64_t seen;        /* one bit per name hash, as in scan_document */
    } open[MAX_DEPTH + 1];
} TextStacks;

/* What text_key expects next. */
typedef enum { X_VALUE, X_VALUE_OR_END, X_NAME, X_NAME_OR_END, X_COLON, X_AFTER } Expect;

/* Where text_key stands in its line: the open containers (open[1..depth]), the names of the open objects
 * (names[0..top)) with the decoded bytes in use (decoded[0..used)), and the defect once found. */
typedef struct {
    TextStacks *st;
    int depth;
    uint32_t top, used;
    Defect d;
} TextWalk;

/* What one step of text_key found: go on, a syntax defect (in the walk's d), a key made, or no key. */
enum { TEXT_ON, TEXT_DEFECT, TEXT_KEYED, TEXT_NO_KEY };

static int text_defect(TextWalk *w, int tag, const uint8_t *at) {
    w->d.tag = tag;
    w->d.at = at;
    return TEXT_DEFECT;
}

/* The names and decoded bytes of the innermost object dropped as it closes. */
static void text_close_object(TextWalk *w) {
    w->top = w->st->open[w->depth].base;
    w->used = w->st->open[w->depth].bytes;
}

/* A value at *pp (or, with X_VALUE_OR_END, the ']' of an empty array). */
static int text_value(TextWalk *w, const uint8_t **pp, const uint8_t *e, Expect *expect, KeyBuf *k) {
    const uint8_t *p = *pp;
    int c = p < e ? *p : -1;
    if (*expect == X_VALUE_OR_END && c == ']') {
        w->depth--;
        p++;
    } else if (c == '{' || c == '[') {
        if (w->depth + 1 > MAX_DEPTH) {
            key_text(k, "T");
            return TEXT_KEYED;
        }
        w->depth++;
        w->st->open[w->depth].is_obj = c == '{';
        w->st->open[w->depth].bytes = w->used;
        w->st->open[w->depth].base = w->top;
        w->st->open[w->depth].seen = 0;
        *pp = p + 1;
        *expect = c == '{' ? X_NAME_OR_END : X_VALUE_OR_END;
        return TEXT_ON;
    } else if (c == '"') {
        int escaped = 0;
        p = text_string(p, e, &w->d, &escaped);
        if (!p) return TEXT_DEFECT;
    } else if ((e - p >= 3 && memcmp(p, "NaN", 3) == 0) || (e - p >= 8 && memcmp(p, "Infinity", 8) == 0) ||
               (e - p >= 9 && memcmp(p, "-Infinity", 9) == 0)) {
        key_text(k, c == 'N' ? "NNaN" : c == 'I' ? "NInfinity" : "N-Infinity");
        return TEXT_KEYED;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const uint8_t *stop;
        int number = text_number(p, e, &stop);
        if (number == -2) return TEXT_NO_KEY;
        if (number == -1) return text_defect(w, TAG_NUMBER, stop);
        if (number == 0) return text_defect(w, TAG_VALUE, p); /* a '-' with no digit after it */
        p = stop;
    } else if (e - p >= 4 && (memcmp(p, "true", 4) == 0 || memcmp(p, "null", 4) == 0)) {
        p += 4;
    } else if (e - p >= 5 && memcmp(p, "false", 5) == 0) {
        p += 5;
    } else {
        return text_defect(w, c < 0 ? TAG_END : TAG_VALUE, p);
    }
    *pp = p;
    *expect = X_AFTER;
    return TEXT_ON;
}

/* A member name at *pp (or, with X_NAME_OR_END, the '}' of an empty object); a repeated one is the key. */
static int text_name(TextWalk *w, const uint8_t **pp, const uint8_t *e, Expect *expect, KeyBuf *k) {
    const uint8_t *p = *pp;
    int c = p < e ? *p : -1;
    if (*expect == X_NAME_OR_END && c == '}') {
        text_close_object(w);
        w->depth--;
        *pp = p + 1;
        *expect = X_AFTER;
        return TEXT_ON;
    }
    if (c != '"') return text_defect(w, TAG_NAME, p);
    TextStacks *st = w->st;
    int escaped = 0;
    const uint8_t *name = p + 1;
    p = text_string(p, e, &w->d, &escaped);
    if (!p) return TEXT_DEFECT;
    uint32_t n = (uint32_t)(p - 1 - name);
    if (escaped) { /* compare names as jsonio does, escapes resolved: "a" and "\u0061" are one */
        if (w->used + n > TEXT_NAME_BYTES) return TEXT_NO_KEY;
        n = decode_name(name, p - 1, st->decoded + w->used);
        name = st->decoded + w->used;
        w->used += n;
    }
    uint64_t head = 0;
    for (uint32_t i = 0; i < n && i < 8; i++) head |= (uint64_t)name[i] << (8 * i);
    uint64_t bit = 1ULL << (((head ^ n) * 0x9E3779B97F4A7C15ULL) >> 58);
    if (st->open[w->depth].seen & bit) {
        for (uint32_t i = st->open[w->depth].base; i < w->top; i++) {
            if (st->names[i].len == n && same_bytes(st->names[i].p, name, n)) {
                if (n + 1 > MEMO_KEY_BYTES) return TEXT_NO_KEY;
                k->buf[0] = 'D'; /* the name as the reference decodes it, in UTF-8 */
                memcpy(k->buf + 1, name, n);
                k->len = n + 1;
                return TEXT_KEYED;
            }
        }
    }
    if (w->top >= TEXT_NAMES) return TEXT_NO_KEY;
    st->open[w->depth].seen |= bit;
    st->names[w->top].p = name;
    st->names[w->top].len = n;
    w->top++;
    *pp = p;
    *expect = X_COLON;
    return TEXT_ON;
}

/* After a value at *pp: a comma, the innermost container's closing bracket, or (at the top) the line's end. */
static int text_after(TextWalk *w, const uint8_t **pp, const uint8_t *e, Expect *expect) {
    const uint8_t *p = *pp;
    if (!w->depth) return p < e ? text_defect(w, TAG_EXTRA, p) : TEXT_NO_KEY; /* no defect: the reference judges */
    int c = p < e ? *p : -1;
    int is_obj = w->st->open[w->depth].is_obj;
    if (c == ',') {
        *expect = is_obj ? X_NAME : X_VALUE;
    } else if (c == (is_obj ? '}' : ']')) {
        if (is_obj) text_close_object(w);
        w->depth--;
    } else {
        return text_defect(w, is_obj ? TAG_OBJECT : TAG_ARRAY, p);
    }
    *pp = p + 1;
    return TEXT_ON;
}

/* The key of a line that is not UTF-8 text jsonio reads ('B': a byte order mark; 'U': ill-formed UTF-8):
 * 1 with the key in k, or 0. */
static int encoding_key(const uint8_t *s, const uint8_t *e, KeyBuf *k) {
    if (e - s >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        key_text(k, "B");
        return 1;
    }
    size_t at;
    int reason;
    if (!utf8_error(s, e, &at, &reason)) return 0;
    k->len = (size_t)snprintf((char *)k->buf, MEMO_KEY_BYTES, "U%s:%zu", utf8_tags[reason], at);
    return 1;
}

/* The key of a syntax defect of the line that starts at s. */
static void syntax_key(const uint8_t *s, const Defect *d, KeyBuf *k) {
    /* the column counts code points: every byte but UTF-8 continuation bytes */
    size_t column = 1;
    for (const uint8_t *q = s; q < d->at; q++) column += (*q & 0xC0) != 0x80;
    if (TAG_CODED(d->tag))
        k->len = (size_t)snprintf((char *)k->buf, MEMO_KEY_BYTES, "S%s:%zu:%X", syntax_tags[d->tag], column,
                                  (unsigned)d->code);
    else
        k->len = (size_t)snprintf((char *)k->buf, MEMO_KEY_BYTES, "S%s:%zu", syntax_tags[d->tag], column);
}

/* The text key of the line [s, e) (its trailing "\r" bytes already stripped): 1 with the key in k, or 0. */
static int text_key(TextStacks *stacks, const uint8_t *s, const uint8_t *e, KeyBuf *k) {
    if (encoding_key(s, e, k)) return 1;
    TextWalk w = {stacks, 0, 0, 0, {0, NULL, -1}};
    Expect expect = X_VALUE;
    const uint8_t *p = text_ws(s, e);
    for (;;) {
        int step;
        switch (expect) {
        case X_VALUE:
        case X_VALUE_OR_END:
            step = text_value(&w, &p, e, &expect, k);
            break;
        case X_NAME:
        case X_NAME_OR_END:
            step = text_name(&w, &p, e, &expect, k);
            break;
        case X_COLON:
            if (p < e && *p == ':') {
                p++;
                expect = X_VALUE;
                step = TEXT_ON;
            } else {
                step = text_defect(&w, TAG_COLON, p);
            }
            break;
        default: /* X_AFTER */
            step = text_after(&w, &p, e, &expect);
        }
        if (step == TEXT_DEFECT) {
            syntax_key(s, &w.d, k);
            return 1;
        }
        if (step != TEXT_ON) return step == TEXT_KEYED;
        p = text_ws(p, e);
    }
}

/* Everything a scan call reads and writes besides its buffers: the field table and the kinds it was given,
 * and the stacks of the line it is reading. Each call makes its own (scan_chunk), so no two calls share
 * state: a call made while another runs (from a group label function, or another thread) gets its answer
 * from its own table. */
typedef struct {
    Table table;
    Kinds kinds;
    DocStacks doc;
    TextStacks text;
} Scanner;

/* The line that starts at q: its status byte in *status, and in *keyed whether key holds its memo key.
 * Returns where the next line starts (past this line's newline, or end). The scanner's field table and
 * kinds must be loaded (load_table, load_kinds). */
HOT const uint8_t *scan_line(Scanner *scanner, const uint8_t *q, const uint8_t *end, Fields *f, KeyBuf *key,
                             int *status, int *keyed) {
    const Table *table = &scanner->table;
    const uint8_t *p = skip_ws(q, end);
    const uint8_t *eol = NULL;
    int unsure = 1; /* the scan left the line's text undecided */
    *status = STATUS_TEXT;
    *keyed = 0;
    f->scanned = 0;
    f->past_repeats = 0;
    if (p < end && *p == '{') {
        if (table->count < 32) memset(f->type, 0, 32); /* a constant size: inlined (type[] has F_COUNT) */
        else memset(f->type, 0, (size_t)table->count + 1);
        f->wide_int = 0;
        f->unclean = 0;
        f->required_seen = 0;
        int result = scan_document(table, &scanner->doc, p, end, f, &eol);
        unsure = result == SCAN_UNSURE;
        if (result == SCAN_OK) {
            f->scanned = 1;
            *status = classify(table, f, &scanner->kinds);
            if (*status == STATUS_CONTRACT) {
                contract_key(table, f, key);
                *keyed = !key->overflow;
                /* for STATUS_CONTRACT check/_compose.py has orjson build the document, which reads long
                 * integers otherwise */
                if (f->wide_int) *status = STATUS_TEXT;
            }
        } else if (result != SCAN_UNSURE && f->event_len + 1 <= MEMO_KEY_BYTES) {
            key->buf[0] = result == SCAN_NAN ? 'N' : 'D';
            memcpy(key->buf + 1, f->event, f->event_len);
            key->len = f->event_len + 1;
            *keyed = 1;
        }
    }
    if (!eol) {
        eol = memchr(q, '\n', (size_t)(end - q));
        if (!eol) eol = end;
        if (*status == STATUS_TEXT && (p >= end || *p != '{') && is_blank(q, eol)) *status = STATUS_BLANK;
    }
    if (unsure && *status == STATUS_TEXT && !*keyed) {
        const uint8_t *stop = eol; /* the line as the reference reads it: trailing "\r" stripped */
        while (stop > q && stop[-1] == '\r') stop--;
        *keyed = text_key(&scanner->text, q, stop, key);
    }
    return eol < end ? eol + 1 : end;
}

#ifndef FASTSCAN_CORE_ONLY
#include <stdarg.h>

/* The named result types, one set per module object (multi-phase init), in result_types' order: each is
 * stated here once, field by field, and in _fastscan.pyi. */
typedef struct {
    PyTypeObject *Scan, *BudgetScan, *LineKinds, *ChunkGroups, *Gathered, *WindowScan, *WindowEvent;
} ModuleState;

static PyStructSequence_Field scan_fields[] = {
    {"statuses", "a status byte per line"},
    {"others", "(index, start, end, memo key or None) of each line neither blank nor clean"},
    {NULL, NULL}};
static PyStructSequence_Field budget_scan_fields[] = {
    {"statuses", "a status byte per line"},
    {"others", "(index, start, end, memo key or None) of each line neither blank nor clean"},
    {"line_kinds", "LineKinds: the lines whose failure kind the scan knows, and their kinds"},
    {"reread", "(index, start, end) of the lines read whole whose kind needs a parse"},
    {"groups", "ChunkGroups, or None without group fields"},
    {NULL, NULL}};
static PyStructSequence_Field line_kinds_fields[] = {
    {"where", "the lines' indices, uint32 in native order"}, {"kinds", "their kinds"}, {NULL, NULL}};
static PyStructSequence_Field chunk_groups_fields[] = {
    {"ids", "a uint32 combination id per line (native order), NO_GROUP where unknown"},
    {"combinations", "the label tuples by id"},
    {"firsts", "the index of the first line of each combination"},
    {"unread", "(index, start, end) of the lines without an id that are not blank"},
    {NULL, NULL}};
static PyStructSequence_Field gathered_fields[] = {
    {"indices", "the picked lines' indices"},
    {"kinds", "their kinds, None where not known"},
    {"states", "their table entries"},
    {"unknown", "how many kinds are None"},
    {NULL, NULL}};
static PyStructSequence_Field window_scan_fields[] = {
    {"worst", "the highest rate of a judged window (-1.0: none judged)"},
    {"worst_at", "the first k that has it (-1: none)"},
    {"worst_inside", "the masked rollouts in that window"},
    {"worst_size", "that window's size"},
    {"longest", "the longest run"},
    {"longest_at", "the first k that ends it"},
    {"last_run", "the run at the last k"},
    {"active", "each level's state after the last judged window"},
    {"events", "WindowEvent list, by k then order"},
    {NULL, NULL}};
static PyStructSequence_Field window_event_fields[] = {
    {"k", "the run's rollout"},
    {"order", "0: the run reaches the limit; 1 + i: the window enters level i"},
    {"inside", "masked rollouts in the window"},
    {"size", "the window's size"},
    {"start", "the index of the window's first masked rollout among carried then the run's"},
    {"run", "the run at k"},
    {NULL, NULL}};

#define RESULT_TYPE(name, fields, doc) {"verify_contract.check._fastscan." name, doc, fields, sizeof fields / sizeof fields[0] - 1}
static PyStructSequence_Desc result_types[] = {
    RESULT_TYPE("Scan", scan_fields, "scan()'s result."),
    RESULT_TYPE("BudgetScan", budget_scan_fields, "scan_budget()'s result."),
    RESULT_TYPE("LineKinds", line_kinds_fields, "The lines whose failure kind a scan knows."),
    RESULT_TYPE("ChunkGroups", chunk_groups_fields, "A chunk's --group-by combinations."),
    RESULT_TYPE("Gathered", gathered_fields, "gather()'s result."),
    RESULT_TYPE("WindowScan", window_scan_fields, "window_scan()'s result."),
    RESULT_TYPE("WindowEvent", window_event_fields, "A window_scan() event."),
};
#define RESULT_TYPES (sizeof result_types / sizeof result_types[0])

/* ModuleState's members are the types of result_types, in its order. */
typedef char state_holds_each_type[sizeof(ModuleState) == RESULT_TYPES * sizeof(PyTypeObject *) ? 1 : -1];
static PyTypeObject **state_types(ModuleState *state) { return (PyTypeObject **)state; }

/* A result of `type` from n new references, which it takes over; NULL (the error set) if any is NULL. */
static PyObject *named(PyTypeObject *type, int n, ...) {
    va_list items;
    va_start(items, n);
    PyObject *result = PyStructSequence_New(type);
    int failed = result == NULL;
    for (int i = 0; i < n; i++) {
        PyObject *item = va_arg(items, PyObject *);
        if (!item || failed) {
            failed = 1;
            Py_XDECREF(item);
            continue;
        }
        PyStructSequence_SET_ITEM(result, i, item);
    }
    va_end(items);
    if (failed) Py_CLEAR(result);
    return result;
}

/* Failure-kind strings made once per distinct value in a scan: a run has a few kinds, repeated. */
#define KIND_CACHE 64
typedef struct {
    PyObject *text[KIND_CACHE];
    Py_ssize_t len[KIND_CACHE];
    const char *utf8[KIND_CACHE];
} KindStrings;

static PyObject *kind_string(KindStrings *cache, const uint8_t *s, size_t n) {
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    size_t slot = h % KIND_CACHE;
    if (cache->text[slot] && (size_t)cache->len[slot] == n && memcmp(cache->utf8[slot], s, n) == 0) {
        Py_INCREF(cache->text[slot]);
        return cache->text[slot];
    }
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)n, NULL);
    if (!text) return NULL;
    Py_ssize_t len;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &len);
    if (!utf8) {
        Py_DECREF(text);
        return NULL;
    }
    Py_XDECREF(cache->text[slot]);
    Py_INCREF(text);
    cache->text[slot] = text;
    cache->len[slot] = len;
    cache->utf8[slot] = utf8;
    return text;
}

static int contains(const uint8_t *s, const uint8_t *end, const uint8_t *needle, size_t n) {
    if (!n) return 0;
#if defined(__GLIBC__) || defined(__APPLE__)
    /* vectorised; the needle starts with a quote, JSON's commonest byte, a poor anchor for memchr */
    return memmem(s, (size_t)(end - s), needle, n) != NULL;
#else
    while ((size_t)(end - s) >= n) {
        const uint8_t *at = memchr(s, needle[0], (size_t)(end - s) - n + 1);
        if (!at) return 0;
        if (memcmp(at, needle, n) == 0) return 1;
        s = at + 1;
    }
    return 0;
#endif
}

/* A scan call has two phases. The scan (scan_lines) reads the buffer into C arrays and touches no Python
 * object, so on a large buffer it runs without the GIL: another thread (s3fs's event loop downloading the next
 * block, a --follow reader) runs meanwhile instead of waiting for the whole chunk. The results are then made
 * from those arrays with the GIL, and the group label function is called there. The arrays grow with
 * PyMem_Raw* (no GIL needed); running out of memory is the first phase's only error. */
#define GIL_FREE_BYTES (64 * 1024) /* below this the scan keeps the GIL: a handover would cost more than it frees */

/* Room for one more item of `size` bytes in a C array of `count`; -1 when out of memory. */
static int reserve(void **items, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return 0;
    size_t more = *capacity ? *capacity * 2 : 64;
    void *grown = PyMem_RawRealloc(*items, more * size);
    if (!grown) return -1;
    *items = grown;
    *capacity = more;
    return 0;
}

typedef struct {
    Py_ssize_t index, start, stop; /* a line's index in its chunk, and its bytes [start, stop) */
} LineSpan;

typedef struct {
    LineSpan *at;
    size_t count, capacity;
} Spans;

static int spans_add(Spans *spans, LineSpan line) {
    if (reserve((void **)&spans->at, &spans->capacity, spans->count, sizeof *spans->at) < 0) return -1;
    spans->at[spans->count++] = line;
    return 0;
}

static PyObject *span_tuple(LineSpan line) { return Py_BuildValue("(nnn)", line.index, line.start, line.stop); }

/* [(index, start, end), ...] */
static PyObject *span_list(const Spans *spans) {
    PyObject *list = PyList_New((Py_ssize_t)spans->count);
    for (size_t i = 0; list && i < spans->count; i++) {
        PyObject *item = span_tuple(spans->at[i]);
        if (!item) Py_CLEAR(list);
        else PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* What the scan knows of the failure kind of a line read whole (f->scanned): KIND_TEXT (its string, inside
 * the quotes, in *text and *len), KIND_NONE (none), or KIND_REREAD (the caller parses the line). */
enum { KIND_TEXT, KIND_NONE, KIND_REREAD };

static int line_kind(const Table *table, const Fields *f, const uint8_t *q, const uint8_t *eol, const Py_buffer *needle,
                     const uint8_t **text, size_t *len) {
    if (table->kind && f->type[table->kind] == T_STR) {
        const uint8_t *s = f->start[table->kind] + 1, *e = f->stop[table->kind] - 1; /* inside the quotes */
        if (e > s) {
            if (memchr(s, '\\', (size_t)(e - s))) return KIND_REREAD;
            *text = s, *len = (size_t)(e - s);
            return KIND_TEXT;
        }
    }
    /* no kind string: the kind may come from the member the caller named (SPEC 11.1); a line read whole
     * names no member with an escape (scan_document leaves those to the reference) */
    if (contains(q, eol, (const uint8_t *)needle->buf, (size_t)needle->len)) return KIND_REREAD;
    return KIND_NONE;
}

/* The failure budget's groups (--group-by), per scan call: each distinct group value (its raw bytes: a
 * scalar's JSON text; "null" for an absent or null member, "{}" and "[]" for a container) gets an id, and
 * each distinct combination of the paths' values another, in the order lines first show them. The scan
 * assigns the ids without the GIL; the caller's function labels each value once afterwards (groups_made).
 * Open addressing over heap tables made and freed by the call: no static state. */
#define MAX_GROUP_PATHS 8
#define NO_GROUP 0xFFFFFFFFu

/* A value's raw bytes with their first and last 8 (zero-padded; tail 0 for 8 bytes or fewer), read once a
 * line: two values compare in a few register compares, and hash without a loop over their bytes. */
typedef struct {
    const uint8_t *p; /* into the scanned buffer or a literal: both outlive the call's tables */
    uint64_t head, tail;
    uint32_t len;
} Raw;

typedef struct {
    Raw raw;
    uint32_t hash, id1; /* id1: the value id + 1; 0 is an empty slot */
} ValueSlot;

typedef struct {
    uint32_t value[MAX_GROUP_PATHS];
    uint32_t hash, id1;
} ComboSlot;

typedef struct {
    uint32_t value[MAX_GROUP_PATHS]; /* its values' ids */
    Py_ssize_t first;                /* the index of the first line that has it */
} Combo;

typedef struct {
    int paths;
    uint8_t field[MAX_GROUP_PATHS]; /* the table field of each path's last member */
    ValueSlot *values;
    size_t value_mask, value_count;
    ValueSlot *value_of; /* value id -> its slot (the raw bytes to label) */
    size_t value_capacity;
    ComboSlot *combos;
    size_t combo_mask, combo_count;
    Combo *combo_of; /* combination id -> its values and first line */
    size_t combo_capacity;
    /* The line before's values and combination: most lines repeat them, and then need no hashing. */
    Raw last[MAX_GROUP_PATHS];
    uint32_t last_id[MAX_GROUP_PATHS], last_combo;
    int has_last;
} Groups;

/* The Raw of the n bytes at p, reading none outside them (a value may end its buffer). */
HOT Raw raw_of(const uint8_t *p, size_t n) {
    Raw r = {p, 0, 0, (uint32_t)n};
    if (n >= 8) {
        memcpy(&r.head, p, 8);
        if (n > 8) memcpy(&r.tail, p + n - 8, 8);
    } else if (n >= 4) { /* two overlapping 4-byte reads: the bytes they share are the same */
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        r.head = a | (uint64_t)b << (8 * (n - 4));
    } else if (n) {
        r.head = p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) | (uint64_t)p[n - 1] << (8 * (n - 1));
    }
    return r;
}

/* Equal bytes: the first and last 8 cover values of up to 16 bytes; longer ones compare the middle too. */
HOT int same_raw(const Raw *a, const Raw *b) {
    return a->len == b->len && a->head == b->head && a->tail == b->tail &&
           (a->len <= 16 || same_bytes(a->p + 8, b->p + 8, a->len - 16));
}

HOT uint32_t raw_hash(const Raw *r) {
    uint64_t h = (r->head * 0x9E3779B97F4A7C15ULL) ^ ((r->tail ^ r->len) * 0xFF51AFD7ED558CCDULL);
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32));
}

static int groups_open(Groups *g, const Table *table, PyObject *fields, PyObject *label) {
    memset(g, 0, sizeof *g);
    char *numbers;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(fields, &numbers, &n) < 0) return -1;
    if (n < 1 || n > MAX_GROUP_PATHS || !PyCallable_Check(label)) {
        PyErr_SetString(PyExc_ValueError, "budget: group fields (1 to MAX_GROUP_PATHS bytes) and a label callable");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t number = (uint8_t)numbers[i];
        if (number < 1 || number > table->count) {
            PyErr_SetString(PyExc_ValueError, "budget: a group field outside the field table");
            return -1;
        }
        g->field[i] = number;
    }
    g->paths = (int)n;
    g->value_mask = g->combo_mask = 63;
    g->values = PyMem_RawCalloc(64, sizeof(ValueSlot));
    g->combos = PyMem_RawCalloc(64, sizeof(ComboSlot));
    if (!g->values || !g->combos) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void groups_close(Groups *g) {
    PyMem_RawFree(g->values);
    PyMem_RawFree(g->value_of);
    PyMem_RawFree(g->combos);
    PyMem_RawFree(g->combo_of);
    memset(g, 0, sizeof *g);
}

/* Doubles a table of slots (kept at most half full); `hash` reads a slot's hash, `used` whether it is one. */
static void *grow_slots(void *slots, size_t *mask, size_t size, size_t hash_at, size_t id_at) {
    size_t old = *mask + 1, cap = old * 2;
    uint8_t *grown = PyMem_RawCalloc(cap, size), *from = slots;
    if (!grown) return NULL;
    for (size_t i = 0; i < old; i++) {
        uint32_t hash, id1;
        memcpy(&hash, from + i * size + hash_at, 4);
        memcpy(&id1, from + i * size + id_at, 4);
        if (!id1) continue;
        size_t j = hash & (cap - 1);
        while (1) {
            uint32_t taken;
            memcpy(&taken, grown + j * size + id_at, 4);
            if (!taken) break;
            j = (j + 1) & (cap - 1);
        }
        memcpy(grown + j * size, from + i * size, size);
    }
    PyMem_RawFree(slots);
    *mask = cap - 1;
    return grown;
}

/* The id of a value by its raw bytes, made at its first sight; -1 when out of memory. */
static int64_t value_id(Groups *g, const Raw *raw) {
    uint32_t h = raw_hash(raw);
    size_t j = h & g->value_mask;
    for (; g->values[j].id1; j = (j + 1) & g->value_mask) {
        ValueSlot *v = &g->values[j];
        if (v->hash == h && same_raw(&v->raw, raw)) return (int64_t)v->id1 - 1;
    }
    if (reserve((void **)&g->value_of, &g->value_capacity, g->value_count, sizeof *g->value_of) < 0) return -1;
    uint32_t id = (uint32_t)g->value_count;
    g->values[j] = g->value_of[id] = (ValueSlot){*raw, h, id + 1};
    if (++g->value_count * 2 > g->value_mask) {
        ValueSlot *grown = grow_slots(g->values, &g->value_mask, sizeof(ValueSlot), offsetof(ValueSlot, hash),
                                      offsetof(ValueSlot, id1));
        if (!grown) return -1;
        g->values = grown;
    }
    return id;
}

/* The combination id of the group members of a line read whole (f->scanned), or of a line without a
 * document (f NULL: every member absent), made at its first sight at line `index`; -1 when out of memory. */
static int64_t group_id(Groups *g, const Fields *f, Py_ssize_t index) {
    uint32_t ids[MAX_GROUP_PATHS] = {0};
    uint32_t h = 2166136261u;
    int same = g->has_last; /* every value the line before's */
    for (int i = 0; i < g->paths; i++) {
        int field = g->field[i];
        Raw raw;
        switch (f ? f->type[field] : T_NONE) {
        case T_NONE:
        case T_NULL:
            raw = (Raw){(const uint8_t *)"null", 0x6C6C756EULL, 0, 4}; /* raw_of("null", 4) */
            break;
        case T_OBJ:
            raw = (Raw){(const uint8_t *)"{}", 0x7D7BULL, 0, 2};
            break;
        case T_ARR:
            raw = (Raw){(const uint8_t *)"[]", 0x5D5BULL, 0, 2};
            break;
        default:
            raw = raw_of(f->start[field], (size_t)(f->stop[field] - f->start[field]));
        }
        if (g->has_last && same_raw(&g->last[i], &raw)) {
            ids[i] = g->last_id[i];
        } else { /* other bytes: another value (a value's id is that of its bytes) */
            int64_t id = value_id(g, &raw);
            if (id < 0) return -1;
            ids[i] = (uint32_t)id;
            same = 0;
            g->last[i] = raw, g->last_id[i] = ids[i];
        }
        h = (h ^ ids[i]) * 16777619u;
    }
    if (same) return g->last_combo;
    g->has_last = 1;
    size_t j = h & g->combo_mask;
    for (; g->combos[j].id1; j = (j + 1) & g->combo_mask) {
        ComboSlot *c = &g->combos[j];
        if (c->hash == h && memcmp(c->value, ids, sizeof ids) == 0) {
            g->last_combo = c->id1 - 1;
            return g->last_combo;
        }
    }
    if (reserve((void **)&g->combo_of, &g->combo_capacity, g->combo_count, sizeof *g->combo_of) < 0) return -1;
    uint32_t id = (uint32_t)g->combo_count;
    memcpy(g->combo_of[id].value, ids, sizeof ids);
    g->combo_of[id].first = index;
    g->last_combo = id;
    ComboSlot *c = &g->combos[j];
    memcpy(c->value, ids, sizeof ids);
    c->hash = h;
    c->id1 = id + 1;
    if (++g->combo_count * 2 > g->combo_mask) {
        ComboSlot *grown = grow_slots(g->combos, &g->combo_mask, sizeof(ComboSlot), offsetof(ComboSlot, hash),
                                      offsetof(ComboSlot, id1));
        if (!grown) return -1;
        g->combos = grown;
    }
    return id;
}

/* With the GIL: each value's label (label(raw), once per value, in the order lines first show them), then
 * the combinations' label tuples and first lines, as new references in *tuples and *firsts; -1 on an error. */
static int groups_made(const Groups *g, PyObject *label, PyObject **tuples, PyObject **firsts) {
    PyObject *labels = PyList_New((Py_ssize_t)g->value_count);
    *tuples = *firsts = NULL;
    for (size_t i = 0; labels && i < g->value_count; i++) {
        const ValueSlot *v = &g->value_of[i];
        PyObject *raw = PyBytes_FromStringAndSize((const char *)v->raw.p, (Py_ssize_t)v->raw.len);
        PyObject *made = raw ? PyObject_CallOneArg(label, raw) : NULL;
        Py_XDECREF(raw);
        if (!made) Py_CLEAR(labels);
        else PyList_SET_ITEM(labels, (Py_ssize_t)i, made);
    }
    if (!labels) return -1;
    *tuples = PyList_New((Py_ssize_t)g->combo_count);
    *firsts = PyList_New((Py_ssize_t)g->combo_count);
    int failed = !*tuples || !*firsts;
    for (size_t c = 0; !failed && c < g->combo_count; c++) {
        PyObject *combination = PyTuple_New(g->paths), *first = PyLong_FromSsize_t(g->combo_of[c].first);
        failed = !combination || !first;
        for (int i = 0; !failed && i < g->paths; i++) {
            PyObject *made = PyList_GET_ITEM(labels, g->combo_of[c].value[i]);
            Py_INCREF(made);
            PyTuple_SET_ITEM(combination, i, made);
        }
        if (failed) {
            Py_XDECREF(combination);
            Py_XDECREF(first);
            break;
        }
        PyList_SET_ITEM(*tuples, (Py_ssize_t)c, combination);
        PyList_SET_ITEM(*firsts, (Py_ssize_t)c, first);
    }
    Py_DECREF(labels);
    if (failed) {
        Py_CLEAR(*tuples);
        Py_CLEAR(*firsts);
        return -1;
    }
    return 0;
}

typedef struct {
    LineSpan line;
    size_t key_at;      /* its memo key's bytes in LineResults.keys */
    Py_ssize_t key_len; /* -1: no memo key */
} OtherLine;

typedef struct {
    LineSpan line;
    const uint8_t *text; /* KIND_TEXT: the kind's string inside its quotes, in the buffer */
    size_t len;
    int what; /* KIND_* */
} KindNote;

/* The per-line results of a scan call, in C arrays the scan fills without the GIL. */
typedef struct {
    size_t capacity;    /* of status and group_of */
    Py_ssize_t lines;   /* lines scanned */
    uint8_t *status;    /* a status byte per line */
    uint32_t *group_of; /* budget with groups: each line's combination id, or NO_GROUP */
    OtherLine *others;  /* the lines neither blank nor clean */
    size_t other_count, other_capacity;
    uint8_t *keys; /* their memo keys, one after another */
    size_t key_bytes, key_capacity;
    KindNote *kinds; /* budget: the lines whose kind the scan can say, or leaves to a parse */
    size_t kind_count, kind_capacity;
    Spans unread; /* budget with groups: the lines without an id, not blank */
} LineResults;

static int results_open(LineResults *r, size_t capacity, int groups) {
    memset(r, 0, sizeof *r);
    r->capacity = capacity;
    r->status = PyMem_RawMalloc(capacity);
    if (groups) r->group_of = PyMem_RawMalloc(capacity * sizeof(uint32_t));
    return !r->status || (groups && !r->group_of) ? -1 : 0;
}

static int results_grow(LineResults *r) {
    size_t capacity = r->capacity * 2;
    uint8_t *status = PyMem_RawRealloc(r->status, capacity);
    if (!status) return -1;
    r->status = status;
    if (r->group_of) {
        uint32_t *more = PyMem_RawRealloc(r->group_of, capacity * sizeof(uint32_t));
        if (!more) return -1;
        r->group_of = more;
    }
    r->capacity = capacity;
    return 0;
}

static void results_close(LineResults *r) {
    PyMem_RawFree(r->status);
    PyMem_RawFree(r->group_of);
    PyMem_RawFree(r->others);
    PyMem_RawFree(r->keys);
    PyMem_RawFree(r->kinds);
    PyMem_RawFree(r->unread.at);
    memset(r, 0, sizeof *r);
}

/* The failure budget's view of a scan (scan_budget); a plain scan has none. */
typedef struct {
    Py_buffer needle;   /* a quoted member name whose presence means the kind may come from elsewhere */
    PyObject *no_kind;  /* the kind of a line without one */
    PyObject *group_fields, *label; /* with --group-by; else None */
    Groups groups;      /* open when grouped */
    int grouped;
} BudgetView;

static int add_other(LineResults *r, LineSpan line, const KeyBuf *key, int keyed) {
    if (reserve((void **)&r->others, &r->other_capacity, r->other_count, sizeof *r->others) < 0) return -1;
    OtherLine other = {line, r->key_bytes, -1};
    if (keyed) {
        while (r->key_bytes + key->len > r->key_capacity) {
            size_t more = r->key_capacity ? r->key_capacity * 2 : 4096;
            uint8_t *grown = PyMem_RawRealloc(r->keys, more);
            if (!grown) return -1;
            r->keys = grown, r->key_capacity = more;
        }
        memcpy(r->keys + r->key_bytes, key->buf, key->len);
        r->key_bytes += key->len;
        other.key_len = (Py_ssize_t)key->len;
    }
    r->others[r->other_count++] = other;
    return 0;
}

/* The budget's failure kind of the line [q, next), where the scan can say it or knows a parse must. */
static int note_kind(LineResults *r, const Table *table, const Py_buffer *needle, const Fields *f, int status,
                     int keyed, const KeyBuf *key, LineSpan line, const uint8_t *q, const uint8_t *next) {
    int unclean = status == STATUS_TEXT || status == STATUS_CONTRACT;
    KindNote note = {line, NULL, 0, KIND_NONE};
    /* classify: 1 + masked + ...; a clean unmasked line is a usable rollout whatever its kind */
    if (f->scanned && (unclean || ((status - 1) & 1)))
        note.what = line_kind(table, f, q, next, needle, &note.text, &note.len);
    else if (!(keyed && status == STATUS_TEXT && key->buf[0] != 'C'))
        return 0; /* (a text key names a defect of the JSON text itself: there is no document, so no kind) */
    if (reserve((void **)&r->kinds, &r->kind_capacity, r->kind_count, sizeof *r->kinds) < 0) return -1;
    r->kinds[r->kind_count++] = note;
    return 0;
}

/* The budget's group of the line, where the scan can say it; else its span in unread. */
static int note_group(Groups *g, LineResults *r, const Fields *f, int status, int keyed, const KeyBuf *key,
                      LineSpan line) {
    r->group_of[line.index] = NO_GROUP;
    /* a text key of a defect orjson refuses too (a NaN token, a syntax error, ill-formed UTF-8, a byte order
     * mark): the caller's parse would find no document, so every member is absent */
    int refused = keyed && status == STATUS_TEXT && memchr("NSUB", key->buf[0], 4);
    /* a line read whole, or read past its repeated names (none on a group path: the last value a parse keeps
     * decides no group member); orjson, the caller's parse, reads long integers its own way */
    if (((f->scanned || f->past_repeats) && !f->wide_int) || refused) {
        int64_t id = group_id(g, refused ? NULL : f, line.index);
        if (id < 0) return -1;
        r->group_of[line.index] = (uint32_t)id;
        return 0;
    }
    if (status == STATUS_BLANK) return 0;
    return spans_add(&r->unread, line);
}

/* Every line of [base, end) into r, with the budget's kinds and groups when b is given: 0, or -1 when out of
 * memory. Touches no Python object: it may run without the GIL. */
static int scan_lines(Scanner *scanner, const uint8_t *base, const uint8_t *end, LineResults *r, BudgetView *b) {
    Fields f;
    KeyBuf key;
    for (const uint8_t *q = base; q < end; r->lines++) {
        Py_ssize_t index = r->lines;
        if ((size_t)index >= r->capacity && results_grow(r) < 0) return -1;
        int status, keyed;
        const uint8_t *next = scan_line(scanner, q, end, &f, &key, &status, &keyed);
        r->status[index] = (uint8_t)status;
        LineSpan line = {index, (Py_ssize_t)(q - base), (Py_ssize_t)(next - base)};
        if ((status == STATUS_TEXT || status == STATUS_CONTRACT) && add_other(r, line, &key, keyed) < 0) return -1;
        if (b && note_kind(r, &scanner->table, &b->needle, &f, status, keyed, &key, line, q, next) < 0) return -1;
        if (b && b->grouped && note_group(&b->groups, r, &f, status, keyed, &key, line) < 0) return -1;
        q = next;
    }
    return 0;
}

/* [(index, start, end, memo key or None), ...] of the lines neither blank nor clean. */
static PyObject *others_list(const LineResults *r) {
    PyObject *list = PyList_New((Py_ssize_t)r->other_count);
    for (size_t i = 0; list && i < r->other_count; i++) {
        const OtherLine *o = &r->others[i];
        PyObject *memo_key = Py_None;
        if (o->key_len < 0) Py_INCREF(Py_None);
        else memo_key = PyBytes_FromStringAndSize((const char *)r->keys + o->key_at, o->key_len);
        PyObject *item = memo_key ? Py_BuildValue("(nnnN)", o->line.index, o->line.start, o->line.stop, memo_key) : NULL;
        if (!item) Py_CLEAR(list);
        else PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* LineKinds(where, kinds) into *known and the reread spans into *reread, from the scan's notes: a kind
 * string that is not UTF-8 the reference would read is the caller's to parse too. -1 on an error. */
static int budget_kinds(ModuleState *state, const LineResults *r, PyObject *no_kind, PyObject **known,
                        PyObject **reread) {
    KindStrings cache;
    memset(&cache, 0, sizeof cache);
    PyObject *kinds = PyList_New(0);
    *reread = PyList_New(0);
    *known = NULL;
    uint32_t *where = PyMem_Malloc((r->kind_count + 1) * sizeof(uint32_t));
    Py_ssize_t count = 0;
    int failed = !kinds || !*reread || !where;
    if (!where) PyErr_NoMemory();
    for (size_t i = 0; !failed && i < r->kind_count; i++) {
        const KindNote *note = &r->kinds[i];
        int again = note->what == KIND_REREAD;
        PyObject *kind = NULL;
        if (note->what == KIND_NONE) {
            kind = no_kind;
            Py_INCREF(kind);
        } else if (note->what == KIND_TEXT && !(kind = kind_string(&cache, note->text, note->len))) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                failed = 1;
                break;
            }
            PyErr_Clear(); /* not UTF-8 the reference would read: the line is read by the caller */
            again = 1;
        }
        if (kind) {
            where[count++] = (uint32_t)note->line.index;
            failed = PyList_Append(kinds, kind) < 0;
            Py_DECREF(kind);
        }
        if (again && !failed) {
            PyObject *item = span_tuple(note->line);
            failed = !item || PyList_Append(*reread, item) < 0;
            Py_XDECREF(item);
        }
    }
    for (int i = 0; i < KIND_CACHE; i++) Py_XDECREF(cache.text[i]);
    if (!failed) *known = named(state->LineKinds, 2, PyBytes_FromStringAndSize((const char *)where, count * 4), kinds);
    else Py_XDECREF(kinds);
    PyMem_Free(where);
    if (!*known) Py_CLEAR(*reread);
    return *known ? 0 : -1;
}

/* ChunkGroups(ids, combinations, firsts, unread), or None without groups. */
static PyObject *chunk_groups(ModuleState *state, const LineResults *r, BudgetView *b) {
    if (!b->grouped) Py_RETURN_NONE;
    PyObject *tuples, *firsts;
    if (groups_made(&b->groups, b->label, &tuples, &firsts) < 0) return NULL;
    PyObject *ids = PyBytes_FromStringAndSize((const char *)r->group_of, r->lines * (Py_ssize_t)sizeof(uint32_t));
    return named(state->ChunkGroups, 4, ids, tuples, firsts, span_list(&r->unread));
}

/* The scan of one chunk: Scan, or BudgetScan with b. The field table and kinds are loaded into a scanner of
 * this call's own. */
static PyObject *scan_chunk(ModuleState *state, const Py_buffer *buf, const Py_buffer *fields, const Py_buffer *kinds,
                            BudgetView *b) {
    Scanner *scanner = PyMem_Malloc(sizeof *scanner);
    if (!scanner) return PyErr_NoMemory();
    PyObject *result = NULL;
    LineResults r;
    memset(&r, 0, sizeof r);
    if (!load_kinds(&scanner->kinds, (const uint8_t *)kinds->buf, (size_t)kinds->len)) {
        PyErr_SetString(PyExc_ValueError, "kinds: expected at most 512 names as \\0a\\0b\\0");
        goto done;
    }
    if (!load_table(&scanner->table, (const uint8_t *)fields->buf, (size_t)fields->len)) {
        PyErr_SetString(PyExc_ValueError, "fields: not a field table (see fastpath.field_table)");
        goto done;
    }
    if (b && b->grouped) {
        if (groups_open(&b->groups, &scanner->table, b->group_fields, b->label) < 0) goto done;
        table_group_paths(&scanner->table, b->groups.field, (size_t)b->groups.paths);
    }
    /* Without the GIL the buffer stays as it is: the caller's Py_buffer export keeps it alive, and bytes cannot
     * change, nor can a bytearray or mmap with an export be resized or closed. */
    const uint8_t *base = (const uint8_t *)buf->buf;
    PyThreadState *released = buf->len >= GIL_FREE_BYTES ? PyEval_SaveThread() : NULL;
    int failed = results_open(&r, (size_t)buf->len / 64 + 64, b && b->grouped) < 0 ||
                 scan_lines(scanner, base, base + buf->len, &r, b) < 0;
    if (released) PyEval_RestoreThread(released);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *statuses = PyBytes_FromStringAndSize((const char *)r.status, r.lines);
    if (!b) {
        result = named(state->Scan, 2, statuses, others_list(&r));
        goto done;
    }
    PyObject *known, *reread;
    if (budget_kinds(state, &r, b->no_kind, &known, &reread) < 0) {
        Py_XDECREF(statuses);
        goto done;
    }
    result = named(state->BudgetScan, 5, statuses, others_list(&r), known, reread, chunk_groups(state, &r, b));
done:
    results_close(&r);
    PyMem_Free(scanner);
    return result;
}

PyDoc_STRVAR(scan_doc,
             "scan(buffer, fields, kinds) -> Scan(statuses, others)\n\n"
             "Classify every newline-terminated line of buffer (the last line may lack its own newline) by the\n"
             "field table fields (fastpath.field_table) and the registered kinds (\\0a\\0b\\0).\n"
             "statuses holds one byte per line; others lists (index, start, end, key) of the lines that are\n"
             "neither blank nor clean, key being a memo key (bytes) or None.\n"
             "A buffer of 64 KiB or more is scanned without the GIL, so other threads run meanwhile; the caller\n"
             "leaves a writable buffer's contents alone until the call returns.");

static PyObject *scan(PyObject *module, PyObject *args) {
    Py_buffer buf, fields, kinds;
    if (!PyArg_ParseTuple(args, "y*y*y*", &buf, &fields, &kinds)) return NULL;
    PyObject *result = scan_chunk(PyModule_GetState(module), &buf, &fields, &kinds, NULL);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&fields);
    PyBuffer_Release(&kinds);
    return result;
}

PyDoc_STRVAR(scan_budget_doc,
             "scan_budget(buffer, fields, kinds, member, no_kind, group_fields=None, label=None)\n"
             "    -> BudgetScan(statuses, others, line_kinds, reread, groups)\n\n"
             "scan(), plus the failure budget's view. member is a quoted member name (bytes) whose presence means\n"
             "a line's failure kind may come from elsewhere than the failure-kind field.\n"
             "line_kinds is LineKinds(where, kinds): where holds the indices (uint32, native order) of the lines\n"
             "whose failure kind the scan knows, in order, and kinds those kinds: a line it read whole that is not\n"
             "clean and unmasked (the field's string value, or no_kind without the field and the member), a\n"
             "line whose memo key names a defect of its JSON text (no_kind: it has no document); reread lists\n"
             "(index, start, end) of the lines read whole whose kind it leaves to a parse (an escape in the\n"
             "kind, or the member name present). gather() reads line_kinds.\n"
             "With group_fields and label, groups holds the --group-by values of each line (else None):\n"
             "group_fields holds the field-table number of each group path's member (a byte each, at most\n"
             "MAX_GROUP_PATHS), label(raw) makes a value's label from its JSON text, called once per distinct\n"
             "text (b\"null\" for an absent or null member, b\"{}\" and b\"[]\" for containers), after the scan, with\n"
             "the GIL, in the order lines first show the texts. groups is\n"
             "ChunkGroups(ids, combinations, firsts, unread): ids a uint32 per line (native order), the id of its\n"
             "combination of labels, 0xFFFFFFFF for a blank line or one the scan did not read whole (or read\n"
             "with an integer past 18 digits; a line whose first defect is a repeated member name that no path\n"
             "has is read on past it: whichever value wins, its groups are the same); combinations the label\n"
             "tuples by id, in the order lines first show them, firsts the index of that line; unread lists\n"
             "(index, start, end) of the lines without an id that are not blank, for the caller to parse.");

static PyObject *scan_budget(PyObject *module, PyObject *args) {
    Py_buffer buf, fields, kinds;
    BudgetView b;
    memset(&b, 0, sizeof b);
    b.group_fields = b.label = Py_None;
    if (!PyArg_ParseTuple(args, "y*y*y*y*O|OO", &buf, &fields, &kinds, &b.needle, &b.no_kind, &b.group_fields,
                          &b.label))
        return NULL;
    PyObject *result = NULL;
    b.grouped = b.group_fields != Py_None;
    if (b.grouped != (b.label != Py_None) || (b.grouped && !PyBytes_Check(b.group_fields)))
        PyErr_SetString(PyExc_TypeError, "scan_budget: group_fields (bytes) and label go together");
    else
        result = scan_chunk(PyModule_GetState(module), &buf, &fields, &kinds, &b);
    groups_close(&b.groups);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&fields);
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&b.needle);
    return result;
}

PyDoc_STRVAR(count_lines_doc, "count_lines(buffer) -> int\n\nThe number of lines: newlines, plus one if the last line lacks its own.");

/* bytes.count(b"\n") looks at one byte at a time; memchr is several times faster on long lines. */
static PyObject *count_lines(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf)) return NULL;
    const uint8_t *q = (const uint8_t *)buf.buf, *end = q + buf.len;
    Py_ssize_t lines = 0;
    while (q < end) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        lines++;
        q = nl ? nl + 1 : end;
    }
    PyBuffer_Release(&buf);
    return PyLong_FromSsize_t(lines);
}

PyDoc_STRVAR(histogram_doc, "histogram(buffer) -> list\n\nHow many times each byte value occurs, in one pass.");

/* Status counts of a chunk in one pass (bytes.count would take one pass per status). */
static PyObject *histogram(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf)) return NULL;
    Py_ssize_t counts[256] = {0};
    const uint8_t *q = (const uint8_t *)buf.buf;
    for (Py_ssize_t i = 0; i < buf.len; i++) counts[q[i]]++;
    PyBuffer_Release(&buf);
    PyObject *list = PyList_New(256);
    if (!list) return NULL;
    for (int i = 0; i < 256; i++) {
        PyObject *n = PyLong_FromSsize_t(counts[i]);
        if (!n) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, n);
    }
    return list;
}

PyDoc_STRVAR(utf8_valid_doc,
             "utf8_valid(buffer, implementation) -> bool\n\n"
             "Whether buffer is UTF-8 by one of UTF8_IMPLEMENTATIONS (tests compare them with Python's decoder).");

static PyObject *utf8_valid(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf;
    const char *name;
    if (!PyArg_ParseTuple(args, "y*s", &buf, &name)) return NULL;
    Utf8Run run = NULL;
    if (strcmp(name, "scalar") == 0) run = utf8_run_scalar;
#if defined(UTF8_SIMD)
    else if (strcmp(name, "ssse3") == 0 && __builtin_cpu_supports("ssse3")) run = utf8_run_ssse3;
    else if (strcmp(name, "avx2") == 0 && __builtin_cpu_supports("avx2")) run = utf8_run_avx2;
#endif
    if (!run) {
        PyBuffer_Release(&buf);
        PyErr_Format(PyExc_ValueError, "no UTF-8 implementation %s on this machine", name);
        return NULL;
    }
    const uint8_t *p = (const uint8_t *)buf.buf;
    int valid = utf8_valid_with(run, p, p + buf.len);
    PyBuffer_Release(&buf);
    return PyBool_FromLong(valid);
}

/* Module attribute `name`: a tuple of these strings. */
static int add_string_tuple(PyObject *m, const char *name, const char *const *items, int count) {
    PyObject *tuple = PyTuple_New(count);
    if (!tuple) return -1;
    for (int i = 0; i < count; i++) {
        PyObject *item = PyUnicode_FromString(items[i]);
        if (!item) {
            Py_DECREF(tuple);
            return -1;
        }
        PyTuple_SET_ITEM(tuple, i, item);
    }
    if (PyModule_AddObject(m, name, tuple) < 0) {
        Py_DECREF(tuple);
        return -1;
    }
    return 0;
}

/* UTF8_IMPLEMENTATIONS: the utf8_run variants this machine runs, the scalar one first. */
static int add_implementations(PyObject *m) {
    const char *supported[3] = {"scalar"};
    int count = 1;
#if defined(UTF8_SIMD)
    if (__builtin_cpu_supports("ssse3")) supported[count++] = "ssse3";
    if (__builtin_cpu_supports("avx2")) supported[count++] = "avx2";
#endif
    if (add_string_tuple(m, "UTF8_IMPLEMENTATIONS", supported, count) < 0) return -1;
    return PyModule_AddStringConstant(m, "UTF8_IMPLEMENTATION", utf8_run_name);
}

PyDoc_STRVAR(scatter_doc, "scatter(target, others, states) -> None\n\n"
                          "For each (index, start, end, key) of others (scan's list): target[index] = states[key]\n"
                          "(target a writable buffer, states a dict of ints 0-255); a key states lacks leaves the\n"
                          "byte as it is.");

/* The failure budget's state of each line the pre-check handed on, from its memo key's, without a Python
 * step per line. */
static PyObject *scatter(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer target;
    PyObject *others, *states;
    if (!PyArg_ParseTuple(args, "w*O!O!", &target, &PyList_Type, &others, &PyDict_Type, &states)) return NULL;
    PyObject *result = NULL;
    uint8_t *t = (uint8_t *)target.buf;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(others); i++) {
        PyObject *item = PyList_GET_ITEM(others, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 4) {
            PyErr_SetString(PyExc_TypeError, "scatter: others holds (index, start, end, key) tuples");
            goto done;
        }
        PyObject *state = PyDict_GetItemWithError(states, PyTuple_GET_ITEM(item, 3));
        if (!state) {
            if (PyErr_Occurred()) goto done;
            continue;
        }
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
        long value = PyLong_AsLong(state);
        if ((at == -1 || value == -1) && PyErr_Occurred()) goto done;
        if (at < 0 || at >= target.len || value < 0 || value > 255) {
            PyErr_SetString(PyExc_ValueError, "scatter: an index outside target or a state outside 0-255");
            goto done;
        }
        t[at] = (uint8_t)value;
    }
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyBuffer_Release(&target);
    return result;
}

PyDoc_STRVAR(window_scan_doc,
             "window_scan(carried, offsets, first, window, judged, bounds, active, carried_run, follows_carried,\n"
             "            limit)\n"
             "    -> WindowScan(worst, worst_at, worst_inside, worst_size, longest, longest_at, last_run, active, events)\n\n"
             "The failure budget's sliding windows over a run of masked or failed rollouts (budget.record_run).\n"
             "The ordinals of the masked or failed rollouts, increasing: carried lists those still in the window\n"
             "before the run, offsets the run's (its k-th has the ordinal first + offsets[k]). For each of the\n"
             "run's (k from 0) the window is the last\n"
             "`window` rollouts up to it, its rate the masked ones in it over min(window, ordinal); its run is\n"
             "the consecutive masked rollouts ending at it (carried_run before the first when follows_carried).\n"
             "Windows from k = judged on are judged: worst, worst_at, worst_inside, worst_size are the highest\n"
             "rate, the first k that has it and that window's counts (-1.0, -1, 0, 0: none judged); a window\n"
             "enters level i when its rate exceeds bounds[i] and the window before it did not (active[i] for\n"
             "the first judged one); active comes back as each level's state after the last judged window.\n"
             "longest, longest_at and last_run: the longest run, the first k that ends it, the run at the last\n"
             "k. events lists WindowEvent(k, order, inside, size, start, run), ordered by k then order: order 0 when the\n"
             "run reaches limit (0: no limit), 1 + i when the window enters level i; start is the index of the\n"
             "window's first masked rollout among carried then the run's.");

/* Appends a WindowEvent. */
static int add_event(ModuleState *state, PyObject *events, Py_ssize_t k, Py_ssize_t order, Py_ssize_t inside,
                     Py_ssize_t size, Py_ssize_t start, Py_ssize_t run) {
    PyObject *event = named(state->WindowEvent, 6, PyLong_FromSsize_t(k), PyLong_FromSsize_t(order),
                            PyLong_FromSsize_t(inside), PyLong_FromSsize_t(size), PyLong_FromSsize_t(start),
                            PyLong_FromSsize_t(run));
    int failed = !event || PyList_Append(events, event) < 0;
    Py_XDECREF(event);
    return failed ? -1 : 0;
}

/* The levels' bounds and states before the run, from the tuples bounds_arg and active_arg (at most 8). */
static int window_levels(PyObject *bounds_arg, PyObject *active_arg, double *bounds, int *above) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bounds_arg); i++) {
        bounds[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(bounds_arg, i));
        if (bounds[i] == -1.0 && PyErr_Occurred()) return -1;
        above[i] = PyObject_IsTrue(PyTuple_GET_ITEM(active_arg, i));
        if (above[i] < 0) return -1;
    }
    return 0;
}

/* The ordinals of carried then of the run (first + each offset), in a new array: NULL on an error. */
static long long *window_ordinals(PyObject *carried_list, PyObject *offsets, long long first) {
    Py_ssize_t carried = PyList_GET_SIZE(carried_list), total = carried + PyList_GET_SIZE(offsets);
    long long *o = PyMem_Malloc(sizeof(long long) * (size_t)(total ? total : 1));
    if (!o) return (long long *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < total; i++) {
        PyObject *item = i < carried ? PyList_GET_ITEM(carried_list, i) : PyList_GET_ITEM(offsets, i - carried);
        o[i] = PyLong_AsLongLong(item);
        if (o[i] == -1 && PyErr_Occurred()) {
            PyMem_Free(o);
            return NULL;
        }
        if (i >= carried) o[i] += first;
    }
    return o;
}

static PyObject *window_scan(PyObject *module, PyObject *args) {
    ModuleState *state = PyModule_GetState(module);
    PyObject *carried_list, *offsets, *bounds_arg, *active_arg;
    Py_ssize_t window, judged, carried_run, limit;
    long long first;
    int follows_carried;
    if (!PyArg_ParseTuple(args, "O!O!LnnO!O!npn", &PyList_Type, &carried_list, &PyList_Type, &offsets, &first,
                          &window, &judged, &PyTuple_Type, &bounds_arg, &PyTuple_Type, &active_arg, &carried_run,
                          &follows_carried, &limit))
        return NULL;
    Py_ssize_t carried = PyList_GET_SIZE(carried_list), total = carried + PyList_GET_SIZE(offsets);
    Py_ssize_t nb = PyTuple_GET_SIZE(bounds_arg);
    if (window < 1 || nb > 8 || PyTuple_GET_SIZE(active_arg) != nb) {
        PyErr_SetString(PyExc_ValueError, "window_scan: bad arguments");
        return NULL;
    }
    double bounds[8];
    int above[8];
    if (window_levels(bounds_arg, active_arg, bounds, above) < 0) return NULL;
    long long *o = window_ordinals(carried_list, offsets, first);
    if (!o) return NULL;
    PyObject *events = PyList_New(0);
    if (!events) goto fail;
    double worst = -1.0;
    Py_ssize_t worst_at = -1, worst_inside = 0, worst_size = 0, start = 0, longest = 1, longest_at = 0;
    Py_ssize_t run = carried_run;
    for (Py_ssize_t k = 0; carried + k < total; k++) {
        Py_ssize_t at = carried + k;
        long long ord = o[at];
        while (o[start] <= ord - window) start++; /* the window is (ord - window, ord] */
        int follows = k ? o[at] == o[at - 1] + 1 : follows_carried;
        run = follows ? run + 1 : 1;
        if (run > longest) {
            longest = run;
            longest_at = k;
        }
        Py_ssize_t inside = at - start + 1, size = (Py_ssize_t)(ord < window ? ord : window);
        if (run == limit && add_event(state, events, k, 0, inside, size, start, run) < 0) goto fail;
        if (k < judged) continue;
        double rate = (double)inside / (double)size;
        if (rate > worst) {
            worst = rate;
            worst_at = k;
            worst_inside = inside;
            worst_size = size;
        }
        for (Py_ssize_t i = 0; i < nb; i++) {
            int now = rate > bounds[i];
            if (now && !above[i] && add_event(state, events, k, i + 1, inside, size, start, run) < 0) goto fail;
            above[i] = now;
        }
    }
    PyMem_Free(o);
    PyObject *levels = PyTuple_New(nb);
    if (!levels) {
        Py_DECREF(events);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nb; i++) PyTuple_SET_ITEM(levels, i, PyBool_FromLong(above[i]));
    return named(state->WindowScan, 9, PyFloat_FromDouble(worst), PyLong_FromSsize_t(worst_at),
                 PyLong_FromSsize_t(worst_inside), PyLong_FromSsize_t(worst_size), PyLong_FromSsize_t(longest),
                 PyLong_FromSsize_t(longest_at), PyLong_FromSsize_t(run), levels, events);
fail:
    PyMem_Free(o);
    Py_XDECREF(events);
    return NULL;
}

PyDoc_STRVAR(gather_doc, "gather(states, table, known) -> Gathered(indices, kinds, states, unknown)\n\n"
                          "For each byte of states whose entry in table (256 bytes) is not zero, in order: its\n"
                          "index, its value in known (scan_budget's line_kinds: (where, kinds), where the indices as\n"
                          "uint32 in order; None for an index not there) and the table's entry; and how many of\n"
                          "the values picked are None.");

/* The failure budget's masked and failed lines of a chunk, their kinds and states, in one pass. */
static PyObject *gather(PyObject *module, PyObject *args) {
    ModuleState *state = PyModule_GetState(module);
    Py_buffer buf, map, where;
    PyObject *values, *indices = NULL, *picked = NULL, *mapped = NULL;
    if (!PyArg_ParseTuple(args, "y*y*(y*O!)", &buf, &map, &where, &PyList_Type, &values)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t known = where.len / (Py_ssize_t)sizeof(uint32_t);
    if (map.len != 256 || where.len % (Py_ssize_t)sizeof(uint32_t) || PyList_GET_SIZE(values) != known) {
        PyErr_SetString(PyExc_ValueError, "gather: a table of 256 bytes and a value per known index");
        goto done;
    }
    const uint8_t *b = (const uint8_t *)buf.buf, *t = (const uint8_t *)map.buf;
    const uint32_t *at = (const uint32_t *)where.buf;
    Py_ssize_t n = 0, unknown = 0, j = 0;
    for (Py_ssize_t i = 0; i < buf.len; i++) n += t[b[i]] != 0;
    indices = PyList_New(n);
    picked = PyList_New(n);
    mapped = PyBytes_FromStringAndSize(NULL, n);
    if (!indices || !picked || !mapped) goto done;
    char *m = PyBytes_AS_STRING(mapped);
    for (Py_ssize_t i = 0, k = 0; i < buf.len && k < n; i++) {
        if (!t[b[i]]) continue;
        PyObject *index = PyLong_FromSsize_t(i);
        if (!index) goto done;
        while (j < known && (Py_ssize_t)at[j] < i) j++;
        PyObject *value = j < known && (Py_ssize_t)at[j] == i ? PyList_GET_ITEM(values, j) : Py_None;
        unknown += value == Py_None;
        Py_INCREF(value);
        PyList_SET_ITEM(indices, k, index);
        PyList_SET_ITEM(picked, k, value);
        m[k++] = (char)t[b[i]];
    }
    result = named(state->Gathered, 4, indices, picked, mapped, PyLong_FromSsize_t(unknown));
    indices = picked = mapped = NULL; /* taken over by the result */
done:
    Py_XDECREF(indices);
    Py_XDECREF(picked);
    Py_XDECREF(mapped);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&map);
    PyBuffer_Release(&where);
    return result;
}

PyDoc_STRVAR(group_tally_doc,
             "group_tally(parts, count, table) -> [(rollouts, offsets, positions), ...]\n\n"
             "The failure budget's groups in consecutive chunks, parts holding (states, ids, slots) for each: for\n"
             "each line whose byte in states is not 0 (a rollout), its scope is slots[ids[line]] (ids: a uint32\n"
             "per line, slots: a uint32 per id of the part, each below count). For each scope: its rollouts,\n"
             "and for those whose state has a non-zero entry in table (masked or failed) their offsets among\n"
             "the scope's rollouts and their positions among all such lines, counted across the parts.");

/* One part of group_tally: its lines added to seen (rollouts per scope) and to the scopes' lists. */
static int tally_part(PyObject *part, PyObject *result, Py_ssize_t *seen, Py_ssize_t count, const uint8_t *t,
                      Py_ssize_t *position) {
    Py_buffer buf, ids, slots;
    if (!PyTuple_Check(part) || !PyArg_ParseTuple(part, "y*y*y*", &buf, &ids, &slots)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "group_tally: parts hold (states, ids, slots)");
        return -1;
    }
    int failed = -1;
    const uint32_t *id = (const uint32_t *)ids.buf, *slot = (const uint32_t *)slots.buf;
    Py_ssize_t nslots = slots.len / (Py_ssize_t)sizeof(uint32_t);
    if (ids.len != buf.len * (Py_ssize_t)sizeof(uint32_t) || slots.len % (Py_ssize_t)sizeof(uint32_t)) {
        PyErr_SetString(PyExc_ValueError, "group_tally: a uint32 id per state and a uint32 slot per id");
        goto done;
    }
    for (Py_ssize_t i = 0; i < nslots; i++) {
        if ((Py_ssize_t)slot[i] >= count) {
            PyErr_SetString(PyExc_ValueError, "group_tally: a slot not below count");
            goto done;
        }
    }
    const uint8_t *b = (const uint8_t *)buf.buf;
    for (Py_ssize_t i = 0; i < buf.len; i++) {
        if (!b[i]) continue;
        if ((Py_ssize_t)id[i] >= nslots) {
            PyErr_SetString(PyExc_ValueError, "group_tally: a rollout without a known group id");
            goto done;
        }
        uint32_t s = slot[id[i]];
        Py_ssize_t offset = seen[s]++;
        if (!t[b[i]]) continue;
        PyObject *entry = PyList_GET_ITEM(result, s);
        PyObject *at = PyLong_FromSsize_t(offset), *where = PyLong_FromSsize_t((*position)++);
        int bad = !at || !where || PyList_Append(PyTuple_GET_ITEM(entry, 1), at) < 0 ||
                  PyList_Append(PyTuple_GET_ITEM(entry, 2), where) < 0;
        Py_XDECREF(at);
        Py_XDECREF(where);
        if (bad) goto done;
    }
    failed = 0;
done:
    PyBuffer_Release(&buf);
    PyBuffer_Release(&ids);
    PyBuffer_Release(&slots);
    return failed;
}

/* The failure budget's per-group share of a run of chunks, in one pass (BudgetRun feeds record_groups). */
static PyObject *group_tally(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *parts;
    Py_buffer map;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "O!ny*", &PyList_Type, &parts, &count, &map)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t *seen = NULL;
    if (map.len != 256 || count < 0) {
        PyErr_SetString(PyExc_ValueError, "group_tally: a count >= 0 and 256 bytes of table");
        goto done;
    }
    seen = PyMem_Calloc((size_t)count + 1, sizeof(Py_ssize_t));
    result = PyList_New(count);
    if (!seen || !result) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entry = Py_BuildValue("(nNN)", (Py_ssize_t)0, PyList_New(0), PyList_New(0));
        if (!entry) goto fail;
        PyList_SET_ITEM(result, i, entry);
    }
    Py_ssize_t position = 0;
    for (Py_ssize_t p = 0; p < PyList_GET_SIZE(parts); p++)
        if (tally_part(PyList_GET_ITEM(parts, p), result, seen, count, (const uint8_t *)map.buf, &position) < 0)
            goto fail;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *entry = PyList_GET_ITEM(result, i), *rollouts = PyLong_FromSsize_t(seen[i]);
        if (!rollouts) goto fail;
        PyObject *old = PyTuple_GET_ITEM(entry, 0);
        PyTuple_SET_ITEM(entry, 0, rollouts); /* the tuple is ours alone until returned */
        Py_DECREF(old);
    }
    goto done;
fail:
    Py_CLEAR(result);
done:
    PyMem_Free(seen);
    PyBuffer_Release(&map);
    return result;
}

static PyMethodDef methods[] = {{"scan", scan, METH_VARARGS, scan_doc},
                                {"scan_budget", scan_budget, METH_VARARGS, scan_budget_doc},
                                {"group_tally", group_tally, METH_VARARGS, group_tally_doc},
                                {"utf8_valid", utf8_valid, METH_VARARGS, utf8_valid_doc},
                                {"count_lines", count_lines, METH_VARARGS, count_lines_doc},
                                {"histogram", histogram, METH_VARARGS, histogram_doc},
                                {"scatter", scatter, METH_VARARGS, scatter_doc},
                                {"window_scan", window_scan, METH_VARARGS, window_scan_doc},
                                {"gather", gather, METH_VARARGS, gather_doc},
                                {NULL, NULL, 0, NULL}};


/* TYPE_BITS: JSON type name -> the type bits a field table gives a member of that declared type. */
static int add_type_bits(PyObject *m) {
    static const struct {
        const char *name;
        unsigned bits;
    } types[] = {{"null", 1u << T_NULL},
                 {"boolean", (1u << T_TRUE) | (1u << T_FALSE)},
                 {"object", 1u << T_OBJ},
                 {"array", 1u << T_ARR},
                 {"string", 1u << T_STR},
                 {"number", (1u << T_NUM) | (1u << T_INT)},
                 /* 1.0 is an integer to JSON Schema, T_NUM to this scanner: the reference judges it */
                 {"integer", 1u << T_INT}};
    PyObject *d = PyDict_New();
    if (!d) return -1;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        PyObject *v = PyLong_FromUnsignedLong(types[i].bits);
        if (!v || PyDict_SetItemString(d, types[i].name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return -1;
        }
        Py_DECREF(v);
    }
    return PyModule_AddObject(m, "TYPE_BITS", d);
}

/* The tags of a text key (SYNTAX_TAGS, CODED_TAGS, UTF8_TAGS): text_findings' tables must know them. */
static int add_tags(PyObject *m) {
    const char *coded[TAG_COUNT];
    int count = 0;
    for (int tag = 0; tag < TAG_COUNT; tag++)
        if (TAG_CODED(tag)) coded[count++] = syntax_tags[tag];
    if (add_string_tuple(m, "SYNTAX_TAGS", syntax_tags, TAG_COUNT) < 0 ||
        add_string_tuple(m, "CODED_TAGS", coded, count) < 0)
        return -1;
    return add_string_tuple(m, "UTF8_TAGS", utf8_tags, UTF8_COUNT);
}

/* The result types, made for each module object and kept in its state. */
static int add_result_types(PyObject *m) {
    PyTypeObject **types = state_types(PyModule_GetState(m));
    for (size_t i = 0; i < RESULT_TYPES; i++) {
        types[i] = PyStructSequence_NewType(&result_types[i]);
        if (!types[i] || PyModule_AddObjectRef(m, strrchr(result_types[i].name, '.') + 1, (PyObject *)types[i]) < 0)
            return -1;
    }
    return 0;
}

static int module_exec(PyObject *m) {
    pick_utf8_run(); /* the same choice in every module object: the CPU's */
    if (add_result_types(m) < 0 || PyModule_AddIntConstant(m, "STATUS_TEXT", STATUS_TEXT) < 0 ||
        PyModule_AddIntConstant(m, "STATUS_CONTRACT", STATUS_CONTRACT) < 0 ||
        PyModule_AddIntConstant(m, "SEM_LEGACY", SEM_LEGACY) < 0 || PyModule_AddIntConstant(m, "SEM_KIND", SEM_KIND) < 0 ||
        PyModule_AddIntConstant(m, "MAX_FIELDS", MAX_FIELDS) < 0 || PyModule_AddIntConstant(m, "MAX_DEPTH", MAX_DEPTH) < 0 ||
        PyModule_AddIntConstant(m, "CLASS_PLAIN", CLASS_PLAIN) < 0 ||
        PyModule_AddIntConstant(m, "CLASS_KIND", CLASS_KIND) < 0 ||
        PyModule_AddIntConstant(m, "CLASS_UNSURE", CLASS_UNSURE) < 0 ||
        PyModule_AddIntConstant(m, "ROLE_MASK", ROLE_MASK) < 0 ||
        PyModule_AddIntConstant(m, "ROLE_LEGACY_MASK", ROLE_LEGACY_MASK) < 0 ||
        PyModule_AddIntConstant(m, "ROLE_KIND", ROLE_KIND) < 0 ||
        PyModule_AddIntConstant(m, "ROLE_GROUP", ROLE_GROUP) < 0 ||
        PyModule_AddIntConstant(m, "MAX_GROUP_PATHS", MAX_GROUP_PATHS) < 0 ||
        PyModule_AddStringConstant(m, "KIND_GRAMMAR", KIND_GRAMMAR) < 0 || add_type_bits(m) < 0 ||
        add_tags(m) < 0 || add_implementations(m) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
    PyTypeObject **types = state_types(PyModule_GetState(m));
    for (size_t i = 0; i < RESULT_TYPES; i++) Py_VISIT(types[i]);
    return 0;
}

static int module_clear(PyObject *m) {
    PyTypeObject **types = state_types(PyModule_GetState(m));
    for (size_t i = 0; i < RESULT_TYPES; i++) Py_CLEAR(types[i]);
    return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot slots[] = {{Py_mod_exec, module_exec}, {0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_fastscan",
                                    "Fast pre-check of JSONL lines for verify-contract check.",
                                    sizeof(ModuleState),
                                    methods,
                                    slots,
                                    module_traverse,
                                    module_clear,
                                    module_free};

PyMODINIT_FUNC PyInit__fastscan(void) { return PyModuleDef_Init(&module); }
#endif /* FASTSCAN_CORE_ONLY */
