/**
 * Collects items added in the same turn of the event loop (up to `maxBatch`) and hands them to
 * `flush` together; each `add` resolves or rejects with its batch. While one flush runs, new items
 * gather for the next, so under load batches grow by themselves and at rest an item waits for
 * nothing but the current turn.
 */
export interface Batcher<T> {
  add(item: T): Promise<void>;
}

export function createBatcher<T>(flush: (items: T[]) => Promise<void>, maxBatch: number): Batcher<T> {
  let waiting: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let scheduled = false;
  let flushing = false;

  const run = async () => {
    scheduled = false;
    if (flushing || waiting.length === 0) return;
    flushing = true;
    const batch = waiting.slice(0, maxBatch);
    waiting = waiting.slice(batch.length);
    try {
      await flush(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      flushing = false;
      if (waiting.length > 0) schedule();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void run());
  };

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
