/** Headless Chromium (Debian's package) driven by playwright-core, for the explorer's tests. */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = CANDIDATES.find((p): p is string => p !== undefined && existsSync(p));
  if (!found) throw new Error('no Chromium found: install Debian\'s "chromium" package (apt-get install chromium) or set CHROMIUM_PATH');
  return found;
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Screenshots go to dist/screenshots/explorer (kept as test artifacts, not committed). */
export const SCREENSHOTS = fileURLToPath(new URL('../../screenshots/explorer/', import.meta.url));

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** Wait until the current view has finished rendering. */
export async function ready(page: Page): Promise<void> {
  await page.waitForSelector('.view[data-ready="true"]', { timeout: 20_000 });
}
