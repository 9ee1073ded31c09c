import { Clock } from '../../src/common/clock';

/** A clock the test moves by hand; starts at the real time so stored dates look normal. */
export class TestClock extends Clock {
  private offsetMs = 0;

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
