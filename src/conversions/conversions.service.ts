import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ClickAttribution, ClickAttributionService } from '../analytics/click-attribution.service';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { toValidationDetails } from '../common/errors/validation-details';
import { newUlid } from '../common/ids';
import { findMalformedText, toMalformedTextError } from '../common/validators/malformed-text';
import type { Transaction } from '../database/transaction';
import { EventOutboxService } from '../events/event-outbox.service';
import { FxService } from '../fx/fx.service';

import type { CurrencyCode, FxRates } from '../fx/math/fx-snapshot';
import { ConversionEntity, ConversionSource } from './conversion.entity';
import { effectOf, RecordedStatus } from './conversion-effects';
import {
  ConversionResponse,
  FailedConversionResponse,
  RecordConversionsResponse,
  RecordedConversionResponse,
  toConversionResponse,
} from './conversion.response';
import { ConversionsRepository, orderKeyOf } from './conversions.repository';
import { ConversionInputDto } from './dto/conversion-input.dto';
import { MAX_CONVERSIONS_PER_REQUEST } from './dto/record-conversions.dto';

const ITEM_VALIDATION = { whitelist: true, forbidNonWhitelisted: true };

/** An item ready to record: validated, converted to USD, its click looked up. */
interface PreparedConversion {
  index: number;
  input: ConversionInputDto;
  usdRate: number;
  saleAmountUsd: number;
  commissionUsd: number;
  /** The caller's click the click id names; null when it names none. */
  click: ClickAttribution | null;
}

/** What happened to one item. */
export type ConversionOutcome =
  | { index: number; replayed: boolean; conversion: ConversionResponse }
  | { index: number; orderId: string | null; error: AppError };

const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;

/**
 * Conversions in (README "Conversions"), whichever way they come: each item is validated
 * alone, converted to USD at its day's rates, attributed to the caller's click its click id
 * names, and recorded once per network, order id and status in the caller's scope, with its
 * effect on the earnings rollups and a `conversion.recorded` or `conversion.reversed` event
 * in the same transaction. A replay records nothing and sends nothing.
 */
@Injectable()
export class ConversionsService {
  constructor(
    private readonly repository: ConversionsRepository,
    private readonly clicks: ClickAttributionService,
    private readonly fx: FxService,
    private readonly events: EventOutboxService,
    private readonly clock: Clock,
  ) {}

  /** POST /v1/conversions: 1 to 1,000 items, each independent (207). */
  async recordBatch(scope: RecordScope, items: unknown[]): Promise<RecordConversionsResponse> {
    if (items.length === 0 || items.length > MAX_CONVERSIONS_PER_REQUEST) {
      throw new AppError(
        ErrorCode.BULK_LIMIT_EXCEEDED,
        `A request holds 1 to ${MAX_CONVERSIONS_PER_REQUEST} conversions; this one has ${items.length}.`,
      );
    }
    const outcomes = await this.record(scope, items, 'api');
    const recorded: RecordedConversionResponse[] = [];
    const failed: FailedConversionResponse[] = [];
    for (const outcome of outcomes) {
      if ('error' in outcome) {
        failed.push({
          index: outcome.index,
          orderId: outcome.orderId,
          error: errorBody(outcome.error),
        });
      } else {
        recorded.push(outcome);
      }
    }
    const totalReplayed = recorded.filter((item) => item.replayed).length;
    return {
      recorded,
      failed,
      totalRequested: items.length,
      totalRecorded: recorded.length - totalReplayed,
      totalReplayed,
      totalFailed: failed.length,
    };
  }

  /** Records items (each a would-be ConversionInputDto); one outcome per item, in order. */
  async record(
    scope: RecordScope,
    items: readonly unknown[],
    source: ConversionSource,
  ): Promise<ConversionOutcome[]> {
    const outcomes: ConversionOutcome[] = [];
    const valid: { index: number; input: ConversionInputDto }[] = [];
    for (const [index, item] of items.entries()) {
      try {
        valid.push({ index, input: await validateItem(item) });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        outcomes.push({ index, orderId: orderIdOf(item), error });
      }
    }
    const prepared = await this.prepare(scope, valid, outcomes);
    if (prepared.length > 0) outcomes.push(...(await this.store(scope, prepared, source)));
    return outcomes.sort((a, b) => a.index - b.index);
  }

