/**
 * What the request log must not hold: credentials that arrive in a URL. A signed file URL's `sig` grants
 * the file until it expires; an API key (`gx_…`) pasted into a query string (`?api_key=…`) grants the
 * account. Pure; the request log and the error log both pass URLs through here.
 */
const SECRET_PARAMS = new Set(['sig', 'api_key', 'apikey', 'api-key', 'key', 'token', 'access_token', 'password']);
const KEY_LIKE = /gx_[A-Za-z0-9_-]*/g;

export function maskUrlSecrets(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const maskedPath = path.replace(KEY_LIKE, 'gx_…');
  if (q === -1) return maskedPath;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // A malformed escape keeps its raw name.
    }
    if (eq !== -1 && SECRET_PARAMS.has(name.toLowerCase())) return `${rawName}=…`;
    return pair.replace(KEY_LIKE, 'gx_…').replace(/gx(%5F|%5f)[A-Za-z0-9_%-]*/g, 'gx_…');
  });
  return `${maskedPath}?${query.join('&')}`;
}
