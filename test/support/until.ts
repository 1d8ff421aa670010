/**
 * Resolves once `condition` holds, checking it every 10 ms: for a change in a fake server that no
 * request announces. Fails with `what` after `timeoutMs`, a bound for a broken step, not a window.
 */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 40_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