  private async prepare(
    scope: RecordScope,
    valid: readonly { index: number; input: ConversionInputDto }[],
    outcomes: ConversionOutcome[],
  ): Promise<PreparedConversion[]> {
    const clicks = await this.clicks.findByRecordIds(
      valid.flatMap(({ input }) =>
        input.clickId === undefined || input.clickId === null ? [] : [input.clickId],
      ),
    );
    const ratesByDay = new Map<string, Promise<FxRates>>();
    const ratesOn = (occurredAt: Date): Promise<FxRates> => {
      const day = occurredAt.toISOString().slice(0, 10);
      let rates = ratesByDay.get(day);
      if (rates === undefined) {
        // The day's rates: the latest stored before the next day begins.
        rates = this.fx.ratesAt(new Date(Date.parse(`${day}T00:00:00Z`) + 86_399_999));
        ratesByDay.set(day, rates);
      }
      return rates;
    };
    const prepared: PreparedConversion[] = [];
    for (const { index, input } of valid) {
      const click =
        input.clickId === undefined || input.clickId === null
          ? undefined
          : clicks.get(input.clickId);
      if (
        click !== undefined &&
        (click.creatorId !== scope.creatorId || click.environment !== scope.environment)
      ) {
        outcomes.push({
          index,
          orderId: input.orderId,
          error: new AppError(
            ErrorCode.CLICK_NOT_IN_SCOPE,
            `Click ${input.clickId} is not a click of this key's creator and environment: check which postback token or key the network uses.`,
          ),
        });
        continue;
      }
      const rates = await ratesOn(new Date(input.occurredAt));
      const usdRate = rates[input.currency as CurrencyCode];
      prepared.push({
        index,
        input,
        usdRate,
        saleAmountUsd: round6(input.saleAmount / usdRate),
        commissionUsd: round6(input.commission / usdRate),
        click: click ?? null,
      });
    }
    return prepared;
  }

  private store(
    scope: RecordScope,
    prepared: readonly PreparedConversion[],
    source: ConversionSource,
  ): Promise<ConversionOutcome[]> {
    const nowMs = this.clock.nowMs();
    return this.repository.withOrders(
      scope,
      prepared.map(({ input }) => input),
      async (existing, transaction) => {
        const byOrder = new Map<string, ConversionEntity[]>();
        for (const row of existing) pushTo(byOrder, orderKeyOf(row), row);
        const outcomes: ConversionOutcome[] = [];
        const added: ConversionEntity[] = [];
        for (const item of prepared) {
          const order = byOrder.get(orderKeyOf(item.input)) ?? [];
          const same = order.find((row) => row.status === item.input.status);
          if (same !== undefined) {
            outcomes.push({
              index: item.index,
              replayed: true,
              conversion: toConversionResponse(same),
            });
            continue;
          }
          const row = rowOf(scope, item, order, source, nowMs);
          pushTo(byOrder, orderKeyOf(row), row);
          added.push(row);
          outcomes.push({
            index: item.index,
            replayed: false,
            conversion: toConversionResponse(row),
          });
        }
        await this.repository.insertAll(added, transaction);
        await this.publish(scope, added, transaction);
        return outcomes;
      },
    );
  }

  private async publish(
    scope: RecordScope,
    rows: readonly ConversionEntity[],
    transaction: Transaction,
  ): Promise<void> {
    for (const row of rows) {
      const type = row.status === 'reversed' ? 'conversion.reversed' : 'conversion.recorded';
      await this.events.publish(scope, type, eventDataOf(row), { transaction });
    }
  }

