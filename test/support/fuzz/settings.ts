/**
 * How big and how long a fuzz run is, from the environment, so a failure can be replayed
 * (FUZZ_SEED, FUZZ_PATH) and a local run can be made longer or shorter (FUZZ_REQUESTS,
 * FUZZ_TIME_MS) without editing the suite.
 */
export interface FuzzSettings {
  /** fast-check seed shared by every campaign of the run; printed at the start. */
  seed: number;
  /** fast-check replay path of one failing campaign (from its report), or undefined. */
  path: string | undefined;
  /** Generated requests the whole run aims at, over all campaigns. */
  requests: number;
  /** Wall time of all campaigns together, shrinking included. */
  timeMs: number;
  /**
   * Survey mode (FUZZ_SURVEY=1): campaigns do not stop at the first failing batch but run
   * their whole budget, collecting every distinct failure, and the test fails at the end
   * with the list. For triage; CI runs the default, which shrinks to a counterexample.
   */
  survey: boolean;
}

const DEFAULT_REQUESTS = 25_000;
// 25,000 requests take about 60 s alone and up to 80 s beside the rest of the suite on 2 cores;
// the cap stops a slow machine from stretching the run further.
const DEFAULT_TIME_MS = 90_000;

export function readFuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  return {
    seed: readInt(env.FUZZ_SEED, () => Math.floor(Math.random() * 0x7fffffff)),
    path: env.FUZZ_PATH === undefined || env.FUZZ_PATH === '' ? undefined : env.FUZZ_PATH,
    requests: readInt(env.FUZZ_REQUESTS, () => DEFAULT_REQUESTS),
    timeMs: readInt(env.FUZZ_TIME_MS, () => DEFAULT_TIME_MS),
    survey: env.FUZZ_SURVEY === '1' || env.FUZZ_SURVEY === 'true',
  };
}

function readInt(raw: string | undefined, fallback: () => number): number {
  if (raw === undefined || raw.trim() === '') return fallback();
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`Expected an integer, got "${raw}"`);
  return value;
}
