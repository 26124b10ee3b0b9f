import { html, type Html } from '../html.js';
import { document } from './layout.js';

const TITLES: Record<number, string> = {
  400: 'That request could not be used',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Too large',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Unavailable',
};

/** A standalone error page (no navigation, so it works whether or not the reader is signed in). */
export function errorPage(status: number, message: string, traceId: string): Html {
  const title = TITLES[status] ?? 'Error';
  return document(title, html`
<main id="main" class="login">
  <div class="card login-card">
    <p class="brand">Atelier</p>
    <h1>${title}</h1>
    <p>${message}</p>
    <p class="hint">Status ${status} · trace ${traceId}</p>
    <p><a class="button" href="/runs">Go to your runs</a></p>
  </div>
</main>`);
}
