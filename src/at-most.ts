/**
 * Work over a list a few items at a time: each item's work starts when an earlier one ends, in
 * the list's order, so that at most `atOnce` are under way. A thousand reads or answers begun
 * together hold a thousand sockets and bodies at once, and a burst no service or forge welcomes.
 */
export async function eachAtMost<T>(
  atOnce: number,
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      await work(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker))
}
