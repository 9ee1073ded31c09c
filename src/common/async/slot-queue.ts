/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** setTimeout and clearTimeout, passed in so tests drive time themselves. */
export interface SlotTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: SlotTimers = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Waiter {
  grant(release: ReleaseSlot): void;
  timer: unknown;
}

/**
 * At most `size` holders at once. A caller finding every slot taken waits in line, first come
 * first served, for at most `waitMs`: a freed slot passes straight to the longest waiter (a
 * newcomer never overtakes the line), and a waiter whose time is up gets null and leaves it.
 */
export class SlotQueue {
  private held = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly size: number,
    readonly waitMs: number,
    private readonly timers: SlotTimers = REAL_TIMERS,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`size must be >= 1 (got ${size})`);
  }

  /** Slots held now. */
  get inUse(): number {
    return this.held;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** A slot's release, at once when one is free, else when one frees in time; null if none does. */
  acquire(): Promise<ReleaseSlot | null> {
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve(this.releaseOnce());
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: resolve,
        timer: this.timers.set(() => {
          const index = this.waiters.indexOf(waiter);
          if (index !== -1) this.waiters.splice(index, 1);
          resolve(null);
        }, this.waitMs),
      };
      this.waiters.push(waiter);
    });
  }

  private releaseOnce(): ReleaseSlot {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      const next = this.waiters.shift();
      if (next === undefined) {
        this.held--;
        return;
      }
      // The slot changes hands without ever being free.
      this.timers.clear(next.timer);
      next.grant(this.releaseOnce());
    };
  }
}
