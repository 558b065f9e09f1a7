import { test } from "node:test";
import assert from "node:assert/strict";
import { describeBackend, slowPathNotice } from "./backend-notice";

test("the slow CPU paths get a notice with the fix; the native path and the GPU do not", () => {
  assert.equal(slowPathNotice("wasm + native OpenBLAS kernels; default order"), null);
  assert.equal(slowPathNotice("tensorflow; forced by ROLLOUT_LAB_BACKEND=tensorflow"), null);
  assert.equal(slowPathNotice(null), null);
  assert.match(
    slowPathNotice("wasm (stock kernels: OpenBLAS headers not found); default order") ?? "",
    /without the native OpenBLAS kernels \(OpenBLAS headers not found\).*Install libopenblas-dev/,
  );
  assert.match(slowPathNotice("cpu (stock kernels: disabled); forced by ROLLOUT_LAB_BACKEND=cpu") ?? "", /plain cpu backend/);
  // Placed on cpu because the step does not fit the wasm heap: fine with the native kernels, the fix without them.
  const placed =
    "a training step needs ~9.4 GiB, more than the wasm heap gives (3.5 GiB of its 4 GiB): this run trains on the cpu backend, tensors in JavaScript memory";
  assert.equal(slowPathNotice(`cpu + native OpenBLAS kernels; ${placed}, native kernels on its arrays`), null);
  assert.match(
    slowPathNotice(`cpu (stock kernels: addon missing); ${placed}, no native kernels`) ?? "",
    /does not fit the wasm heap.*Install libopenblas-dev/,
  );
});

test("the Backend fact is a short summary with its reasons, and never a server file path", () => {
  const recorded =
    "wasm + native OpenBLAS kernels; default order; skipped tensorflow: @tensorflow/tfjs-node-gpu could not be loaded (Cannot find package '@tensorflow/tfjs-node-gpu' imported from /srv/rollout-lab/trainer/backend/select.ts)";
  const fact = describeBackend(recorded);
  assert.equal(fact.summary, "wasm + native OpenBLAS kernels");
  assert.match(fact.detail ?? "", /^default order; skipped tensorflow: .* imported from select\.ts\)$/);
  const stock = describeBackend(
    "wasm (stock kernels: native BLAS addon failed to load (/srv/app/native/blas/build/Release/blas.node: invalid ELF header); rebuild with node native/build.mjs); default order; first choice loaded",
  );
  assert.equal(stock.summary, "wasm, stock kernels");
  assert.equal(
    stock.detail,
    "no native kernels: native BLAS addon failed to load (blas.node: invalid ELF header); rebuild with node native/build.mjs; default order; first choice loaded",
  );
  assert.deepEqual(describeBackend("cpu"), { summary: "cpu", detail: null });
});
