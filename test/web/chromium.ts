import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

// Debian's Chromium, driven by playwright-core (nothing downloads a browser). The flags keep it off the
// network this machine does not have: without them it retries blocked connections at every start.
export const CHROMIUM = process.env.ATELIER_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
export const haveChromium = fs.existsSync(CHROMIUM);
export const noChromium = haveChromium ? false : `no Chromium at ${CHROMIUM} (.ci/run installs the Debian package)`;

export interface OpenBrowser {
  browser: BrowserContext;
  page: Page;
  /** The fresh profile folder, removed by close(). */
  profile: string;
  close(): Promise<void>;
}

/** A browser with a fresh profile (nothing carries over between runs) at 1280×800; page errors and console errors go to `errors`. */
export async function openBrowser(errors: string[]): Promise<OpenBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 800 }, timeout: 60_000,
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} (${m.location().url})`);
  });
  return {
    browser, page, profile,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
