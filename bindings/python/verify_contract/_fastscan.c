/* The fast path of `verify-contract check`: one pass over a buffer of JSONL lines.
 *
 * For each line it answers either "certainly valid and clean" (no finding at all from the reference
 * validator: strict parse per jsonio.py, schema, semantic rules) together with the few facts the report
 * counts (effective mask, legacy mask in use, failure-kind class), or "not sure". Not-sure lines go to the
 * Python reference path, which gives the verdict and the messages. So this scanner may be conservative
 * but must never call clean what the reference would not: tests/test_differential.py holds it to that.
 *
 * Status byte per line: 0 blank, 1..12 clean (1 + masked + 2*legacy + 4*failure-kind class), and
 * STATUS_TEXT (the JSON text itself may break a rule: full reference parse needed) or STATUS_CONTRACT
 * (the text is strict JSON with no duplicate key, no deep nesting, only finite numbers and small integers,
 * but a contract field needs the reference's judgement).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

typedef struct {
    const uint8_t *p;
    uint32_t len;
    uint32_t hash;
} Key;

typedef struct {
    uint8_t is_obj;
    uint8_t role;
    uint8_t pending; /* field of the member whose value comes next */
    uint32_t key_base;
    uint32_t nkeys;
} Frame;

typedef struct {
    uint8_t type[F_COUNT];
    const uint8_t *kind;
    size_t kind_len;
    int kind_escaped;
    int wide_int; /* an integer beyond 18 digits: orjson and json would not agree on it */
} Fields;

static Key keys[KEY_STACK];
static Frame frames[MAX_DEPTH + 2];

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define HAS_ZERO(v) (((v) - ONES) & ~(v) & HIGHS)
#define HAS_LESS(v, n) (((v) - ONES * (n)) & ~(v) & HIGHS)

static inline int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static inline const uint8_t *skip_ws(const uint8_t *p, const uint8_t *end) {
    while (p < end && is_ws(*p)) p++;
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

/* A string whose opening quote is at p[-1]. On success *out points after the closing quote. */
static inline int scan_string(const uint8_t *p, const uint8_t *end, const uint8_t **out, int *escaped,
                              uint32_t *hash) {
    int esc = 0;
    uint32_t h = 2166136261u;
    const int want_hash = hash != NULL;
    for (;;) {
        if (!want_hash) {
            while (end - p >= 8) {
                uint64_t x;
                memcpy(&x, p, 8);
                uint64_t special = HAS_ZERO(x ^ (ONES * '"')) | HAS_ZERO(x ^ (ONES * '\\')) | HAS_LESS(x, 0x20) |
                                   (x & HIGHS);
                if (special) break;
                p += 8;
            }
        }
        if (p >= end) return 0;
        uint8_t c = *p;
        if (c == '"') {
            *out = p + 1;
            *escaped = esc;
            if (want_hash) *hash = h;
            return 1;
        }
        if (c == '\\') {
            esc = 1;
            if (end - p < 2) return 0;
            uint8_t e = p[1];
            if (e == 'u') {
                int u = hex4(p + 2, end);
                if (u < 0) return 0;
                p += 6;
                /* jsonio refuses unpaired surrogates: a high one must be followed at once by a low one */
                if (u >= 0xDC00 && u <= 0xDFFF) return 0;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (end - p < 2 || p[0] != '\\' || p[1] != 'u') return 0;
                    int low = hex4(p + 2, end);
                    if (low < 0xDC00 || low > 0xDFFF) return 0;
                    p += 6;
                }
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                       e == 't') {
                p += 2;
            } else {
                return 0;
            }
            continue;
        }
        if (c < 0x20) return 0;
        if (c >= 0x80) {
            if (!utf8_seq(&p, end)) return 0;
            continue;
        }
        if (want_hash) h = (h ^ c) * 16777619u;
        p++;
    }
}

/* Past a run of ASCII digits; eight at a time where the byte order allows. */
static inline const uint8_t *skip_digits(const uint8_t *p, const uint8_t *end) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
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
static inline int scan_number(const uint8_t *p, const uint8_t *end, const uint8_t **out, int *wide) {
    const uint8_t *start = p;
    if (p < end && *p == '-') p++;
    if (p >= end) return 0;
    long int_digits;
    if (*p == '0') {
        p++;
        int_digits = 0;
    } else if (*p >= '1' && *p <= '9') {
        const uint8_t *d = p;
        p = skip_digits(p, end);
        int_digits = (long)(p - d);
    } else {
        return 0;
    }
    int is_float = 0;
    if (p < end && *p == '.') {
        p++;
        const uint8_t *d = p;
        p = skip_digits(p, end);
        if (p == d) return 0;
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
        if (p == d) return 0;
        if (p - significant > 4) return 0; /* let the reference judge absurd exponents */
        for (const uint8_t *q = significant; q < p; q++) exponent = exponent * 10 + (*q - '0');
        if (negative) exponent = -exponent;
        is_float = 1;
    }
    if (p - start > MAX_NUMBER_CHARS) return 0;
    /* |value| < 10^(int_digits + exponent) <= 10^308 < DBL_MAX: float() cannot overflow. */
    if (is_float && int_digits + exponent > 308) return 0;
    /* jsonio refuses integers that overflow binary64; below 309 digits none does */
    if (!is_float && int_digits > 308) return 0;
    if (!is_float && int_digits > 18) *wide = 1;
    *out = p;
    return 1;
}

