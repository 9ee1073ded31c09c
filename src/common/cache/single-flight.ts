/**
 * At most one load per key under way: a caller asking for a key that is already being loaded
 * joins that load instead of starting another (a burst of clicks on a cold entry makes one read).
 * The key is free again as soon as its load settles, so a failure is not remembered.
 */
export class SingleFlight<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  /** The load under way for `key`, else the one `start` begins. */
  run(key: K, start: () => Promise<V>): Promise<V> {
    const joined = this.pending.get(key);
    if (joined !== undefined) return joined;
    const flight: Promise<V> = start().finally(() => {
      if (this.pending.get(key) === flight) this.pending.delete(key);
    });
    this.pending.set(key, flight);
    return flight;
  }
}
