/*
 * Included by the per-ISA copies (fused_isa_*.c, bf16_isa_*.c) before the kernel source: gives every public kernel
 * the copy's suffix, so the three copies link side by side and isa.c can pick one. ISA_SUFFIX must be defined.
 */
#define ISA_CAT2(a, b) a##b
#define ISA_CAT(a, b) ISA_CAT2(a, b)
#define ISA_NAME(n) ISA_CAT(n, ISA_SUFFIX)

#define rmsnorm_fwd ISA_NAME(rmsnorm_fwd)
#define rmsnorm_bwd ISA_NAME(rmsnorm_bwd)
#define rope_apply ISA_NAME(rope_apply)
#define swiglu_fwd ISA_NAME(swiglu_fwd)
#define swiglu_bwd ISA_NAME(swiglu_bwd)
#define attn_fwd ISA_NAME(attn_fwd)
#define attn_bwd ISA_NAME(attn_bwd)
#define logprob_fwd ISA_NAME(logprob_fwd)
#define logprob_bwd ISA_NAME(logprob_bwd)
#define adamw_step ISA_NAME(adamw_step)
#define adamw_step_inplace ISA_NAME(adamw_step_inplace)
#define adamw_step_inplace_bf16 ISA_NAME(adamw_step_inplace_bf16)
#define adamw8_step ISA_NAME(adamw8_step)
#define adamw8_decode ISA_NAME(adamw8_decode)
#define adamw8_encode ISA_NAME(adamw8_encode)
#define sum_squares ISA_NAME(sum_squares)
#define bf16_encode ISA_NAME(bf16_encode)
#define bf16_decode ISA_NAME(bf16_decode)
#define bf16_matmul ISA_NAME(bf16_matmul)
#define bf16_gather_rows ISA_NAME(bf16_gather_rows)
#define skinny_gemm ISA_NAME(skinny_gemm)
