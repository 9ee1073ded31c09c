import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';

/**
 * PostgreSQL could not be reached at start-up within the wait: one message naming the
 * variable, the host and port and what happened, for every entry point (server, CLI,
 * `npm start`), instead of a driver error and its stack.
 */
export class DatabaseUnreachableError extends Error {
  readonly code = 'DATABASE_UNREACHABLE';
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnreachableError';
  }
}

export interface StartupWait {
  /** How long to keep trying while the server is not answering (it may still be starting). */
  waitMs: number;
  /** One line when the first attempt fails, saying what is awaited and for how long. */
  onProgress?: (line: string) => void;
}

const RETRY_INTERVAL_MS = 500;

/**
 * Connects once to `url`, retrying while PostgreSQL is not there yet (refused, unreachable,
 * starting up) for at most `waitMs`; refusals waiting cannot mend (bad credentials, no such
 * database) stop at once. Throws DatabaseUnreachableError naming DATABASE_URL, host and port.
 */
export async function waitForDatabase(url: string, wait: StartupWait): Promise<void> {
  const where = describeTarget(url);
  const deadline = Date.now() + wait.waitMs;
  for (let attempt = 1; ; attempt++) {
    const remainingMs = Math.max(deadline - Date.now(), 100);
    const client = new Client({ connectionString: url, connectionTimeoutMillis: remainingMs });
    // A failed connect may also emit 'error' on the client: handled here, not by the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      const problem = describeProblem(error);
      if (!problem.isWorthWaiting || Date.now() >= deadline) {
        throw new DatabaseUnreachableError(`${where} ${problem.text}.`);
      }
      if (attempt === 1) {
        wait.onProgress?.(
          `${where} ${problem.text}; retrying for up to ${Math.round(wait.waitMs / 1000)} s`,
        );
      }
      await delay(Math.min(RETRY_INTERVAL_MS, Math.max(deadline - Date.now(), 0)));
    }
  }
}

/** `PostgreSQL at 127.0.0.1:5432 (DATABASE_URL)`: where, never the credentials. */
function describeTarget(url: string): string {
  let host = 'localhost';
  let port = '5432';
  try {
    const parsed = new URL(url);
    host = parsed.searchParams.get('host') ?? (parsed.hostname || host);
    port = parsed.port || port;
  } catch {
    // loadConfig has checked the URL; keep the defaults for anything odd.
  }
  return `PostgreSQL at ${host.startsWith('/') ? host : `${host}:${port}`} (DATABASE_URL)`;
}

function describeProblem(error: unknown): { text: string; isWorthWaiting: boolean } {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const reason = typeof message === 'string' ? message : String(error);
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOENT':
      return { text: 'refused the connection', isWorthWaiting: true };
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { text: `did not answer (${String(code)})`, isWorthWaiting: true };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { text: 'names a host that does not resolve', isWorthWaiting: true };
    case '57P03': // the database system is starting up
      return { text: 'is starting up', isWorthWaiting: true };
    case '28P01':
    case '28000':
      return { text: `refused the credentials (${reason})`, isWorthWaiting: false };
    case '3D000':
      return { text: `has no such database (${reason})`, isWorthWaiting: false };
    default:
      if (/timeout/i.test(reason)) return { text: 'did not answer in time', isWorthWaiting: true };
      return { text: `refused the connection (${reason})`, isWorthWaiting: false };
  }
}
