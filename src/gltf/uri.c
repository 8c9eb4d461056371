/* SPDX-License-Identifier: MIT */
/* Buffers' bytes: the GLB BIN chunk, data: URIs (base64 or percent-encoded, media type
   application/octet-stream or application/gltf-buffer), and external files named by relative
   URIs, resolved from the file's folder and kept inside it (no absolute path, "..", scheme,
   query or symbolic link leading out) unless options.allow_outside_uris. A buffer keeps exactly
   its byteLength bytes; data shorter than byteLength is refused before anything is allocated.
   Only regular files are opened, without blocking: a buffer or image naming a FIFO, socket or
   device is refused at its /buffers/N/uri or /images/N/uri. */
#define _XOPEN_SOURCE 700 /* realpath, strncasecmp */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gltf/load_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif


/* ---- decoding -------------------------------------------------------------------------------- */

static int b64(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decoded length of base64 text, or false when it is not base64 (padding optional). */
static bool base64_length(const char *s, size_t n, size_t *out) {
    size_t pad = 0;
    while (pad < 2 && n > pad && s[n - 1 - pad] == '=') pad++;
    size_t chars = n - pad;
    if ((pad && n % 4) || chars % 4 == 1) return false;
    for (size_t i = 0; i < chars; i++)
        if (b64((unsigned char)s[i]) < 0) return false;
    *out = chars / 4 * 3 + (chars % 4 ? chars % 4 - 1 : 0);
    return true;
}

static void base64_decode(const char *s, uint8_t *out, size_t cap) {
    uint32_t acc = 0;
    int bits = 0;
    for (size_t n = 0; cap && *s && *s != '='; s++) {
        acc = acc << 6 | (uint32_t)b64((unsigned char)*s);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
            if (n == cap) return;
        }
    }
}

static int hex(unsigned char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Percent-decodes s (n bytes) into out (NULL: count only); false on a bad escape. */
static bool percent_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *length) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++, k++) {
        uint8_t c = (uint8_t)s[i];
        if (c == '%') {
            if (i + 2 >= n) return false;
            int h = hex((unsigned char)s[i + 1]), l = hex((unsigned char)s[i + 2]);
            if (h < 0 || l < 0) return false;
            c = (uint8_t)(h << 4 | l);
            i += 2;
        }
        if (out && k < cap) out[k] = c;
    }
    *length = k;
    return true;
}

/* ---- data: URIs ------------------------------------------------------------------------------ */

static bool data_uri(ld *L, uint32_t i, const char *uri, arbor__gltf_buffer *B) {
    char where[48];
    snprintf(where, sizeof where, "/buffers/%u/uri", i);
    const char *header = uri + 5, *comma = strchr(header, ',');
    if (!comma) return BAD(INVALID_URI, where, "a data: URI needs a comma before its data");
    /* media type, then ;attribute=value parameters, then ;base64 last */
    size_t mime_len = strcspn(header, ";,");
    bool base64 = false;
    for (const char *p = header + mime_len; *p == ';';) {
        const char *token = p + 1;
        size_t len = strcspn(token, ";,");
        if (len == 6 && !strncmp(token, "base64", 6) && token[len] == ',') {
            base64 = true;
        } else if (!len || !memchr(token, '=', len)) {
            return BAD(INVALID_URI, where, "the data: URI has a malformed parameter");
        }
        p = token + len;
    }
    if (!((mime_len == 24 && !strncasecmp(header, "application/octet-stream", 24)) ||
          (mime_len == 23 && !strncasecmp(header, "application/gltf-buffer", 23))))
        return BAD(BUFFER_DATA_URI_MIME_TYPE_INVALID, where, "the media type \"%.*s\" is not application/octet-stream or application/gltf-buffer",
                   (int)(mime_len > 64 ? 64 : mime_len), header);
    const char *payload = comma + 1;
    size_t n = strlen(payload), length = 0;
    if (base64 ? !base64_length(payload, n, &length) : !percent_decode(payload, n, NULL, 0, &length))
        return BAD(INVALID_URI, where, "the data is not valid %s", base64 ? "base64" : "percent-encoding");
    if (length < B->size)
        return BAD(BUFFER_BYTE_LENGTH_MISMATCH, AT("/buffers/%u", i), "the data: URI holds %zu bytes, byteLength says %zu", length, B->size);
    if (!(B->data = arbor__ld_calloc(L, B->size, 1))) return false;
    if (base64)
        base64_decode(payload, B->data, B->size);
    else
        percent_decode(payload, n, B->data, B->size, &length);
    return true;
}

/* ---- external files -------------------------------------------------------------------------- */

enum { URI_INSIDE, URI_OUTSIDE, URI_REMOTE };

/* The path a non-data URI names, percent-decoded, into *path (allocated, *cap bytes), and where it
   leads; false (stopped) when it is not a valid URI or not allowed. */
