/*
 * N-API surface of the fused kernels (fused.h), added to the addon's exports by fused_register().
 * Every call takes its dimensions first, then (array, offset) pairs: offsets count 4-byte elements, so the wasm
 * backend passes its whole heap with each tensor's memoryOffset / 4 and nothing is copied; the cpu backend passes
 * each tensor's own array with offset 0. Each extent is bounds-checked from the dimensions before any pointer is
 * used, because a wrong offset would otherwise write into unrelated memory.
 *
 *   rmsnormFwd(R, D, eps, x, w, y)                 rmsnormBwd(R, D, eps, dy, x, w, dx, dw)
 *   ropeApply(R, heads, hd, maxPos, sign, x, pos, cos, sin, y) -> false on a position outside the tables
 *   swigluFwd(n, g, u, y)                          swigluBwd(n, dy, g, u, dg, du)
 *   attnFwd(B, T, Tk, H, KV, hd, past, scale, q, k, v, keyMask | null, out, p)
 *   attnBwd(B, T, Tk, H, KV, hd, scale, dout, q, k, v, p, dq, dk, dv)
 *   logprobFwd(N, V, logits, target, out) -> false on a target outside the vocabulary
 *   logprobBwd(N, V, logits, target, dout, dlogits)
 *   adamw(n, lr, b1, b2, eps, wd, bc1, bc2, clip, p, m, v, g, p2, m2, v2)
 *   adamwInPlace(n, lr, b1, b2, eps, wd, bc1, bc2, clip, p, m, v, g)   overwrites p, m, v
 *   adamwInPlaceBf16(n, lr, b1, b2, eps, wd, bc1, bc2, clip, p, m, v, g, p16)   and writes p's bf16 copy to p16
 *   adamw8(n, lr, b1, b2, eps, wd, bc1, bc2, clip, p, g, mq, ms, vq, vs, p2, mq2, ms2, vq2, vs2)
 *   adamw8Decode(n, mq, ms, vq, vs, m, v)          adamw8Encode(n, m, v, mq, ms, vq, vs)
 *     8-bit moments: mq / vq are n bytes packed into Int32Arrays of ceil(n / 4), ms / vs ceil(n / 256) scales
 *   sumSquares(n, x) -> number
 *   decodeLayer(B, D, H, KV, hd, I, past, cap, maxPos, eps, scale, hasBias,
 *               h, ln1, wq, wk, wv, bq, bk, bv, wo, ln2, wg, wu, wd, cacheK, cacheV, keyMask | null, cos, sin,
 *               positions | null, out)
 *     -> false on out-of-range input; writes row `past` of cacheK / cacheV in place (decode.h)
 *   bf16Encode(n, x, w)    bf16Decode(n, w, x)    bf16MatMul(M, K, N, transW, x, w, y)
 *   bf16Gather(rows, D, n, table, ids, out) -> false on an id outside the table
 *     bfloat16 buffers (w, table) hold two values per 4-byte element: ceil(n / 2) of them (bf16.h)
 * where each buffer argument above stands for two: the typed array and the offset.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>

#include "bf16.h"
#include "decode.h"
#include "fused.h"
#include "skinny.h"

#define MAX_ARGS 64

typedef struct {
  napi_env env;
  napi_value argv[MAX_ARGS];
  size_t argc, i;
  int ok;
  const char *fn;
} cursor_t;

static void fail(cursor_t *c, const char *what) {
  if (!c->ok) return;
  char msg[160];
  snprintf(msg, sizeof msg, "%s: argument %zu %s", c->fn, c->i, what);
  napi_throw_range_error(c->env, "FUSED_ARG", msg);
  c->ok = 0;
}

static int open_cursor(cursor_t *c, napi_env env, napi_callback_info info, const char *fn, size_t expected) {
  c->env = env;
  c->argc = MAX_ARGS;
  c->i = 0;
  c->ok = 1;
  c->fn = fn;
  if (napi_get_cb_info(env, info, &c->argc, c->argv, NULL, NULL) != napi_ok || c->argc != expected) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s expects %zu arguments", fn, expected);
    napi_throw_type_error(env, "FUSED_ARG", msg);
    return 0;
  }
  return 1;
}

/* Dimensions and offsets: non-negative and within 32 bits (cblas takes int; a wasm heap holds < 2^30 floats). */
static int64_t next_int(cursor_t *c) {
  int64_t v = 0;
  if (!c->ok) return 0;
  if (napi_get_value_int64(c->env, c->argv[c->i], &v) != napi_ok || v < 0 || v > INT32_MAX)
    fail(c, "must be an integer in [0, 2^31)");
  c->i++;
  return v;
}

