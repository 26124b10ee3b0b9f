/**
 * A browser-like HTTP client for the web app's HTTP-level tests: keeps cookies, never follows redirects
 * (tests look at them), posts forms, and reads the CSRF token out of the page it last loaded.
 */
export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
}

export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, opts: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<WebResponse> {
    const headers: Record<string, string> = { accept: 'text/html', ...(opts.headers ?? {}) };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const c of setCookies) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location'), setCookies };
  }

  get(path: string, headers?: Record<string, string>): Promise<WebResponse> {
    return this.request('GET', path, { headers });
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<WebResponse> {
    return this.request('POST', path, { form, headers });
  }

  /** Signs in through the form, as a person would: load it (cookie + token), then post it. */
  async signIn(email: string, password: string): Promise<WebResponse> {
    const form = await this.get('/login');
    return this.post('/login', { _csrf: csrfOf(form.text), email, password, next: '/runs' });
  }

  /** The CSRF token of a signed-in page. */
  async csrf(path = '/runs'): Promise<string> {
    return csrfOf((await this.get(path)).text);
  }
}

export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF field in the page: ${html.slice(0, 300)}`);
  return m[1]!;
}
