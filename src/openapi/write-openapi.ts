import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../app.module';
import { projectRoot } from '../common/project-root';
import { loadConfig } from '../config/env';
import { createOpenApiDocument } from './openapi-document';

/**
 * `npm run openapi`: writes the document to openapi.json; with `--check`, exits 1 when the
 * committed file differs from what the code describes (`npm run check` runs that). Nest's
 * preview mode reads the modules' metadata without instantiating providers: no database,
 * Redis or network.
 */
async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(loadConfig({ LOG_LEVEL: 'silent' })),
    new FastifyAdapter(),
    { preview: true, logger: false, abortOnError: false },
  );
  const text = `${JSON.stringify(createOpenApiDocument(app), null, 2)}\n`;
  await app.close();
  const path = join(projectRoot(), 'openapi.json');
  if (!process.argv.includes('--check')) {
    writeFileSync(path, text);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(path, 'utf8');
  } catch {
    // A missing file is as stale as an old one.
  }
  if (committed !== text) {
    process.stderr.write('openapi.json is stale: run `npm run openapi` and commit the result.\n');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `openapi: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
