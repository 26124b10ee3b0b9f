/**
 * The hosted service is addressed under `/api` (`https://api.magica.com/api/v1/...`, MCP at `/api/mcp`),
 * and some of its clients use a bare origin (`/v1/...`, `/mcp`): both forms must reach the same routes
 * (README, "Moving from the hosted service"). One rewrite before routing does it, so auth, rate limits,
 * errors, SSE and file URLs cannot differ between the forms.
 */
const HOSTED_PREFIX = '/api';

/** The URL routed for a request URL: `/api/v1/...` → `/v1/...`, `/api/mcp` → `/mcp`; anything else as it is. */
export function routedUrl(url: string): string {
  if (!url.startsWith(HOSTED_PREFIX)) return url;
  const rest = url.slice(HOSTED_PREFIX.length);
  for (const root of ['/v1', '/mcp']) {
    if (rest.startsWith(root)) {
      const next = rest.charAt(root.length);
      if (next === '' || next === '/' || next === '?') return rest;
    }
  }
  return url;
}
