import { Clock } from '../../src/common/clock';

/** A clock the test moves by hand; starts at the real time so stored dates look normal. */
export class TestClock extends Clock {
  private offsetMs = 0;
  private frozenAtMs: number | null = null;

  nowMs(): number {
    return (this.frozenAtMs ?? Date.now()) + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Stops the clock at `ms` (advance still moves it), for boundaries exact to the millisecond. */
  freezeAt(ms: number): void {
    this.frozenAtMs = ms;
    this.offsetMs = 0;
  }

  /** Back to the real time, ticking. */
  resume(): void {
    this.frozenAtMs = null;
    this.offsetMs = 0;
  }
}