/* Element count a * b * ..., failing the call instead of wrapping around on overflow. */
static int64_t count(cursor_t *c, int n, const int64_t *dims) {
  int64_t r = 1;
  for (int k = 0; k < n; k++) {
    if (__builtin_mul_overflow(r, dims[k], &r)) {
      fail(c, "gives a buffer size that overflows");
      return 0;
    }
  }
  return r;
}
#define SIZE(...) count(&c, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})

static double next_num(cursor_t *c) {
  double v = 0;
  if (!c->ok) return 0;
  if (napi_get_value_double(c->env, c->argv[c->i], &v) != napi_ok) fail(c, "must be a number");
  c->i++;
  return v;
}

/* A typed array of 4-byte elements and an offset; `count` elements from there must lie inside it. */
static void *next_buf(cursor_t *c, int64_t count, int nullable) {
  if (!c->ok) return NULL;
  napi_valuetype vt;
  napi_typeof(c->env, c->argv[c->i], &vt);
  if (nullable && (vt == napi_null || vt == napi_undefined)) {
    c->i += 2;
    return NULL;
  }
  bool is_ta = false;
  napi_typedarray_type type;
  size_t len = 0;
  void *raw = NULL;
  if (napi_is_typedarray(c->env, c->argv[c->i], &is_ta) != napi_ok || !is_ta ||
      napi_get_typedarray_info(c->env, c->argv[c->i], &type, &len, &raw, NULL, NULL) != napi_ok ||
      (type != napi_float32_array && type != napi_int32_array)) {
    fail(c, "must be a Float32Array or Int32Array");
    return NULL;
  }
  c->i++;
  const int64_t off = next_int(c);
  if (c->ok && (count > (int64_t)len || off > (int64_t)len - count)) {
    c->i -= 2;
    fail(c, "extends past the end of its array");
    return NULL;
  }
  return (uint32_t *)raw + off;
}
#define F32(c, n) ((float *)next_buf((c), (n), 0))
#define I32(c, n) ((int32_t *)next_buf((c), (n), 0))

static napi_value boolean(napi_env env, int v) {
  napi_value r;
  napi_get_boolean(env, v != 0, &r);
  return r;
}

static napi_value js_rmsnorm_fwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "rmsnormFwd", 9)) return NULL;
  const int64_t R = next_int(&c), D = next_int(&c);
  const float eps = (float)next_num(&c);
  const float *x = F32(&c, SIZE(R, D)), *w = F32(&c, D);
  float *y = F32(&c, SIZE(R, D));
  if (c.ok) rmsnorm_fwd(x, w, R, D, eps, y);
  return NULL;
}

static napi_value js_rmsnorm_bwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "rmsnormBwd", 13)) return NULL;
  const int64_t R = next_int(&c), D = next_int(&c);
  const float eps = (float)next_num(&c);
  const float *dy = F32(&c, SIZE(R, D)), *x = F32(&c, SIZE(R, D)), *w = F32(&c, D);
  float *dx = F32(&c, SIZE(R, D)), *dw = F32(&c, D);
  if (c.ok) rmsnorm_bwd(dy, x, w, R, D, eps, dx, dw);
  return NULL;
}

static napi_value js_rope_apply(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "ropeApply", 15)) return NULL;
  const int64_t R = next_int(&c), heads = next_int(&c), hd = next_int(&c), maxPos = next_int(&c);
  const int sign = next_num(&c) < 0 ? -1 : 1;
  const float *x = F32(&c, SIZE(R, heads, hd));
  const int32_t *pos = I32(&c, R);
  const float *cs = F32(&c, SIZE(maxPos, hd)), *sn = F32(&c, SIZE(maxPos, hd));
  float *y = F32(&c, SIZE(R, heads, hd));
  if (!c.ok) return NULL;
  if (hd % 2) {
    napi_throw_range_error(env, "FUSED_ARG", "ropeApply: head size must be even");
    return NULL;
  }
  if (x == y) { /* the second half reads what the first half would have overwritten */
    napi_throw_range_error(env, "FUSED_ARG", "ropeApply: input and output must be different buffers");
    return NULL;
  }
  return boolean(env, rope_apply(x, pos, cs, sn, maxPos, R, heads, hd, sign, y));
}

