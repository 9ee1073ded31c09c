import { clip } from './model';
import type { Exchange } from './wire';

/** One request and what came of it, in the form every check reads. */
export interface Outcome {
  /** Statistics key: the catalogue route (`GET /r/:id`), or `* <template>` for another method. */
  route: string;
  method: string;
  /** The request target as sent. */
  target: string;
  /** How to show the request in a failure message. */
  shown: string;
  exchange: Exchange | { kind: 'closed' };
  /** A CORS preflight (OPTIONS with Access-Control-Request-Method), answered 204 with no body. */
  preflight: boolean;
  /** Written byte by byte, possibly not HTTP at all: Node's parser may refuse it with a 400. */
  raw: boolean;
  /** Bytes of the request line and headers (over 16 KiB, Node answers 431 before any route). */
  headBytes: number;
}

/** A broken rule: the signature groups equal failures, the message shows one in full. */
export interface Problem {
  signature: string;
  message: string;
}

/** Statuses a click may get (brief): redirected, no such link, over a limit, or the HTTPS upgrade. */
const EDGE_STATUSES = [301, 302, 404, 429];
const LOCATION_SAFE = /^[\x21-\x7e]+$/;
/** Longer targets, and heads over Node's 16 KiB, may be refused (414, 431) before any route. */
const MAX_TARGET = 8192;
const MAX_HEAD = 16 * 1024 - 512;
/**
 * A request target Node's HTTP parser accepts: bytes 0x7F-0xFF (raw Latin-1 or UTF-8) make it
 * answer 400 before the app sees the request, which is not the redirect's to decide.
 */
const PARSEABLE_TARGET = /^[\x21-\x7e]*$/;
/** /docs and /docs-json, also as raw requests write them (a leading space, absolute form). */
const DOCS_TARGET = /^\s*(https?:\/\/[^/]*)?\/docs/;

/**
 * The rules every answer keeps, whatever was sent: no 5xx; a Location, when there is one, is an
 * absolute URL in printable ASCII; a click gets one of the edge statuses; everything under
 * /v1 (and every error) answers in the `{success, data}` / `{success: false, error}` envelope.
 * Exact 4xx codes are left to the feature tests.
 */
export function problemsOf(outcome: Outcome): Problem[] {
  const { exchange } = outcome;
  // Signatures group failures by their likely cause: per route for 5xx and lost answers,
  // across routes for Location and envelope problems (one hook or filter writes them all).
  const problem = (kind: string, detail: string, perRoute = true): Problem => ({
    signature: perRoute ? `${outcome.route}: ${kind}` : kind,
    message: `${perRoute ? '' : `${outcome.route}: `}${kind}: ${detail}\n    request: ${outcome.shown}`,
  });
  if (exchange.kind === 'closed') return []; // raw bytes the server may refuse by hanging up
  if (exchange.kind === 'no-answer') {
    return [problem(`no answer (${exchange.reason.split(':')[0]})`, exchange.reason)];
  }
  const { status, headers, body } = exchange;
  const answer = `${status} ${headers['content-type'] ?? '(no content type)'} ${clipBody(body)}`;
  const problems: Problem[] = [];
  if (status >= 500) problems.push(problem(`${status} ${errorCodeOf(body)}`, answer));
  const location = headers.location;
  if (location !== undefined) {
    const why = locationProblem(location);
    if (why !== null) {
      problems.push(problem(`${status} with a bad Location (${why})`, quote(location), false));
    }
  }
  // A 5xx is reported above already.
  const isOddClickStatus = status < 500 && !clickStatuses(outcome).includes(status);
  if (isClick(outcome) && isOddClickStatus && !outcome.preflight) {
    problems.push(problem(`click answered ${status}`, answer, false));
  }
  const why = bodyProblem(outcome, status, headers, body);
  if (why !== null) problems.push(problem(`${status} not in the envelope (${why})`, answer, false));
  return problems;
}

/** A GET or HEAD of /r/<something>: what the redirect answers. */
const isEdgeRequest = (outcome: Outcome): boolean =>
  (outcome.method === 'GET' || outcome.method === 'HEAD') && outcome.target.startsWith('/r/');

/** An edge request through an HTTP client (raw bytes may be refused in any way). */
const isClick = (outcome: Outcome): boolean => !outcome.raw && isEdgeRequest(outcome);

/**
 * The edge statuses, plus what the HTTP layer may answer before the redirect sees the
 * request: 400 for a target Node cannot parse, 414 and 431 for oversized requests.
 */
function clickStatuses(outcome: Outcome): number[] {
  return [
    ...EDGE_STATUSES,
    ...(PARSEABLE_TARGET.test(outcome.target) ? [] : [400]),
    ...(outcome.target.length > MAX_TARGET ? [414] : []),
    ...(outcome.headBytes > MAX_HEAD ? [431] : []),
  ];
}

function locationProblem(location: string): string | null {
  if (!LOCATION_SAFE.test(location)) return 'characters outside printable ASCII';
  try {
    new URL(location);
  } catch {
    return 'not an absolute URL';
  }
  return null;
}

/** Why the body is not what this answer should carry; null when it is (or nothing is due). */
function bodyProblem(
  outcome: Outcome,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): string | null {
  if (outcome.method === 'HEAD') return null; // no body by definition
  if (DOCS_TARGET.test(outcome.target)) return null; // Swagger UI and its JSON document
  if (outcome.preflight && status === 204) return null;
  if (status === 301) {
    return headers.location?.startsWith('https://') === true ? null : '301 not to https';
  }
  // A redirect is empty, a 429 a small HTML page with the link.
  if (isEdgeRequest(outcome) && (status === 302 || status === 429)) return null;
  return envelopeProblem(status, headers, body);
}

function envelopeProblem(
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): string | null {
  const type = headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return `Content-Type "${type}"`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (!isRecord(parsed)) return 'body is not an object';
  if (parsed.success === true) {
    if (status >= 400) return `success: true with ${status}`;
    return 'data' in parsed ? null : 'success: true without data';
  }
  if (parsed.success !== false) return 'no boolean success';
  if (status < 400) return `success: false with ${status}`;
  const error = parsed.error;
  if (!isRecord(error)) return 'error is not an object';
  if (typeof error.code !== 'string' || error.code === '') return 'error.code is not a string';
  if (typeof error.message !== 'string') return 'error.message is not a string';
  if (typeof error.requestId !== 'string' || error.requestId === '') {
    return 'error.requestId is not a string';
  }
  if (error.details !== undefined && !isRecord(error.details))
    return 'error.details is not an object';
  return null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function errorCodeOf(body: Buffer): string {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.code === 'string') {
      return parsed.error.code;
    }
  } catch {
    // not JSON: no code to show
  }
  return '(no error code)';
}

function clipBody(body: Buffer): string {
  return quote(body.toString('utf8'));
}

/** Quoted, cut, escaped (see model.ts). */
const quote = (text: string): string => `"${clip(text, 300)}"`;