  /** Removes the scope's test conversions (the sandbox reset); answers how many. */
  purgeTestConversions(scope: RecordScope): Promise<number> {
    return this.repository.purgeTestScope(scope);
  }
}

/**
 * The row of a new status: attributed and bucketed as the order's first row (so all its rows
 * add up in one group), else as its own click and instant; its effect from the order's rows.
 */
function rowOf(
  scope: RecordScope,
  item: PreparedConversion,
  order: readonly ConversionEntity[],
  source: ConversionSource,
  nowMs: number,
): ConversionEntity {
  const { input } = item;
  const first = order.at(0);
  const recorded: RecordedStatus[] = order.map((row) => ({
    status: row.status,
    commissionUsd: Number(row.commissionUsd),
  }));
  const effect = effectOf(input.status, item.commissionUsd, recorded);
  const click = item.click;
  const attribution =
    first !== undefined
      ? {
          linkId: first.linkId,
          merchantId: first.merchantId,
          region: first.region,
          visitorCountry: first.visitorCountry,
          deviceClass: first.deviceClass,
          clickedAt: first.clickedAt,
        }
      : {
          linkId: click?.linkId ?? null,
          merchantId: click?.merchantId ?? null,
          region: click?.region ?? null,
          visitorCountry: click?.visitorCountry ?? null,
          deviceClass: click?.deviceClass ?? null,
          clickedAt: click?.clickedAt ?? null,
        };
  const row = new ConversionEntity();
  Object.assign(row, {
    id: newUlid(nowMs),
    creatorId: scope.creatorId,
    environment: scope.environment,
    networkId: input.networkId,
    orderId: input.orderId,
    status: input.status,
    source,
    clickId: input.clickId ?? null,
    ...attribution,
    saleAmount: input.saleAmount,
    commission: input.commission,
    currency: input.currency,
    usdRate: item.usdRate,
    saleAmountUsd: item.saleAmountUsd,
    commissionUsd: item.commissionUsd,
    occurredAt: new Date(input.occurredAt),
    bucketAt: first?.bucketAt ?? new Date(input.occurredAt),
    conversionsDelta: effect.conversions,
    approvedUsdDelta: round6(effect.approvedUsd),
    pendingUsdDelta: round6(effect.pendingUsd),
    recordedAt: new Date(nowMs),
  } satisfies ConversionEntity);
  return row;
}

function eventDataOf(row: ConversionEntity): Record<string, unknown> {
  const { id, networkId, orderId, status, linkId, commissionUsd, currency, commission } =
    toConversionResponse(row);
  return {
    conversionId: id,
    networkId,
    orderId,
    status,
    linkId,
    commission,
    currency,
    commissionUsd,
    effect: {
      conversions: row.conversionsDelta,
      approvedCommissionUsd: row.approvedUsdDelta,
      pendingCommissionUsd: row.pendingUsdDelta,
    },
  };
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function orderIdOf(item: unknown): string | null {
  if (typeof item !== 'object' || item === null) return null;
  const orderId = (item as { orderId?: unknown }).orderId;
  return typeof orderId === 'string' ? orderId.slice(0, 128) : null;
}

function errorBody(error: AppError): FailedConversionResponse['error'] {
  return {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
  };
}

async function validateItem(item: unknown): Promise<ConversionInputDto> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, 'Each item must be a conversion object.', {
      body: ['must be a conversion object'],
    });
  }
  const malformed = findMalformedText(item, { isNulRefused: true });
  if (malformed !== null) throw toMalformedTextError(malformed, 'conversion', 'body');
  const dto = plainToInstance(ConversionInputDto, item);
  const errors = await validate(dto, ITEM_VALIDATION);
  if (errors.length > 0) {
    const details = toValidationDetails(errors);
    throw new AppError(
      ErrorCode.VALIDATION_ERROR,
      `Invalid conversion: ${Object.keys(details).join(', ')}.`,
      details,
    );
  }
  return dto;
}