static napi_value js_swiglu_fwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "swigluFwd", 7)) return NULL;
  const int64_t n = next_int(&c);
  const float *g = F32(&c, n), *u = F32(&c, n);
  float *y = F32(&c, n);
  if (c.ok) swiglu_fwd(g, u, n, y);
  return NULL;
}

static napi_value js_swiglu_bwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "swigluBwd", 11)) return NULL;
  const int64_t n = next_int(&c);
  const float *dy = F32(&c, n), *g = F32(&c, n), *u = F32(&c, n);
  float *dg = F32(&c, n), *du = F32(&c, n);
  if (c.ok) swiglu_bwd(dy, g, u, n, dg, du);
  return NULL;
}

static int check_heads(napi_env env, int64_t H, int64_t KV, int64_t Tk, int64_t T, int64_t past) {
  if (KV == 0 || H % KV != 0 || past < 0 || past + T != Tk) {
    napi_throw_range_error(env, "FUSED_ARG", "attention: heads must be a multiple of kv heads and Tk = past + T");
    return 0;
  }
  return 1;
}

static napi_value js_attn_fwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "attnFwd", 20)) return NULL;
  const int64_t B = next_int(&c), T = next_int(&c), Tk = next_int(&c), H = next_int(&c), KV = next_int(&c),
                hd = next_int(&c), past = next_int(&c);
  const float scale = (float)next_num(&c);
  const float *q = F32(&c, SIZE(B, T, H, hd)), *k = F32(&c, SIZE(B, Tk, KV, hd)), *v = F32(&c, SIZE(B, Tk, KV, hd));
  const float *mask = (const float *)next_buf(&c, SIZE(B, Tk), 1);
  float *out = F32(&c, SIZE(B, T, H, hd)), *p = F32(&c, SIZE(B, H, T, Tk));
  if (c.ok && check_heads(env, H, KV, Tk, T, past)) attn_fwd(q, k, v, mask, B, T, Tk, H, KV, hd, past, scale, out, p);
  return NULL;
}

static napi_value js_attn_bwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "attnBwd", 23)) return NULL;
  const int64_t B = next_int(&c), T = next_int(&c), Tk = next_int(&c), H = next_int(&c), KV = next_int(&c),
                hd = next_int(&c);
  const float scale = (float)next_num(&c);
  const int64_t nq = SIZE(B, T, H, hd), nk = SIZE(B, Tk, KV, hd);
  const float *dout = F32(&c, nq), *q = F32(&c, nq), *k = F32(&c, nk), *v = F32(&c, nk), *p = F32(&c, SIZE(B, H, T, Tk));
  float *dq = F32(&c, nq), *dk = F32(&c, nk), *dv = F32(&c, nk);
  if (c.ok && check_heads(env, H, KV, Tk, T, Tk - T)) attn_bwd(dout, q, k, v, p, B, T, Tk, H, KV, hd, scale, dq, dk, dv);
  return NULL;
}

static napi_value js_logprob_fwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "logprobFwd", 8)) return NULL;
  const int64_t N = next_int(&c), V = next_int(&c);
  const float *z = F32(&c, SIZE(N, V));
  const int32_t *t = I32(&c, N);
  float *out = F32(&c, SIZE(2, N));
  if (!c.ok) return NULL;
  return boolean(env, logprob_fwd(z, t, N, V, out));
}

static napi_value js_logprob_bwd(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "logprobBwd", 10)) return NULL;
  const int64_t N = next_int(&c), V = next_int(&c);
  const float *z = F32(&c, SIZE(N, V));
  const int32_t *t = I32(&c, N);
  const float *dout = F32(&c, SIZE(2, N));
  float *dz = F32(&c, SIZE(N, V));
  if (!c.ok) return NULL;
  for (int64_t r = 0; r < N; r++) {
    if (t[r] < 0 || t[r] >= V) {
      napi_throw_range_error(env, "FUSED_ARG", "logprobBwd: target outside the vocabulary");
      return NULL;
    }
  }
  logprob_bwd(z, t, dout, N, V, dz);
  return NULL;
}

/* AdamW's eight hyperparameters, in the order every adamw* call takes them. */
static adamw_params next_adamw_params(cursor_t *c) {
  adamw_params hp;
  float *fields[] = {&hp.lr, &hp.b1, &hp.b2, &hp.eps, &hp.wd, &hp.bc1, &hp.bc2, &hp.clip};
  for (int f = 0; f < 8; f++) *fields[f] = (float)next_num(c);
  return hp;
}

