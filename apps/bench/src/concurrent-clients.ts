/**
 * Runs `total` tasks with `clients` of them in flight at a time, like that many clients each sending
 * its next request as soon as its previous one answered. Task `index` runs exactly once, for every
 * index in 0..total-1, and indexes are handed out in order. Rejects with the first task failure,
 * after the clients in flight have stopped.
 */
export async function runConcurrentClients(
  clients: number,
  total: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  if (!Number.isInteger(clients) || clients < 1) throw new RangeError(`clients must be >= 1, got ${clients}`);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const client = async () => {
    while (failure === undefined && next < total) {
      const index = next++;
      try {
        await task(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(clients, total) }, client));
  if (failure) throw failure.error;
}
