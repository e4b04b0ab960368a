/**
 * `xs[i]` where the caller knows `i` is in range (a modulo, an index bounded by a length check):
 * under `noUncheckedIndexedAccess` the read says so, and a broken invariant fails loudly here
 * with what was read instead of as `undefined` somewhere downstream.
 */
export function at<T>(xs: ArrayLike<T>, i: number, what = "element"): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`${what} ${i} is out of range (length ${xs.length})`);
  return x;
}
