import type { KeyEnvironment } from '../common/access/auth-context';
import { decodeClickRecord } from '../analytics/click-record-codec';
import { billingPeriodOf } from './billing-period';

/**
 * The click spool's file format (click-spool.ts writes it, click-spool-replay.service.ts reads
 * it). A segment is a text file: a header line naming the format, then one line per counted
 * click, `<visitor hash>\t<click record>\n`, appended in order. The record is the click
 * stream's own entry (a JSON array, which never holds a raw tab or newline), so replay appends
 * it to the stream byte for byte; the hash is the unique-visitor keyed hash, empty when
 * unknown (base64url, no tab either).
 *
 * A line is acknowledged (its visitor answered) only once its batch was fsynced, so a crash
 * can cut only the last line short, and that click was never answered: a last line without
 * its newline is skipped. A line that is not an entry (a damaged disk) is skipped and counted.
 */
export const SPOOL_SEGMENT_HEADER = 'linkpilot-click-spool v1\n';

/** One counted click waiting for Redis. */
export interface SpooledClick {
  /** The serialised click record, as the click stream holds it. */
  record: string;
  /** Its visitor's keyed hash for the unique-visitor counts; null when unknown. */
  visitorHash: string | null;
}

export function encodeSpoolLine(click: SpooledClick): string {
  return `${click.visitorHash ?? ''}\t${click.record}\n`;
}

/** A spooled click with what replay needs of its record to find its keys. */
export interface ReplayableClick extends SpooledClick {
  creatorId: string;
  environment: KeyEnvironment;
  linkId: string;
  clickedAtMs: number;
}

/** The clicks of one creator, environment and billing period: one quota counter's share. */
export interface QuotaShare {
  creatorId: string;
  environment: KeyEnvironment;
  periodId: string;
  /** The period's first day, `YYYY-MM-DD`: where PostgreSQL's count for it starts. */
  periodStart: string;
  clicks: number;
}

export interface ParsedSegment {
  clicks: ReplayableClick[];
  /** Per quota counter, the clicks of this segment it has to be reconciled with. */
  quotaShares: QuotaShare[];
  /** Lines that are no entry of this format, skipped. */
  damagedLines: number;
  /** The last line was cut short by a crash in mid-write (never acknowledged), skipped. */
  hasTornTail: boolean;
}

/** Reads a segment's text; a file without the header is all damaged lines. */
export function parseSegment(text: string): ParsedSegment {
  const parsed: ParsedSegment = {
    clicks: [],
    quotaShares: [],
    damagedLines: 0,
    hasTornTail: false,
  };
  if (!text.startsWith(SPOOL_SEGMENT_HEADER)) {
    parsed.damagedLines = text.split('\n').filter((line) => line !== '').length;
    return parsed;
  }
  const lines = text.slice(SPOOL_SEGMENT_HEADER.length).split('\n');
  // Text ending in a newline splits into a last empty string; anything else is a torn line.
  const tail = lines.pop();
  parsed.hasTornTail = tail !== undefined && tail !== '';
  const shares = new Map<string, QuotaShare>();
  for (const line of lines) {
    const click = parseLine(line);
    if (click === null) {
      parsed.damagedLines++;
      continue;
    }
    parsed.clicks.push(click);
    const period = billingPeriodOf(click.clickedAtMs);
    const shareKey = `${click.creatorId}\n${click.environment}\n${period.id}`;
    const share = shares.get(shareKey);
    if (share === undefined) {
      const { creatorId, environment } = click;
      const { id: periodId, start: periodStart } = period;
      shares.set(shareKey, { creatorId, environment, periodId, periodStart, clicks: 1 });
    } else share.clicks++;
  }
  parsed.quotaShares = [...shares.values()];
  return parsed;
}

function parseLine(line: string): ReplayableClick | null {
  const tab = line.indexOf('\t');
  if (tab < 0) return null;
  const record = line.slice(tab + 1);
  try {
    const decoded = decodeClickRecord(record);
    const clickedAtMs = Date.parse(decoded.clickedAt);
    const { creatorId, linkId, environment } = decoded;
    if (!Number.isFinite(clickedAtMs) || typeof creatorId !== 'string') return null;
    if (typeof linkId !== 'string' || (environment !== 'live' && environment !== 'test')) {
      return null;
    }
    return {
      record,
      visitorHash: tab === 0 ? null : line.slice(0, tab),
      creatorId,
      environment,
      linkId,
      clickedAtMs,
    };
  } catch {
    return null;
  }
}

/**
 * Segment files are named by the time they were opened and the process that wrote them, so
 * names sort in writing order and a process can tell its own segments from those of a
 * process that is gone (README "Durability").
 */
export function segmentFileName(openedAtMs: number, pid: number, sequence: number): string {
  return `clicks-${String(openedAtMs).padStart(15, '0')}-${pid}-${sequence}.spool`;
}

/** The writing process of a segment file, or null for a name that is no segment's. */
export function segmentWriterPid(fileName: string): number | null {
  const match = /^clicks-\d{15}-(\d+)-\d+\.spool$/.exec(fileName);
  return match === null ? null : Number(match[1]);
}
