/* The fast path of `verify-contract check`: one pass over a buffer of JSONL lines.
 *
 * For each line it answers either "certainly valid and clean" (no finding at all from the reference
 * validator: strict parse per jsonio.py, schema, semantic rules) together with the few facts the report
 * counts (effective mask, legacy mask in use, failure-kind class), or "ask the reference". So this scanner
 * may be conservative but must never call clean what the reference would not: tests/test_differential.py
 * holds it to that.
 *
 * For a line it cannot settle it may add a memo key: bytes that determine the reference's whole outcome
 * for the line (check.py looks the key up, and asks the reference once per new key). Two kinds:
 *   - 'C' (contract): the text is strict JSON with no JSON-rule defect; the key holds every input of the
 *     schema and semantic rules and of the counted facts (the constrained top-level members: a type byte,
 *     plus the raw value bytes wherever the value itself can matter).
 *   - 'N' / 'D' (text event): the first defect jsonio.parse_json meets is a NaN/Infinity token (key: the
 *     token) or a duplicate member name (key: the raw name), and the whole line is valid UTF-8. jsonio
 *     decodes with Python's json module, which calls parse_constant at the token and object_pairs_hook
 *     when an object closes, left to right; this scanner walks the same way and raises the same events at
 *     the same places, so the first event here is the reference's first finding. Anything it cannot follow
 *     exactly (syntax errors, escaped names, huge objects, deep nesting, big numbers, lone surrogates)
 *     gets no key.
 *
 * Status byte per line: 0 blank, 1..12 clean (1 + masked + 2*legacy + 4*failure-kind class), and
 * STATUS_TEXT (the JSON text itself may break a rule) or STATUS_CONTRACT (the text is strict JSON with
 * no duplicate key, no deep nesting, only finite numbers and small integers, but a contract field needs
 * the reference's judgement).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define STATUS_BLANK 0
#define STATUS_TEXT 254
#define STATUS_CONTRACT 253

#define FLAG_REASON 1 /* the version declares failure_reason */
#define FLAG_V12 2    /* ... mask_sample, failure_kind, instance_config */
#define FLAG_GYM 4    /* gym profile: responses_create_params and response.output required */

#define MAX_DEPTH 100       /* jsonio.MAX_DEPTH */
#define MAX_OBJECT_KEYS 256 /* beyond this, duplicate detection is left to the reference */
#define KEY_STACK 8192
#define MAX_NUMBER_CHARS 1000
#define MEMO_KEY_BYTES 512 /* longer memo keys are not made: such lines take the reference path */

enum { T_NONE = 0, T_OBJ, T_ARR, T_STR, T_NUM, T_TRUE, T_FALSE, T_NULL };
enum { R_OTHER = 0, R_ROOT, R_ICONF, R_RESP };
enum {
    F_NONE = 0,
    F_REWARD,
    F_MASK,
    F_KIND,
    F_REASON,
    F_ICONF,
    F_RCP,
    F_RESP,
    F_ICONF_MASK,
    F_OUTPUT,
    F_COUNT
};
enum { SCAN_UNSURE = 0, SCAN_OK, SCAN_NAN, SCAN_DUP };

typedef struct {
    const uint8_t *p;
    uint32_t len;
} Key;

typedef struct {
    uint8_t is_obj;
    uint8_t role;
    uint8_t pending; /* field of the member whose value comes next */
    uint8_t field;   /* field whose value this container is */
    uint32_t key_base;
    uint32_t nkeys;
    const uint8_t *dup; /* the first repeated member name of this object */
    uint32_t dup_len;
    uint64_t seen; /* one bit per name hash: most names need no comparison at all */
} Frame;

typedef struct {
    uint8_t type[F_COUNT];
    const uint8_t *start[F_COUNT];
    const uint8_t *stop[F_COUNT];
    int wide_int; /* an integer beyond 18 digits: orjson and json would not agree on it */
    /* the event of SCAN_NAN / SCAN_DUP: the token or the raw member name */
    const uint8_t *event;
    size_t event_len;
} Fields;