static napi_value js_adamw(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamw", 23)) return NULL;
  const int64_t n = next_int(&c);
  const adamw_params hp = next_adamw_params(&c);
  const float *p = F32(&c, n), *m = F32(&c, n), *v = F32(&c, n), *g = F32(&c, n);
  float *p2 = F32(&c, n), *m2 = F32(&c, n), *v2 = F32(&c, n);
  if (c.ok) adamw_step(p, m, v, g, n, &hp, p2, m2, v2);
  return NULL;
}

#define HALVES(n) (((n) + 1) / 2)

/* Whether two n-float ranges share memory (one heap on wasm: tensors there are slices of it). */
static int overlap(const float *a, const float *b, int64_t n) { return a < b + n && b < a + n; }

static napi_value js_adamw_inplace(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamwInPlace", 17)) return NULL;
  const int64_t n = next_int(&c);
  const adamw_params hp = next_adamw_params(&c);
  float *p = F32(&c, n), *m = F32(&c, n), *v = F32(&c, n);
  const float *g = F32(&c, n);
  if (c.ok && (overlap(p, m, n) || overlap(p, v, n) || overlap(m, v, n) || overlap(g, p, n) || overlap(g, m, n) ||
               overlap(g, v, n))) {
    napi_throw_range_error(env, "FUSED_ARG", "adamwInPlace: p, m, v and g must be distinct buffers");
    return NULL;
  }
  if (c.ok) adamw_step_inplace(p, m, v, g, n, &hp);
  return NULL;
}

/* adamwInPlace that also rewrites p's bf16 copy (packed two to an element, as bf16Encode writes it). */
static napi_value js_adamw_inplace_bf16(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamwInPlaceBf16", 19)) return NULL;
  const int64_t n = next_int(&c);
  const adamw_params hp = next_adamw_params(&c);
  float *p = F32(&c, n), *m = F32(&c, n), *v = F32(&c, n);
  const float *g = F32(&c, n);
  uint16_t *p16 = (uint16_t *)next_buf(&c, HALVES(n), 0);
  if (c.ok && (overlap(p, m, n) || overlap(p, v, n) || overlap(m, v, n) || overlap(g, p, n) || overlap(g, m, n) ||
               overlap(g, v, n))) {
    napi_throw_range_error(env, "FUSED_ARG", "adamwInPlaceBf16: p, m, v and g must be distinct buffers");
    return NULL;
  }
  if (c.ok) adamw_step_inplace_bf16(p, m, v, g, n, &hp, p16);
  return NULL;
}

#define PACKED(n) (((n) + 3) / 4)
#define BLOCKS(n) (((n) + ADAMW8_BLOCK - 1) / ADAMW8_BLOCK)

static napi_value js_adamw8(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamw8", 31)) return NULL;
  const int64_t n = next_int(&c);
  const adamw_params hp = next_adamw_params(&c);
  const float *p = F32(&c, n), *g = F32(&c, n);
  const int8_t *mq = (const int8_t *)next_buf(&c, PACKED(n), 0);
  const float *ms = F32(&c, BLOCKS(n));
  const uint8_t *vq = (const uint8_t *)next_buf(&c, PACKED(n), 0);
  const float *vs = F32(&c, BLOCKS(n));
  float *p2 = F32(&c, n);
  int8_t *mq2 = (int8_t *)next_buf(&c, PACKED(n), 0);
  float *ms2 = F32(&c, BLOCKS(n));
  uint8_t *vq2 = (uint8_t *)next_buf(&c, PACKED(n), 0);
  float *vs2 = F32(&c, BLOCKS(n));
  if (c.ok) adamw8_step(p, g, n, &hp, mq, ms, vq, vs, p2, mq2, ms2, vq2, vs2);
  return NULL;
}

static napi_value js_adamw8_decode(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamw8Decode", 13)) return NULL;
  const int64_t n = next_int(&c);
  const int8_t *mq = (const int8_t *)next_buf(&c, PACKED(n), 0);
  const float *ms = F32(&c, BLOCKS(n));
  const uint8_t *vq = (const uint8_t *)next_buf(&c, PACKED(n), 0);
  const float *vs = F32(&c, BLOCKS(n));
  float *m = F32(&c, n), *v = F32(&c, n);
  if (c.ok) adamw8_decode(mq, ms, vq, vs, n, m, v);
  return NULL;
}