static int key_field(uint8_t role, const uint8_t *k, uint32_t n) {
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)
    if (role == R_ROOT) {
        if (IS("reward")) return F_REWARD;
        if (IS("mask_sample")) return F_MASK;
        if (IS("failure_kind")) return F_KIND;
        if (IS("failure_reason")) return F_REASON;
        if (IS("instance_config")) return F_ICONF;
        if (IS("responses_create_params")) return F_RCP;
        if (IS("response")) return F_RESP;
    } else if (role == R_ICONF) {
        if (IS("mask_sample")) return F_ICONF_MASK;
    } else if (role == R_RESP) {
        if (IS("output")) return F_OUTPUT;
    }
    return F_NONE;
#undef IS
}

/* 1: strict JSON with every rule of jsonio.parse_json met and the fields recorded; 0: not sure. */
static int scan_document(const uint8_t *p, const uint8_t *end, Fields *f) {
    int depth = 0;
    uint32_t key_top = 0;
    p = skip_ws(p, end);
    if (p >= end || *p != '{') return 0; /* document-type and friends: the reference words them */

value:
    if (p >= end) return 0;
    {
        uint8_t field = depth ? frames[depth].pending : F_NONE;
        uint8_t c = *p;
        uint8_t type;
        if (c == '{' || c == '[') {
            if (depth >= MAX_DEPTH) return 0;
            uint8_t role = R_OTHER;
            if (depth == 0) role = R_ROOT;
            else if (c == '{' && field == F_ICONF) role = R_ICONF;
            else if (c == '{' && field == F_RESP) role = R_RESP;
            if (field) f->type[field] = c == '{' ? T_OBJ : T_ARR;
            depth++;
            Frame *fr = &frames[depth];
            fr->is_obj = c == '{';
            fr->role = role;
            fr->pending = F_NONE;
            fr->key_base = key_top;
            fr->nkeys = 0;
            p = skip_ws(p + 1, end);
            if (p >= end) return 0;
            if (*p == (c == '{' ? '}' : ']')) {
                p++;
                depth--;
                key_top = frames[depth + 1].key_base;
                goto after_value;
            }
            if (c == '{') goto key;
            goto value;
        }
        if (c == '"') {
            int esc;
            const uint8_t *s = p + 1;
            if (!scan_string(s, end, &p, &esc, NULL)) return 0;
            type = T_STR;
            if (field == F_KIND) {
                f->kind = s;
                f->kind_len = (size_t)(p - 1 - s);
                f->kind_escaped = esc;
            }
        } else if (c == 't') {
            if (end - p < 4 || memcmp(p, "true", 4) != 0) return 0;
            p += 4;
            type = T_TRUE;
        } else if (c == 'f') {
            if (end - p < 5 || memcmp(p, "false", 5) != 0) return 0;
            p += 5;
            type = T_FALSE;
        } else if (c == 'n') {
            if (end - p < 4 || memcmp(p, "null", 4) != 0) return 0;
            p += 4;
            type = T_NULL;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (!scan_number(p, end, &p, &f->wide_int)) return 0;
            type = T_NUM;
        } else {
            return 0;
        }
        if (field) f->type[field] = type;
    }

after_value:
    p = skip_ws(p, end);
    if (depth == 0) return p == end;
    if (p >= end) return 0;
    {
        Frame *fr = &frames[depth];
        if (*p == ',') {
            p = skip_ws(p + 1, end);
            if (fr->is_obj) goto key;
            /* Arrays of numbers (token ids, log probs) are most of a large line: a tight loop for them.
             * Array elements are never contract fields, so nothing is recorded. */
            while (p < end && (*p == '-' || (*p >= '0' && *p <= '9'))) {
                if (!scan_number(p, end, &p, &f->wide_int)) return 0;
                if (p < end && *p == ',') {
                    p = skip_ws(p + 1, end);
                    continue;
                }
                goto after_value;
            }
            goto value;
        }
        if (*p == (fr->is_obj ? '}' : ']')) {
            p++;
            key_top = fr->key_base;
            depth--;
            goto after_value;
        }
        return 0;
    }

key:
    if (p >= end || *p != '"') return 0;
    {
        Frame *fr = &frames[depth];
        const uint8_t *k = p + 1;
        int esc;
        uint32_t h;
        if (!scan_string(k, end, &p, &esc, &h)) return 0;
        if (esc) return 0; /* "a" and "\u0061" are the same name: leave escaped names to the reference */
        uint32_t n = (uint32_t)(p - 1 - k);
        if (fr->nkeys >= MAX_OBJECT_KEYS || key_top >= KEY_STACK) return 0;
        for (uint32_t i = fr->key_base; i < key_top; i++) {
            if (keys[i].hash == h && keys[i].len == n && memcmp(keys[i].p, k, n) == 0) return 0;
        }
        keys[key_top].p = k;
        keys[key_top].len = n;
        keys[key_top].hash = h;
        key_top++;
        fr->nkeys++;
        fr->pending = (uint8_t)key_field(fr->role, k, n);
        p = skip_ws(p, end);
        if (p >= end || *p != ':') return 0;
        p = skip_ws(p + 1, end);
        goto value;
    }
}