static Key keys[KEY_STACK];
static Frame frames[MAX_DEPTH + 2];

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define HAS_ZERO(v) (((v) - ONES) & ~(v) & HIGHS)
#define HAS_LESS(v, n) (((v) - ONES * (n)) & ~(v) & HIGHS)
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
#endif
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
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
        if (!utf8_seq(&p, end)) return NULL;
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
HOT const uint8_t *scan_number(const uint8_t *p, const uint8_t *end, int *wide) {
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

HOT int key_field(uint8_t role, const uint8_t *k, uint32_t n) {
#define IS(lit) same_bytes(k, (const uint8_t *)lit, sizeof(lit) - 1)
    if (role == R_ROOT) {
        switch (n) {
        case 6: return IS("reward") ? F_REWARD : F_NONE;
        case 8: return IS("response") ? F_RESP : F_NONE;
        case 11: return IS("mask_sample") ? F_MASK : F_NONE;
        case 12: return IS("failure_kind") ? F_KIND : F_NONE;
        case 14: return IS("failure_reason") ? F_REASON : F_NONE;
        case 15: return IS("instance_config") ? F_ICONF : F_NONE;
        case 23: return IS("responses_create_params") ? F_RCP : F_NONE;
        default: return F_NONE;
        }
    }
    if (role == R_ICONF) return n == 11 && IS("mask_sample") ? F_ICONF_MASK : F_NONE;
    if (role == R_RESP) return n == 6 && IS("output") ? F_OUTPUT : F_NONE;
    return F_NONE;
#undef IS
}

/* The line whose '{' is at p. SCAN_OK: strict JSON with every rule of jsonio.parse_json met and the fields
 * recorded. SCAN_NAN / SCAN_DUP: that is the first defect jsonio meets, and the line is valid UTF-8.
 * SCAN_UNSURE: ask the reference. *eol is set to the line's end for all but SCAN_UNSURE. */
static int scan_document(const uint8_t *p, const uint8_t *end, Fields *f, const uint8_t **eol) {
    int depth = 1;
    uint32_t key_top = 0;
    Frame *fr = &frames[1];
    fr->is_obj = 1;
    fr->role = R_ROOT;
    fr->pending = F_NONE;
    fr->field = F_NONE;
    fr->key_base = 0;
    fr->nkeys = 0;
    fr->dup = NULL;
    fr->seen = 0;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
        goto closed;
    }

key:
    if (p >= end || *p != '"') return SCAN_UNSURE;
    {
        const uint8_t *k = p + 1;
        int esc = 0;
        p = scan_string(k, end, &esc);
        if (!p) return SCAN_UNSURE;
        if (esc) return SCAN_UNSURE; /* "a" and "\u0061" are the same name: leave escaped names to the reference */
        uint32_t n = (uint32_t)(p - 1 - k);
        if (fr->nkeys >= MAX_OBJECT_KEYS || key_top >= KEY_STACK) return SCAN_UNSURE;
        if (!fr->dup) {
            /* json's object_pairs_hook reports the first name that repeats an earlier one */
            uint64_t head = 0;
            if (end - k >= 8) {
                memcpy(&head, k, 8);
                if (n < 8) head &= (1ULL << (8 * n)) - 1;
            } else {
                for (uint32_t i = 0; i < n && i < 8; i++) head |= (uint64_t)k[i] << (8 * i);
            }
            uint64_t bit = 1ULL << (((head ^ n) * 0x9E3779B97F4A7C15ULL) >> 58);
            for (uint32_t i = (fr->seen & bit) ? fr->key_base : key_top; i < key_top; i++) {
                if (keys[i].len == n && same_bytes(keys[i].p, k, n)) {
                    fr->dup = k;
                    fr->dup_len = n;
                    break;
                }
            }
            fr->seen |= bit;
            keys[key_top].p = k;
            keys[key_top].len = n;
            key_top++;
            fr->nkeys++;
        }
        fr->pending = fr->role ? (uint8_t)key_field(fr->role, k, n) : F_NONE;
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return SCAN_UNSURE;
        p = skip_ws(p + 1, end);
    }

value:
    if (p >= end) return SCAN_UNSURE;
    {
        uint8_t field = fr->pending;
        uint8_t c = *p;
        const uint8_t *s = p;
        uint8_t type;
        if (c == '"') {
            int esc = 0;
            p = scan_string(p + 1, end, &esc);
            if (!p) return SCAN_UNSURE;
            type = T_STR;
        } else if (c == '{' || c == '[') {
            if (depth >= MAX_DEPTH) return SCAN_UNSURE;
            uint8_t role = R_OTHER;
            if (c == '{' && field == F_ICONF) role = R_ICONF;
            else if (c == '{' && field == F_RESP) role = R_RESP;
            if (field) {
                f->type[field] = c == '{' ? T_OBJ : T_ARR;
                f->start[field] = p;
            }
            depth++;
            fr = &frames[depth];
            fr->is_obj = c == '{';
            fr->role = role;
            fr->pending = F_NONE;
            fr->field = field;
            fr->key_base = key_top;
            fr->nkeys = 0;
            fr->dup = NULL;
            fr->seen = 0;
            p = skip_ws(p + 1, end);
            if (p >= end) return SCAN_UNSURE;
            if (*p == (c == '{' ? '}' : ']')) {
                p++;
                goto closed;
            }
            if (c == '{') goto key;
            goto value;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (c == '-' && end - p >= 9 && memcmp(p, "-Infinity", 9) == 0) {
                f->event = p;
                f->event_len = 9;
                goto nan;
            }
            p = scan_number(p, end, &f->wide_int);
            if (!p) return SCAN_UNSURE;
            type = T_NUM;
        } else if (c == 't') {
            if (end - p < 4 || memcmp(p, "true", 4) != 0) return SCAN_UNSURE;
            p += 4;
            type = T_TRUE;
        } else if (c == 'f') {
            if (end - p < 5 || memcmp(p, "false", 5) != 0) return SCAN_UNSURE;
            p += 5;
            type = T_FALSE;
        } else if (c == 'n') {
            if (end - p < 4 || memcmp(p, "null", 4) != 0) return SCAN_UNSURE;
            p += 4;
            type = T_NULL;
        } else if (c == 'N' && end - p >= 3 && memcmp(p, "NaN", 3) == 0) {
            /* json calls parse_constant as soon as it matches the token, whatever follows */
            f->event = p;
            f->event_len = 3;
            goto nan;
        } else if (c == 'I' && end - p >= 8 && memcmp(p, "Infinity", 8) == 0) {
            f->event = p;
            f->event_len = 8;
            goto nan;
        } else {
            return SCAN_UNSURE;
        }
        if (field) {
            f->type[field] = type;
            f->start[field] = s;
            f->stop[field] = p;
        }
    }

after_value:
    p = skip_ws(p, end);
    if (p >= end) return SCAN_UNSURE;
    if (*p == ',') {
        p = skip_ws(p + 1, end);
        if (fr->is_obj) goto key;
        /* Arrays of numbers (token ids, log probs) are most of a large line: a tight loop for them.
         * Array elements are never contract fields, so nothing is recorded. */
        while (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
            if (*p == '-' && end - p >= 2 && p[1] == 'I') goto value;
            p = scan_number(p, end, &f->wide_int);
            if (!p) return SCAN_UNSURE;
            if (p < end && *p == ',') {
                p = skip_ws(p + 1, end);
                continue;
            }
            goto after_value;
        }
        goto value;
    }
    if (*p != (fr->is_obj ? '}' : ']')) return SCAN_UNSURE;
    p++;

closed: /* p is just past the closing bracket of frames[depth] */
    if (fr->is_obj && fr->dup) {
        /* json's object_pairs_hook runs as the object closes: the duplicate is the reference's finding */
        f->event = fr->dup;
        f->event_len = fr->dup_len;
        *eol = utf8_line_end(p, end);
        return *eol ? SCAN_DUP : SCAN_UNSURE;
    }
    if (fr->field) f->stop[fr->field] = p;
    key_top = fr->key_base;
    depth--;
    if (depth) {
        fr = &frames[depth];
        goto after_value;
    }
    p = skip_ws(p, end);
    if (p < end && *p != '\n') return SCAN_UNSURE; /* more text after the value */
    *eol = p;
    return SCAN_OK;

nan:
    *eol = utf8_line_end(p, end);
    return *eol ? SCAN_NAN : SCAN_UNSURE;
}

