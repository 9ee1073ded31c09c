import { Injectable } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { NETWORK_IDS } from '../networks/network-ids';
import { ConversionsService } from './conversions.service';
import { parseCsv } from './csv-rows';
import { conversionFromReportRow } from './report-columns';

/** Rows recorded per transaction: the API's batch. */
const IMPORT_BATCH_ROWS = 1000;

export interface ConversionImportReport {
  file: string;
  networkId: string;
  environment: string;
  rows: number;
  recorded: number;
  replayed: number;
  failed: number;
  /** Every refused row: its line in the file, order id, and why. */
  errors: { line: number; orderId: string | null; code: string; message: string }[];
}

/** How far an import has gone, after each batch. */
export interface ConversionImportProgress {
  done: number;
  rows: number;
}

/**
 * `linkpilot conversions import`: a network's report export (CSV) recorded as the API
 * records a batch (the same validation, attribution, idempotency and events), a thousand
 * rows per transaction, so a file imported twice records nothing the second time.
 */
@Injectable()
export class ConversionImportService {
  constructor(
    private readonly conversions: ConversionsService,
    private readonly clock: Clock,
  ) {}

  async importFile(
    scope: RecordScope,
    networkId: string,
    file: string,
    onProgress: (progress: ConversionImportProgress) => void,
  ): Promise<ConversionImportReport> {
    if (!(NETWORK_IDS as readonly string[]).includes(networkId)) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, `Unknown network ${networkId}.`, {
        network: [`must be one of ${NETWORK_IDS.join(', ')}`],
      });
    }
    const rows = parseCsv(await readCsv(file));
    const nowMs = this.clock.nowMs();
    const report: ConversionImportReport = {
      file,
      networkId,
      environment: scope.environment,
      rows: rows.length,
      recorded: 0,
      replayed: 0,
      failed: 0,
      errors: [],
    };
    for (let start = 0; start < rows.length; start += IMPORT_BATCH_ROWS) {
      const batch = rows.slice(start, start + IMPORT_BATCH_ROWS);
      const items = batch.map((row) => conversionFromReportRow(networkId, row.fields, nowMs));
      for (const outcome of await this.conversions.record(scope, items, 'import')) {
        if ('error' in outcome) {
          report.failed++;
          report.errors.push({
            line: batch[outcome.index].line,
            orderId: outcome.orderId,
            code: outcome.error.code,
            message: describe(outcome.error),
          });
        } else if (outcome.replayed) {
          report.replayed++;
        } else {
          report.recorded++;
        }
      }
      onProgress({ done: start + batch.length, rows: rows.length });
    }
    return report;
  }
}

async function readCsv(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new AppError(
      ErrorCode.VALIDATION_ERROR,
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      { file: ['must be a readable CSV file'] },
    );
  }
}

/** The error's message with the fields it names, for one line of the report. */
function describe(error: AppError): string {
  const details = Object.entries(error.details ?? {}).map(
    ([field, messages]) => `${field}: ${messages.join('; ')}`,
  );
  return details.length === 0 ? error.message : `${error.message} (${details.join(', ')})`;
}
