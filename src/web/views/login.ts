import { html, type Html } from '../html.js';
import { document, notice, type Notice } from './layout.js';

/** The sign-in form. `csrfToken` is the pre-session token also set as a cookie (double submit). */
export function loginPage(opts: { csrfToken: string; next: string; email?: string; notice?: Notice }): Html {
  return document('Sign in', html`
<main id="main" class="login">
  <div class="card login-card">
    <p class="brand">Atelier</p>
    <h1>Sign in</h1>
    ${notice(opts.notice)}
    <form method="post" action="/login" class="stack">
      <input type="hidden" name="_csrf" value="${opts.csrfToken}">
      <input type="hidden" name="next" value="${opts.next}">
      <div class="field">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${opts.email ?? ''}"${opts.email ? '' : html` autofocus`}>
      </div>
      <div class="field">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000"${opts.email ? html` autofocus` : ''}>
      </div>
      <button type="submit" class="button primary">Sign in</button>
    </form>
    <p class="hint">Users are created by the operator: <code>npx atelier users create --email … --password …</code></p>
  </div>
</main>`);
}
