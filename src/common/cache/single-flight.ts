/**
 * At most one load per key under way: a caller asking for a key that is already being loaded
 * joins that load instead of starting another (a burst of clicks on a cold entry makes one read).
 * The key is free again as soon as its load settles, so a failure is not remembered.
 */
export class SingleFlight<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  /**
   * The load under way for `key`, else the one `start` begins. `start` may ask, once it has
   * awaited something, whether its load is still the key's (`isCurrent`): not after `forget`,
   * so a load that read the value before a change can answer its callers and not be kept.
   */
  run(key: K, start: (isCurrent: () => boolean) => Promise<V>): Promise<V> {
    const joined = this.pending.get(key);
    if (joined !== undefined) return joined;
    const isCurrent = (): boolean => this.pending.get(key) === flight;
    const flight: Promise<V> = start(isCurrent).finally(() => {
      if (isCurrent()) this.pending.delete(key);
    });
    this.pending.set(key, flight);
    return flight;
  }

  /** Frees `key`: the load under way still answers its callers; the next caller starts anew. */
  forget(key: K): void {
    this.pending.delete(key);
  }
}
