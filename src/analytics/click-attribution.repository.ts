import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeyEnvironment } from '../common/access/auth-context';

/** What a conversion takes from the click it is attributed to. */
export interface ClickAttribution {
  recordId: string;
  creatorId: string;
  environment: KeyEnvironment;
  linkId: string;
  merchantId: string | null;
  networkId: string | null;
  region: string | null;
  visitorCountry: string | null;
  deviceClass: string;
  clickedAt: Date;
}

interface ClickRow {
  record_id: string;
  creator_id: string;
  environment: KeyEnvironment;
  link_id: string;
  merchant_id: string | null;
  network_id: string | null;
  region: string | null;
  visitor_country: string | null;
  device_class: string;
  clicked_at: Date;
}

/**
 * Stored clicks by record id, whoever's they are (the caller compares the scope: a click of
 * another creator or environment must be told apart from an unknown one). One statement
 * for a batch, on the serving pool: each partition answers from its primary key, which
 * leads with the record id.
 */
@Injectable()
export class ClickAttributionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByRecordIds(recordIds: readonly string[]): Promise<Map<string, ClickAttribution>> {
    if (recordIds.length === 0) return new Map();
    const rows = await this.dataSource.query<ClickRow[]>(
      `SELECT record_id, creator_id, environment, link_id, merchant_id, network_id, region,
              visitor_country, device_class, clicked_at
         FROM clicks WHERE record_id = ANY($1::varchar[])`,
      [[...new Set(recordIds)]],
    );
    return new Map(
      rows.map((row) => [
        row.record_id,
        {
          recordId: row.record_id,
          creatorId: row.creator_id,
          environment: row.environment,
          linkId: row.link_id,
          merchantId: row.merchant_id,
          networkId: row.network_id,
          region: row.region,
          visitorCountry: row.visitor_country === null ? null : row.visitor_country.trim(),
          deviceClass: row.device_class,
          clickedAt: new Date(row.clicked_at),
        },
      ]),
    );
  }
}
