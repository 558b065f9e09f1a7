import { test } from "node:test";
import assert from "node:assert/strict";
import { slowPathNotice } from "./backend-notice";

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