static napi_value js_adamw8_encode(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "adamw8Encode", 13)) return NULL;
  const int64_t n = next_int(&c);
  const float *m = F32(&c, n), *v = F32(&c, n);
  int8_t *mq = (int8_t *)next_buf(&c, PACKED(n), 0);
  float *ms = F32(&c, BLOCKS(n));
  uint8_t *vq = (uint8_t *)next_buf(&c, PACKED(n), 0);
  float *vs = F32(&c, BLOCKS(n));
  if (c.ok) adamw8_encode(m, v, n, mq, ms, vq, vs);
  return NULL;
}

static napi_value js_sum_squares(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "sumSquares", 3)) return NULL;
  const int64_t n = next_int(&c);
  const float *x = F32(&c, n);
  if (!c.ok) return NULL;
  napi_value r;
  napi_create_double(env, sum_squares(x, n), &r);
  return r;
}

static napi_value js_decode_layer(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "decodeLayer", 52)) return NULL;
  decode_dims d;
  d.B = next_int(&c), d.D = next_int(&c), d.H = next_int(&c), d.KV = next_int(&c), d.hd = next_int(&c);
  d.mlp = next_int(&c), d.past = next_int(&c), d.cap = next_int(&c), d.maxPos = next_int(&c);
  d.eps = (float)next_num(&c), d.scale = (float)next_num(&c);
  const int bias = next_int(&c) != 0;
  const int64_t qw = d.H * d.hd, kw = d.KV * d.hd;
  decode_weights w;
  const float *h = F32(&c, SIZE(d.B, d.D));
  w.ln1 = F32(&c, d.D), w.wq = F32(&c, SIZE(d.D, qw)), w.wk = F32(&c, SIZE(d.D, kw)), w.wv = F32(&c, SIZE(d.D, kw));
  w.bq = (const float *)next_buf(&c, qw, !bias), w.bk = (const float *)next_buf(&c, kw, !bias);
  w.bv = (const float *)next_buf(&c, kw, !bias);
  if (!bias) w.bq = w.bk = w.bv = NULL;
  w.wo = F32(&c, SIZE(qw, d.D)), w.ln2 = F32(&c, d.D), w.wg = F32(&c, SIZE(d.D, d.mlp)), w.wu = F32(&c, SIZE(d.D, d.mlp));
  w.wd = F32(&c, SIZE(d.mlp, d.D));
  float *cacheK = F32(&c, SIZE(d.B, d.cap, kw)), *cacheV = F32(&c, SIZE(d.B, d.cap, kw));
  const float *mask = (const float *)next_buf(&c, SIZE(d.B, d.cap), 1);
  const float *cs = F32(&c, SIZE(d.maxPos, d.hd)), *sn = F32(&c, SIZE(d.maxPos, d.hd));
  const int32_t *positions = (const int32_t *)next_buf(&c, d.B, 1);
  float *out = F32(&c, SIZE(d.B, d.D));
  if (!c.ok) return NULL;
  if (d.KV == 0 || d.H % d.KV != 0 || d.hd % 2 != 0) {
    napi_throw_range_error(env, "FUSED_ARG", "decodeLayer: heads must be a multiple of kv heads and the head size even");
    return NULL;
  }
  return boolean(env, decode_layer(&d, &w, h, cacheK, cacheV, mask, cs, sn, positions, out));
}

static napi_value js_bf16_encode(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "bf16Encode", 5)) return NULL;
  const int64_t n = next_int(&c);
  const float *x = F32(&c, n);
  uint16_t *w = (uint16_t *)next_buf(&c, HALVES(n), 0);
  if (!c.ok) return NULL;
  bf16_encode(x, n, w);
  if (n % 2) w[n] = 0; /* the unused half of the last element: fresh output memory is not zeroed on wasm */
  return NULL;
}

static napi_value js_bf16_decode(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "bf16Decode", 5)) return NULL;
  const int64_t n = next_int(&c);
  const uint16_t *w = (const uint16_t *)next_buf(&c, HALVES(n), 0);
  float *x = F32(&c, n);
  if (c.ok) bf16_decode(w, n, x);
  return NULL;
}

