import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { projectRoot } from '../src/common/project-root';
import { checkKnowledgeBase, KnowledgeBaseCheck } from '../src/merchants/kb/check-knowledge-base';
import { KbProblem } from '../src/merchants/kb/merchant-profile';

export const KNOWLEDGE_BASE_DIR = path.join(projectRoot(), 'seeds', 'merchants');

export class KnowledgeBaseError extends Error {
  constructor(readonly problems: KbProblem[]) {
    super(
      `The merchant knowledge base has ${problems.length} problem(s):\n` +
        problems.map((p) => `  - ${p.file} ${p.field} [${p.rule}]: ${p.message}`).join('\n'),
    );
    this.name = 'KnowledgeBaseError';
  }
}

/** `npm run kb:check`: every profile against the schema and the cross-file rules. */
export function checkKnowledgeBaseOrThrow(dir = KNOWLEDGE_BASE_DIR): KnowledgeBaseCheck {
  const check = checkKnowledgeBase(dir);
  if (check.problems.length > 0) throw new KnowledgeBaseError(check.problems);
  return check;
}

/** What the boot seed did to the merchants. */
export interface MerchantSeedResult {
  /** Rows inserted or brought to the bundled profile. */
  written: number;
  /** Rows an operator changed that differ from the bundle, left as they are. */
  keptOperatorEdits: number;
}

/**
 * Idempotent, and safe at every boot: refuses the whole knowledge base if any profile fails,
 * inserts the missing merchants and brings to the bundled profile only the rows the seed still
 * owns (no operator change since, see `edited_by_operator`). Rows already equal are not
 * written. `npx linkpilot kb apply` replaces operator changes, and tells creators.
 */
export async function seedMerchants(dataSource: DataSource): Promise<MerchantSeedResult> {
  const { profiles } = checkKnowledgeBaseOrThrow();
  const bundle = JSON.stringify(
    profiles.map((profile) => ({
      id: profile.merchantId,
      version: profile.meta.version,
      profile,
      score: profile.meta.dataConfidenceScore,
    })),
  );
  const bundled = `jsonb_to_recordset($1::jsonb) AS b(id varchar, version varchar, profile jsonb, score numeric)`;
  const written: unknown[] = await dataSource.query(
    `INSERT INTO merchants AS m (id, version, profile, data_confidence_score)
     SELECT b.id, b.version, b.profile, b.score FROM ${bundled} ORDER BY b.id
     ON CONFLICT (id) DO UPDATE
        SET version = excluded.version, profile = excluded.profile,
            data_confidence_score = excluded.data_confidence_score, updated_at = now()
      WHERE NOT m.edited_by_operator AND m.profile IS DISTINCT FROM excluded.profile
     RETURNING m.id`,
    [bundle],
  );
  const kept: unknown[] = await dataSource.query(
    `SELECT m.id FROM merchants m JOIN ${bundled} ON b.id = m.id
      WHERE m.edited_by_operator AND m.profile IS DISTINCT FROM b.profile`,
    [bundle],
  );
  return { written: written.length, keptOperatorEdits: kept.length };
}