static bool uri_path(ld *L, const char *uri, const char *ptr, char **path, size_t *cap, int *kind) {
    size_t n = strlen(uri), colon = strcspn(uri, ":/?#");
    *path = NULL;
    *kind = URI_INSIDE;
    if (!n) return arbor__ld_stop(L, ARBOR_ERR_PARSE, LDI_INVALID_URI, ptr, "the URI is empty");
    const char *rest = uri;
    if (uri[colon] == ':') { /* a scheme */
        bool valid = colon > 0;
        for (size_t k = 0; k < colon; k++) {
            char c = uri[k];
            valid = valid && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                              (k && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')));
        }
        if (!valid) {
            *kind = URI_REMOTE; /* lenient: left unread */
            return BAD(INVALID_URI, ptr, "\"%.64s\" is not a valid URI", uri);
        }
        if (colon != 4 || strncasecmp(uri, "file", 4)) {
            *kind = URI_REMOTE;
            return true;
        }
        rest = uri + 5; /* file:///path or file:/path: an absolute path */
        if (!strncmp(rest, "//", 2)) {
            rest += 2;
            if (!strncasecmp(rest, "localhost", 9)) rest += 9;
            if (*rest != '/') {
                *kind = URI_REMOTE;
                return true;
            }
        }
        *kind = URI_OUTSIDE;
    }
    size_t body = strcspn(rest, "?#");
    if (rest[body]) *kind = *kind == URI_INSIDE ? URI_OUTSIDE : *kind; /* a query or fragment: not a plain file */
    if (rest[0] == '/' || strchr(rest, '\\')) *kind = URI_OUTSIDE;
    size_t length;
    if (!percent_decode(rest, body, NULL, 0, &length)) {
        *kind = URI_REMOTE;
        return BAD(INVALID_URI, ptr, "\"%.64s\" has a bad %%-escape", uri);
    }
    *cap = length + 1;
    if (!(*path = arbor__ld_calloc(L, *cap, 1))) return false;
    percent_decode(rest, body, (uint8_t *)*path, length, &length);
    if (memchr(*path, 0, length)) {
        *kind = URI_REMOTE;
        return BAD(INVALID_URI, ptr, "\"%.64s\" holds a NUL byte", uri);
    }
    for (const char *seg = *path; *seg;) { /* a ".." segment climbs out */
        size_t len = strcspn(seg, "/");
        if (len == 2 && seg[0] == '.' && seg[1] == '.') *kind = URI_OUTSIDE;
        seg += len + (seg[len] == '/');
    }
    return true;
}

/* Where a relative path lands: base_dir/path, and whether it stays inside base_dir once symbolic
   links are followed. */
static bool inside(const char *base_dir, const char *full) {
    char base[PATH_MAX], real[PATH_MAX];
    if (!realpath(base_dir, base) || !realpath(full, real)) return true; /* missing: reported on open */
    size_t n = strlen(base);
    return !strncmp(real, base, n) && (real[n] == '/' || (n == 1 && base[0] == '/'));
}

/* How validation rates a URI arbor does not follow out of the folder: one with a scheme or an
   absolute path is the validator's NON_RELATIVE_URI (a warning); "..", a query, a link out are
   arbor's limit. */
static ld_issue outside_issue(const char *uri) {
    size_t scheme = strcspn(uri, ":/?#");
    return uri[0] == '/' || (scheme && uri[scheme] == ':') ? LDI_NON_RELATIVE_URI : LDI_ARBOR_LIMIT;
}

/* The file for an external URI, into *full (allocated, *cap bytes); *full stays NULL for a
   remote URI arbor leaves unread (allowed, not fetched). */
static bool resolve(ld *L, const char *uri, const char *ptr, char **full, size_t *cap) {
    char *path;
    size_t path_cap;
    int kind;
    *full = NULL;
    bool ok = uri_path(L, uri, ptr, &path, &path_cap, &kind);
    if (ok && kind != URI_INSIDE && !L->opt.allow_outside_uris)
        ok = arbor__ld_stop(L, ARBOR_ERR_IO, outside_issue(uri), ptr,
                            "\"%.100s\" leads outside the file's folder "
                            "(options.allow_outside_uris allows it)",
                            uri);
    if (ok && path && kind != URI_REMOTE) {
        bool absolute = path[0] == '/';
        if (!absolute && !L->base_dir)
            ok = arbor__ld_stop(L, ARBOR_ERR_IO, LDI_IO_ERROR, ptr, "no folder to resolve \"%.100s\" from (base_dir is NULL)", uri);
        size_t n = absolute ? path_cap : strlen(L->base_dir ? L->base_dir : "") + 1 + path_cap;
        if (ok && (*full = arbor__ld_calloc(L, n, 1))) {
            *cap = n;
            snprintf(*full, n, absolute ? "%s%s" : "%s/%s", absolute ? "" : L->base_dir, path);
            if (!L->opt.allow_outside_uris && !inside(L->base_dir, *full))
                ok = arbor__ld_stop(L, ARBOR_ERR_IO, LDI_ARBOR_LIMIT, ptr,
                                    "\"%.100s\" leads outside the file's folder through a "
                                    "symbolic link (options.allow_outside_uris allows it)",
                                    uri);
        }
        ok = ok && *full;
    }
    if (ok && kind == URI_REMOTE) arbor__ld_note(L, ptr, "\"%.100s\" is not a local file: not read", uri);
    arbor__ld_free(L, path, path ? path_cap : 0, 1);
    if (!ok && *full) {
        arbor__ld_free(L, *full, *cap, 1);
        *full = NULL;
    }
    return ok;
}

static bool external(ld *L, uint32_t i, const char *uri, arbor__gltf_buffer *B) {
    char ptr[48];
    snprintf(ptr, sizeof ptr, "/buffers/%u/uri", i);
    char *full;
    size_t cap = 0;
    if (!resolve(L, uri, ptr, &full, &cap)) return false;
    if (!full) return true; /* remote: no data, as a buffer without uri */
    bool ok = true;
    FILE *f;
    uint64_t size;
    char reason[400];
    arbor_result r = arbor__gltf_open_file(full, &f, &size, reason, sizeof reason);
    if (r) {
        ok = arbor__ld_stop(L, r, r == ARBOR_ERR_OUT_OF_MEMORY ? LDI_ARBOR_OUT_OF_MEMORY : LDI_IO_ERROR, ptr, "%s", reason);
    } else if (size < B->size) {
        ok = BAD(BUFFER_BYTE_LENGTH_MISMATCH, AT("/buffers/%u", i), "%s has %llu bytes, byteLength says %zu", uri, (unsigned long long)size,
                 B->size);
    } else if ((B->data = arbor__ld_calloc(L, B->size, 1)) == NULL) {
        ok = false;
    } else if (fread(B->data, 1, B->size, f) != B->size) {
        ok = arbor__ld_stop(L, ARBOR_ERR_IO, LDI_IO_ERROR, ptr, "cannot read %s", full);
    }
    if (f) fclose(f);
    arbor__ld_free(L, full, cap, 1);
    return ok;
}

bool arbor__ld_buffers(ld *L) {
    for (uint32_t i = 0; i < L->n_buffers; i++) {
        json_t *o = json_array_get(L->j_buffers, i);
        arbor__gltf_buffer *B = &L->buffers[i];
        const char *uri = json_string_value(json_object_get(o, "uri"));
        if (!json_is_object(o) || B->size == 0) continue; /* reported: byteLength */
        if (uri && !strncmp(uri, "data:", 5)) {
            if (!data_uri(L, i, uri, B)) return false;
        } else if (uri) {
            if (!external(L, i, uri, B)) return false;
        } else if (L->glb && i == 0) {
            if (!L->has_bin) {
                if (!BAD(BUFFER_MISSING_GLB_DATA, AT("/buffers/0"), "buffer 0 has no uri and the GLB has no BIN chunk")) return false;
                continue;
            }
            if (L->bin_size < B->size) {
                if (!BAD(BUFFER_BYTE_LENGTH_MISMATCH, AT("/buffers/0"), "byteLength %zu is more than the BIN chunk's %llu bytes", B->size,
                         (unsigned long long)L->bin_size))
                    return false;
                continue;
            }
            if (!(B->data = arbor__ld_calloc(L, B->size, 1))) return false;
            memcpy(B->data, L->bin, B->size);
            B->from_glb = true;
        } /* no uri, not the GLB's: a buffer without data */
    }
    return true;
}

bool arbor__ld_images(ld *L) {
    uint32_t n = (uint32_t)json_array_size(L->j_images);
    for (uint32_t i = 0; i < n; i++) {
        const char *uri = json_string_value(json_object_get(json_array_get(L->j_images, i), "uri"));
        if (!uri || !strncmp(uri, "data:", 5)) continue;
        char ptr[48], *path;
        size_t cap;
        int kind;
        snprintf(ptr, sizeof ptr, "/images/%u/uri", i);
        if (!uri_path(L, uri, ptr, &path, &cap, &kind)) {
            arbor__ld_free(L, path, path ? cap : 0, 1);
            return false;
        }
        if (kind != URI_INSIDE && !L->opt.allow_outside_uris) {
            arbor__ld_free(L, path, path ? cap : 0, 1);
            return arbor__ld_stop(L, ARBOR_ERR_IO, outside_issue(uri), ptr,
                                  "\"%.100s\" leads outside the file's folder (options.allow_outside_uris allows it)",
                                  uri);
        }
        /* not read here, but a save copies or embeds it: a FIFO would hang it (a missing file is
           left to the save, which warns) */
        bool ok = true;
        if (path && kind == URI_INSIDE && L->base_dir) {
            size_t n = strlen(L->base_dir) + 1 + cap;
            char *full = arbor__ld_calloc(L, n, 1);
            const char *what = NULL;
            if (full) {
                snprintf(full, n, "%s/%s", L->base_dir, path);
                what = arbor__gltf_not_regular(full);
            }
            ok = full && (!what || arbor__ld_stop(L, ARBOR_ERR_IO, LDI_IO_ERROR, ptr, "%s is %s, not a regular file", full, what));
            arbor__ld_free(L, full, full ? n : 0, 1);
        }
        arbor__ld_free(L, path, path ? cap : 0, 1);
        if (!ok) return false;
    }
    return true;
}
