import { MigrationInterface, QueryRunner } from 'typeorm';

/** Printable ASCII only: what a legal Location header may carry (in a POSIX bracket class). */
const NOT_PRINTABLE_ASCII = '[^!-~]';

/**
 * Links stored before URLs were kept in their WHATWG serialisation may hold characters that
 * are illegal in a Location header (non-ASCII, spaces, controls): the redirect could not serve
 * them. Rewrites those URLs to their serialisation, which names the same resource. Written
 * out here rather than imported, so the migration stays what it was when it first ran.
 */
export class SerialisedLinkUrls1764100000000 implements MigrationInterface {
  name = 'SerialisedLinkUrls1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const rows = (await queryRunner.query(
      `SELECT id, original_url, canonical_url, routed_url FROM links
        WHERE original_url ~ $1 OR canonical_url ~ $1 OR routed_url ~ $1`,
      [NOT_PRINTABLE_ASCII],
    )) as { id: string; original_url: string; canonical_url: string; routed_url: string }[];
    for (const row of rows) {
      await queryRunner.query(
        `UPDATE links SET original_url = $2, canonical_url = $3, routed_url = $4 WHERE id = $1`,
        [
          row.id,
          serialise(row.original_url),
          row.canonical_url === '' ? '' : serialise(row.canonical_url),
          serialise(row.routed_url),
        ],
      );
    }
  }

  async down(): Promise<void> {
    // The serialised form names the same resource; the typed spelling is not kept.
  }
}

function serialise(raw: string): string {
  try {
    return new URL(raw).href;
  } catch {
    // Not parseable (never accepted by the API, but be total): percent-encode what is illegal.
    return raw.replace(/[^!-~]/gu, (char) =>
      [...Buffer.from(char, 'utf8')]
        .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
        .join(''),
    );
  }
}
