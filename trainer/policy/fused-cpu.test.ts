/** The fused native kernels against the stock compositions on the cpu backend (see testing/fused-suite.ts). */
import { fusedKernelSuite } from "./testing/fused-suite";

fusedKernelSuite("cpu");
