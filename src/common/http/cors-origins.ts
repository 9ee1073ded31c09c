/**
 * Whether a browser origin may call authenticated endpoints: exact origins, or `*.` host
 * wildcards standing for any subdomain (`https://*.linkpilot.io` admits
 * `https://app.linkpilot.io` but not `https://linkpilot.io.evil.com`).
 */
export function isAllowedOrigin(origin: string, allowed: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return allowed.some((pattern) => {
    if (!pattern.includes('*.')) return pattern === origin;
    const [scheme, host] = pattern.split('://*.');
    return (
      parsed.protocol === `${scheme}:` &&
      parsed.host.endsWith(`.${host}`) &&
      parsed.host.length > host.length + 1
    );
  });
}
