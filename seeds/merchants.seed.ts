import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { projectRoot } from '../src/common/project-root';
import { MerchantEntity } from '../src/merchants/merchant.entity';
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

/** Idempotent: refuses the whole knowledge base if any profile fails, else upserts all 35. */
export async function seedMerchants(dataSource: DataSource): Promise<number> {
  const { profiles } = checkKnowledgeBaseOrThrow();
  await dataSource.getRepository(MerchantEntity).upsert(
    profiles.map((profile) => ({
      id: profile.merchantId,
      version: profile.meta.version,
      profile,
      dataConfidenceScore: profile.meta.dataConfidenceScore,
    })),
    ['id'],
  );
  return profiles.length;
}
