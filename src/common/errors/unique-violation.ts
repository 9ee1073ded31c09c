/**
 * Whether a failed statement broke this unique index or constraint (SQLSTATE 23505), as
 * TypeORM wraps the driver's error (node-postgres and PGlite alike).
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const cause = (error as { driverError?: unknown } | null)?.driverError ?? error;
  const {
    code,
    constraint: broken,
    message,
  } = (cause ?? {}) as {
    code?: unknown;
    constraint?: unknown;
    message?: unknown;
  };
  if (code !== '23505') return false;
  return (
    broken === constraint || (typeof message === 'string' && message.includes(`"${constraint}"`))
  );
}
