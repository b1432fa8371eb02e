// How far P(yes) may move between precisions and devices (docs/judge.md states the same figures).
// float16 keeps 11 significant bits: a logit of magnitude ~10 moves by ~0.005, and P(yes) by at
// most a quarter of the yes−no logit's change; float32 kernels differ by summation order only.

/** The same float32 export on a GPU against the CPU. */
export const FP32_DEVICE_TOLERANCE = 1e-4;
/** A float16 export against its float32 twin, or on a GPU against the CPU. */
export const FP16_TOLERANCE = 1e-2;
