import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

/** A database the process can reach by URL, and how to let go of it. */
export interface DatabaseHandle {
  url: string;
  /** True when this process started the embedded server (and so must close it). */
  isOwner: boolean;
  close(): Promise<void>;
}

/**
 * One connection. PGlite runs one session, and its socket server interleaves the messages of
 * its clients one message at a time: with two connections, one client's Bind could meet the
 * other's Parse (the fuzz suite saw "bind message supplies 1 parameters, but prepared
 * statement requires 2" and rows written with another query's parameters). With one
 * connection the pg driver itself keeps each query's messages together.
 */
export const EMBEDDED_POOL_SIZE = 1;
const EMBEDDED_MAX_CONNECTIONS = 32;

const socketPathOf = (dataDir: string): string => path.join(dataDir, '.s.PGSQL.5432');
const urlOf = (dataDir: string): string =>
  `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;

function canConnect(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True once an embedded database has been created under `dataDir` (by a server or `db migrate`). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'));
}

/**
 * The embedded default (docs/design.md section 3): real PostgreSQL compiled to WASM (PGlite) under
 * `dataDir`, served on a unix socket so TypeORM uses the ordinary `pg` driver and the same
 * migrations. When another Linkpilot process (the server, say) already serves this dataDir,
 * this one connects to it instead, which is how the CLI reaches a running embedded server.
 */
export async function openEmbeddedPostgres(dataDir: string): Promise<DatabaseHandle> {
  const socketPath = socketPathOf(dataDir);
  if (await canConnect(socketPath)) {
    return { url: urlOf(dataDir), isOwner: false, close: () => Promise.resolve() };
  }
  fs.mkdirSync(dataDir, { recursive: true });
  fs.rmSync(socketPath, { force: true }); // left behind by a process that died
  // Loaded lazily: the WASM build is large and only the embedded default needs it.
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  // pg_trgm backs the links search index; production PostgreSQL has it in contrib.
  const db = await PGlite.create(path.join(dataDir, 'pgdata'), { extensions: { pg_trgm } });
  const server = new PGLiteSocketServer({
    db,
    path: socketPath,
    maxConnections: EMBEDDED_MAX_CONNECTIONS,
  });
  await server.start();
  return {
    url: urlOf(dataDir),
    isOwner: true,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
