{
  "variables": {
    "have_dnnl": "<!(node -p \"process.env.ROLLOUT_LAB_HAVE_DNNL || '0'\")"
  },
  "targets": [
    {
      "target_name": "blas",
      "sources": ["src/addon.c", "src/gemm.c", "src/gemm_onednn.c", "src/layout.c", "src/parallel.c", "src/peak.c", "src/isa.c", "src/fused_isa_baseline.c", "src/fused_isa_avx2.c", "src/fused_isa_avx512.c", "src/fused_napi.c", "src/decode.c", "src/bf16_isa_baseline.c", "src/bf16_isa_avx2.c", "src/bf16_isa_avx512.c", "src/skinny_isa_baseline.c", "src/skinny_isa_avx2.c", "src/skinny_isa_avx512.c"],
      "include_dirs": ["<!@(node -p \"process.env.OPENBLAS_INCLUDE_DIR || '/usr/include/x86_64-linux-gnu'\")"],
      "libraries": ["-lopenblas", "-lpthread", "-lm"],
      "cflags": ["-O3", "-std=c11", "-fopenmp-simd", "-fno-math-errno", "-fno-trapping-math", "-Wall", "-Wextra"],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [
        ["have_dnnl==1", { "defines": ["ROLLOUT_LAB_HAVE_DNNL"], "libraries": ["-ldnnl", "-lgomp"] }]
      ]
    }
  ]
}
