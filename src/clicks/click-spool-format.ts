import type { KeyEnvironment } from '../common/access/auth-context';
import { decodeClickRecord } from '../analytics/click-record-codec';
import { billingPeriodOf } from '../account/billing-period';

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
  const parser = new SegmentParser(text);
  parser.parseMore(Number.POSITIVE_INFINITY);
  return parser.result();
}

/**
 * A segment read a slice of lines at a time, so that the replay can let the event loop run
 * between slices: the segment of a long outage under load holds tens of thousands of clicks,
 * and parsing it in one go would hold every request, and every Redis reply, for that long
 * (long enough for the commands in flight to pass REDIS_COMMAND_TIMEOUT_MS, which reads as a
 * new outage). Any slicing gives what parseSegment gives.
 */
export class SegmentParser {
  private readonly parsed: ParsedSegment = {
    clicks: [],
    quotaShares: [],
    damagedLines: 0,
    hasTornTail: false,
  };
  private readonly shares = new Map<string, QuotaShare>();
  /** Where the next line starts. */
  private at: number;

  constructor(private readonly text: string) {
    if (text.startsWith(SPOOL_SEGMENT_HEADER)) {
      this.at = SPOOL_SEGMENT_HEADER.length;
      return;
    }
    this.parsed.damagedLines = text.split('\n').filter((line) => line !== '').length;
    this.at = text.length;
  }

  /** Parses up to `maxLines` more lines; true while some remain. */
  parseMore(maxLines: number): boolean {
    for (let count = 0; count < maxLines && this.at < this.text.length; count++) {
      const end = this.text.indexOf('\n', this.at);
      if (end < 0) {
        // A last line without its newline: cut short by a crash in mid-write.
        this.parsed.hasTornTail = true;
        this.at = this.text.length;
        break;
      }
      this.addLine(this.text.slice(this.at, end));
      this.at = end + 1;
    }
    return this.at < this.text.length;
  }

  result(): ParsedSegment {
    return { ...this.parsed, quotaShares: [...this.shares.values()] };
  }

  private addLine(line: string): void {
    const click = parseLine(line);
    if (click === null) {
      this.parsed.damagedLines++;
      return;
    }
    this.parsed.clicks.push(click);
    const period = billingPeriodOf(click.clickedAtMs);
    const shareKey = `${click.creatorId}\n${click.environment}\n${period.id}`;
    const share = this.shares.get(shareKey);
    if (share === undefined) {
      const { creatorId, environment } = click;
      const { id: periodId, start: periodStart } = period;
      this.shares.set(shareKey, { creatorId, environment, periodId, periodStart, clicks: 1 });
    } else share.clicks++;
  }
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
 * process that is gone (docs/operations.md "Durability").
 */
export function segmentFileName(openedAtMs: number, pid: number, sequence: number): string {
  return `clicks-${String(openedAtMs).padStart(15, '0')}-${pid}-${sequence}.spool`;
}

/** The writing process of a segment file, or null for a name that is no segment's. */
export function segmentWriterPid(fileName: string): number | null {
  const match = /^clicks-\d{15}-(\d+)-\d+\.spool$/.exec(fileName);
  return match === null ? null : Number(match[1]);
}
