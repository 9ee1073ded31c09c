/** Time as a dependency, so tests can move it instead of sleeping. */
export abstract class Clock {
  abstract nowMs(): number;
}

export class SystemClock extends Clock {
  nowMs(): number {
    return Date.now();
  }
}
