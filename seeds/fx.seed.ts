import { DataSource } from 'typeorm';
import bundledSnapshot from './fx-snapshot.json';

/** Imported (not read by path) so tsc copies the JSON into dist/ beside this seed. */
export const FX_SNAPSHOT = bundledSnapshot;

/**
 * The bundled rates, as source `snapshot`, so routing can price every storefront on the first
 * boot and offline (docs/design.md section 6). Idempotent and race-free: one statement that inserts
 * only into an empty history, so it never hides rates a refresh has fetched. Its fetched_at is
 * its validAt, so any real refresh counts as newer.
 */
export async function seedFxSnapshot(dataSource: DataSource): Promise<number> {
  const inserted: unknown[] = await dataSource.query(
    `INSERT INTO fx_rates (valid_at, fetched_at, source, rates)
     SELECT $1, $1, 'snapshot', $2::jsonb
     WHERE NOT EXISTS (SELECT 1 FROM fx_rates)
     RETURNING id`,
    [FX_SNAPSHOT.validAt, JSON.stringify(FX_SNAPSHOT.rates)],
  );
  return inserted.length;
}
