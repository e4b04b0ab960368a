/**
 * Runs `work` over `items` with at most `limit` in flight, reporting each completion. Results keep
 * the input order. Stops starting new items once `signal` aborts.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  onSettled?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const index = next;
      next += 1;
      // index < items.length (the loop condition), so the element exists even when T admits undefined.
      results[index] = await work(items[index] as T, index);
      done += 1;
      onSettled?.(done, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
