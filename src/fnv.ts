// FNV-1a (32-bit), one step at a time: the visitor buckets and the
// user-agent cache's fingerprint mix a few numbers each on the redirect's
// path, without building a string or a buffer first. (V8 inlines the step.)
export const FNV_OFFSET = 0x811c9dc5;

/** `h` after mixing in `value` (a byte or a UTF-16 code unit). */
export function fnvStep(h: number, value: number): number {
  return Math.imul(h ^ value, 0x01000193);
}