static int is_blank(const uint8_t *p, const uint8_t *end) {
    for (; p < end; p++) {
        uint8_t c = *p;
        if (!(c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\x0b' || c == '\x0c')) return 0;
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
static int kind_class(const Fields *f, const Kinds *kinds) {
    if (f->type[F_KIND] != T_STR) return 0;
    const uint8_t *s = f->start[F_KIND] + 1;
    size_t n = (size_t)(f->stop[F_KIND] - 1 - s);
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

/* The memo key of a strict-JSON line: everything the reference's findings and the counted facts read.
 * Schema (per version and profile): reward type; mask_sample, failure_kind (grammar, registry),
 * failure_reason type, instance_config type and its mask_sample; in gym, responses_create_params type and
 * response type and its output type. Semantic rules and facts: failure_kind, both masks. No keyword
 * relates members or looks deeper, so the key decides the outcome. */
static void contract_key(const Fields *f, int flags, KeyBuf *k) {
    const uint8_t *t = f->type;
    k->len = 0;
    k->overflow = 0;
    k->buf[k->len++] = 'C';
    key_put(k, f, F_REWARD, t[F_REWARD] != T_NUM); /* a finite number: its value matters to no rule */
    key_put(k, f, F_MASK, 1);
    key_put(k, f, F_ICONF, t[F_ICONF] != T_OBJ);
    if (t[F_ICONF] == T_OBJ) key_put(k, f, F_ICONF_MASK, 1);
    if (flags & FLAG_V12) key_put(k, f, F_KIND, 1);
    if (flags & FLAG_REASON) key_put(k, f, F_REASON, t[F_REASON] != T_STR);
    if (flags & FLAG_GYM) {
        key_put(k, f, F_RCP, t[F_RCP] != T_OBJ);
        key_put(k, f, F_RESP, t[F_RESP] != T_OBJ);
        if (t[F_RESP] == T_OBJ) key_put(k, f, F_OUTPUT, t[F_OUTPUT] != T_ARR);
    }
}

static int classify(const Fields *f, int flags, const Kinds *kinds) {
    const uint8_t *t = f->type;
    int ok = t[F_REWARD] == T_NUM;
    uint8_t top = t[F_MASK], legacy = T_NONE;
    int legacy_used = 0, kind = 0;
    if (t[F_ICONF] == T_OBJ) legacy = t[F_ICONF_MASK];
    /* effective_mask() raises on a non-boolean mask at any version; leave those to the reference */
    ok = ok && (top == T_NONE || top == T_TRUE || top == T_FALSE);
    ok = ok && (legacy == T_NONE || legacy == T_TRUE || legacy == T_FALSE);
    if (flags & FLAG_V12) {
        ok = ok && (t[F_ICONF] == T_NONE || t[F_ICONF] == T_NULL || t[F_ICONF] == T_OBJ);
        if (legacy != T_NONE) {
            legacy_used = 1;
            ok = ok && top == legacy; /* otherwise legacy-mask-only or legacy-mask-divergent */
        }
        if (t[F_KIND] == T_STR) {
            kind = kind_class(f, kinds);
            ok = ok && kind != 0;
        } else {
            ok = ok && (t[F_KIND] == T_NONE || t[F_KIND] == T_NULL);
        }
    }
    if (flags & FLAG_REASON) ok = ok && (t[F_REASON] == T_NONE || t[F_REASON] == T_NULL || t[F_REASON] == T_STR);
    if (flags & FLAG_GYM) ok = ok && t[F_RCP] == T_OBJ && t[F_RESP] == T_OBJ && t[F_OUTPUT] == T_ARR;
    if (!ok) return STATUS_CONTRACT;
    int masked = top == T_TRUE || legacy == T_TRUE;
    return 1 + masked + 2 * legacy_used + 4 * kind;
}

PyDoc_STRVAR(scan_doc,
             "scan(buffer, flags, kinds) -> (statuses, others)\n\n"
             "Classify every newline-terminated line of buffer (the last line may lack its newline).\n"
             "statuses holds one byte per line; others lists (index, start, end, key) of the lines that are\n"
             "neither blank nor clean, key being a memo key (bytes) or None.");

static PyObject *scan(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf, kinds;
    int flags;
    if (!PyArg_ParseTuple(args, "y*iy*", &buf, &flags, &kinds)) return NULL;
    const uint8_t *base = (const uint8_t *)buf.buf;
    const uint8_t *end = base + buf.len;
    static Kinds kind_table;
    if (!load_kinds(&kind_table, (const uint8_t *)kinds.buf, (size_t)kinds.len)) {
        PyBuffer_Release(&buf);
        PyBuffer_Release(&kinds);
        PyErr_SetString(PyExc_ValueError, "kinds: expected at most 512 names as \\0a\\0b\\0");
        return NULL;
    }
    size_t capacity = (size_t)buf.len / 64 + 64;
    uint8_t *out = PyMem_Malloc(capacity);
    PyObject *others = PyList_New(0);
    PyObject *statuses = NULL;
    if (!out || !others) goto fail;
    Py_ssize_t index = 0;
    Fields f;
    KeyBuf key;
    for (const uint8_t *q = base; q < end; index++) {
        if ((size_t)index >= capacity) {
            capacity *= 2;
            uint8_t *grown = PyMem_Realloc(out, capacity);
            if (!grown) goto fail;
            out = grown;
        }
        const uint8_t *p = skip_ws(q, end);
        const uint8_t *eol = NULL;
        int status = STATUS_TEXT, keyed = 0;
        if (p < end && *p == '{') {
            memset(f.type, 0, sizeof f.type);
            f.wide_int = 0;
            int result = scan_document(p, end, &f, &eol);
            if (result == SCAN_OK) {
                status = classify(&f, flags, &kind_table);
                if (status == STATUS_CONTRACT) {
                    contract_key(&f, flags, &key);
                    keyed = !key.overflow;
                    /* for STATUS_CONTRACT check.py has orjson build the document, which reads long
                     * integers otherwise */
                    if (f.wide_int) status = STATUS_TEXT;
                }
            } else if (result != SCAN_UNSURE && f.event_len + 1 <= MEMO_KEY_BYTES) {
                key.buf[0] = result == SCAN_NAN ? 'N' : 'D';
                memcpy(key.buf + 1, f.event, f.event_len);
                key.len = f.event_len + 1;
                keyed = 1;
            }
        }
        if (!eol) {
            eol = memchr(q, '\n', (size_t)(end - q));
            if (!eol) eol = end;
            if (status == STATUS_TEXT && (p >= end || *p != '{') && is_blank(q, eol)) status = STATUS_BLANK;
        }
        const uint8_t *next = eol < end ? eol + 1 : end;
        out[index] = (uint8_t)status;
        if (status == STATUS_TEXT || status == STATUS_CONTRACT) {
            PyObject *memo_key;
            if (keyed) {
                memo_key = PyBytes_FromStringAndSize((const char *)key.buf, (Py_ssize_t)key.len);
                if (!memo_key) goto fail;
            } else {
                Py_INCREF(Py_None);
                memo_key = Py_None;
            }
            PyObject *item = Py_BuildValue("(nnnN)", index, (Py_ssize_t)(q - base), (Py_ssize_t)(next - base), memo_key);
            if (!item || PyList_Append(others, item) < 0) {
                Py_XDECREF(item);
                goto fail;
            }
            Py_DECREF(item);
        }
        q = next;
    }
    statuses = PyBytes_FromStringAndSize((const char *)out, index);
    if (!statuses) goto fail;
    PyMem_Free(out);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&kinds);
    return Py_BuildValue("(NN)", statuses, others);
fail:
    PyMem_Free(out);
    Py_XDECREF(others);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&kinds);
    return NULL;
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

static PyMethodDef methods[] = {{"scan", scan, METH_VARARGS, scan_doc},
                                {"count_lines", count_lines, METH_VARARGS, count_lines_doc},
                                {"histogram", histogram, METH_VARARGS, histogram_doc},
                                {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastscan",
                                    "Fast pre-check of JSONL lines for verify-contract check.", -1, methods};

PyMODINIT_FUNC PyInit__fastscan(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "STATUS_TEXT", STATUS_TEXT) < 0 ||
        PyModule_AddIntConstant(m, "STATUS_CONTRACT", STATUS_CONTRACT) < 0 ||
        PyModule_AddIntConstant(m, "FLAG_REASON", FLAG_REASON) < 0 ||
        PyModule_AddIntConstant(m, "FLAG_V12", FLAG_V12) < 0 || PyModule_AddIntConstant(m, "FLAG_GYM", FLAG_GYM) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