static int is_blank(const uint8_t *p, const uint8_t *end) {
    for (; p < end; p++) {
        uint8_t c = *p;
        if (!(c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\x0b' || c == '\x0c')) return 0;
    }
    return 1;
}

/* 0 not a clean kind, 1 registered (and not deprecated), 2 namespaced. */
static int kind_class(const Fields *f, const uint8_t *kinds, size_t kinds_len) {
    const uint8_t *s = f->kind;
    size_t n = f->kind_len;
    if (f->kind_escaped || n == 0) return 0;
    int colon = -1;
    size_t part = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == ':') {
            if (colon >= 0 || part == 0) return 0;
            colon = (int)i;
            part = 0;
            continue;
        }
        if (part == 0 ? !(c >= 'a' && c <= 'z') : !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
        part++;
    }
    if (part == 0) return 0;
    if (colon >= 0) return 2;
    /* kinds is "\0name\0name\0" */
    for (size_t i = 0; i + n + 1 < kinds_len; i++) {
        if (kinds[i] == 0 && kinds[i + n + 1] == 0 && memcmp(kinds + i + 1, s, n) == 0) return 1;
    }
    return 0;
}

static int classify(const uint8_t *p, const uint8_t *end, int flags, const uint8_t *kinds, size_t kinds_len) {
    if (is_blank(p, end)) return STATUS_BLANK;
    Fields f;
    memset(&f, 0, sizeof f);
    if (!scan_document(p, end, &f)) return STATUS_TEXT;
    const uint8_t *t = f.type;
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
            kind = kind_class(&f, kinds, kinds_len);
            ok = ok && kind != 0;
        } else {
            ok = ok && (t[F_KIND] == T_NONE || t[F_KIND] == T_NULL);
        }
    }
    if (flags & FLAG_REASON) ok = ok && (t[F_REASON] == T_NONE || t[F_REASON] == T_NULL || t[F_REASON] == T_STR);
    if (flags & FLAG_GYM) ok = ok && t[F_RCP] == T_OBJ && t[F_RESP] == T_OBJ && t[F_OUTPUT] == T_ARR;
    if (!ok) return f.wide_int ? STATUS_TEXT : STATUS_CONTRACT;
    int masked = top == T_TRUE || legacy == T_TRUE;
    return 1 + masked + 2 * legacy_used + 4 * kind;
}

PyDoc_STRVAR(scan_doc,
             "scan(buffer, flags, kinds) -> (statuses, others)\n\n"
             "Classify every newline-terminated line of buffer (the last line may lack its newline).\n"
             "statuses holds one byte per line; others lists (index, start, end) of the lines that are\n"
             "neither blank nor clean.");

static PyObject *scan(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer buf, kinds;
    int flags;
    if (!PyArg_ParseTuple(args, "y*iy*", &buf, &flags, &kinds)) return NULL;
    const uint8_t *base = (const uint8_t *)buf.buf;
    const uint8_t *end = base + buf.len;
    Py_ssize_t lines = 0;
    for (const uint8_t *q = base; q < end;) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        lines++;
        q = nl ? nl + 1 : end;
    }
    PyObject *statuses = PyBytes_FromStringAndSize(NULL, lines);
    PyObject *others = PyList_New(0);
    if (!statuses || !others) goto fail;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(statuses);
    Py_ssize_t index = 0;
    for (const uint8_t *q = base; q < end; index++) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        const uint8_t *stop = nl ? nl : end;
        int status = classify(q, stop, flags, (const uint8_t *)kinds.buf, (size_t)kinds.len);
        out[index] = (uint8_t)status;
        if (status == STATUS_TEXT || status == STATUS_CONTRACT) {
            PyObject *item = Py_BuildValue("(nnn)", index, (Py_ssize_t)(q - base), (Py_ssize_t)((nl ? nl + 1 : end) - base));
            if (!item || PyList_Append(others, item) < 0) {
                Py_XDECREF(item);
                goto fail;
            }
            Py_DECREF(item);
        }
        q = nl ? nl + 1 : end;
    }
    PyBuffer_Release(&buf);
    PyBuffer_Release(&kinds);
    return Py_BuildValue("(NN)", statuses, others);
fail:
    Py_XDECREF(statuses);
    Py_XDECREF(others);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&kinds);
    return NULL;
}

static PyMethodDef methods[] = {{"scan", scan, METH_VARARGS, scan_doc}, {NULL, NULL, 0, NULL}};

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