static napi_value js_bf16_matmul(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "bf16MatMul", 10)) return NULL;
  const int64_t M = next_int(&c), K = next_int(&c), N = next_int(&c);
  const int transW = next_int(&c) != 0;
  const float *x = F32(&c, SIZE(M, K));
  const uint16_t *w = (const uint16_t *)next_buf(&c, HALVES(SIZE(K, N)), 0);
  float *y = F32(&c, SIZE(M, N));
  if (c.ok) bf16_matmul(x, w, M, K, N, transW, y);
  return NULL;
}

static napi_value js_bf16_gather(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "bf16Gather", 9)) return NULL;
  const int64_t rows = next_int(&c), D = next_int(&c), n = next_int(&c);
  const uint16_t *table = (const uint16_t *)next_buf(&c, HALVES(SIZE(rows, D)), 0);
  const int32_t *ids = I32(&c, n);
  float *out = F32(&c, SIZE(n, D));
  if (!c.ok) return NULL;
  return boolean(env, bf16_gather_rows(table, rows, D, ids, n, out));
}

/* skinnyGemm(M, K, N, transW, roundW, beta, threads, x, w, y): the few-row product (skinny.h); false for M > 8. */
static napi_value js_skinny_gemm(napi_env env, napi_callback_info info) {
  cursor_t c;
  if (!open_cursor(&c, env, info, "skinnyGemm", 13)) return NULL;
  const int64_t M = next_int(&c), K = next_int(&c), N = next_int(&c);
  const int transW = next_int(&c) != 0, roundW = next_int(&c) != 0;
  const float beta = (float)next_num(&c);
  const int threads = (int)next_int(&c);
  const float *x = F32(&c, SIZE(M, K));
  const float *w = F32(&c, SIZE(K, N));
  float *y = F32(&c, SIZE(M, N));
  if (!c.ok) return NULL;
  return boolean(env, skinny_gemm(x, w, M, K, N, transW, roundW, beta, threads, y));
}

napi_status fused_register(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"rmsnormFwd", NULL, js_rmsnorm_fwd, NULL, NULL, NULL, napi_default, NULL},
      {"rmsnormBwd", NULL, js_rmsnorm_bwd, NULL, NULL, NULL, napi_default, NULL},
      {"ropeApply", NULL, js_rope_apply, NULL, NULL, NULL, napi_default, NULL},
      {"swigluFwd", NULL, js_swiglu_fwd, NULL, NULL, NULL, napi_default, NULL},
      {"swigluBwd", NULL, js_swiglu_bwd, NULL, NULL, NULL, napi_default, NULL},
      {"attnFwd", NULL, js_attn_fwd, NULL, NULL, NULL, napi_default, NULL},
      {"attnBwd", NULL, js_attn_bwd, NULL, NULL, NULL, napi_default, NULL},
      {"logprobFwd", NULL, js_logprob_fwd, NULL, NULL, NULL, napi_default, NULL},
      {"logprobBwd", NULL, js_logprob_bwd, NULL, NULL, NULL, napi_default, NULL},
      {"adamw", NULL, js_adamw, NULL, NULL, NULL, napi_default, NULL},
      {"adamwInPlace", NULL, js_adamw_inplace, NULL, NULL, NULL, napi_default, NULL},
      {"sumSquares", NULL, js_sum_squares, NULL, NULL, NULL, napi_default, NULL},
      {"adamw8", NULL, js_adamw8, NULL, NULL, NULL, napi_default, NULL},
      {"adamw8Decode", NULL, js_adamw8_decode, NULL, NULL, NULL, napi_default, NULL},
      {"adamw8Encode", NULL, js_adamw8_encode, NULL, NULL, NULL, napi_default, NULL},
      {"decodeLayer", NULL, js_decode_layer, NULL, NULL, NULL, napi_default, NULL},
      {"bf16Encode", NULL, js_bf16_encode, NULL, NULL, NULL, napi_default, NULL},
      {"adamwInPlaceBf16", NULL, js_adamw_inplace_bf16, NULL, NULL, NULL, napi_default, NULL},
      {"bf16Decode", NULL, js_bf16_decode, NULL, NULL, NULL, napi_default, NULL},
      {"bf16MatMul", NULL, js_bf16_matmul, NULL, NULL, NULL, napi_default, NULL},
      {"bf16Gather", NULL, js_bf16_gather, NULL, NULL, NULL, napi_default, NULL},
      {"skinnyGemm", NULL, js_skinny_gemm, NULL, NULL, NULL, napi_default, NULL},
  };
  return napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
}
