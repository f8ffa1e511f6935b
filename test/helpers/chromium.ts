/**
 * Debian's Chromium for the browser tests (playwright-core drives it; `.ci/run` installs it where
 * apt-get is): where it is, whether it is there, a test title that says why it skips, and its flags.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** A browser test's title, saying why it skips when Chromium is absent. */
export const chromiumTitle = (what: string) =>
  `${what}${hasChromium ? '' : ` (skipped: ${CHROMIUM} is absent; apt-get install -y chromium)`}`;

/** Headless, offline: no sandbox (root in CI), no GPU, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
