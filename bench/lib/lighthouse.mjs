// Lighthouse (mobile emulation, its default; simulated throttling) on one URL, in Debian
// Chromium started by chrome-launcher. Runs as its own process so Lighthouse's memory and
// modules stay out of the harness:
//   node bench/lib/lighthouse.mjs <url>   → one JSON line { performance, accessibility, lcpMs, ... }
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';

async function audit(url) {
  const { launch } = await import('chrome-launcher');
  const { default: lighthouse } = await import('lighthouse');
  const chrome = await launch({
    chromePath: CHROME_PATH,
    chromeFlags: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    logLevel: 'silent',
  });
  try {
    const result = await lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
    });
    const { lhr } = result;
    const score = (id) => (lhr.categories[id]?.score == null ? null : Math.round(lhr.categories[id].score * 100));
    const numeric = (id) => lhr.audits[id]?.numericValue ?? null;
    const failedAccessibility = (lhr.categories.accessibility?.auditRefs ?? [])
      .map((ref) => lhr.audits[ref.id])
      .filter((item) => item && item.score !== null && item.score < 1 && item.scoreDisplayMode === 'binary')
      .map((item) => item.id);
    // What Lighthouse says would help most: opportunities with savings, and failing diagnostics.
    const advice = Object.values(lhr.audits)
      .filter(
        (item) =>
          item.score !== null &&
          item.score < 0.9 &&
          ['opportunity', 'table', 'list'].includes(item.details?.type) &&
          item.scoreDisplayMode !== 'informative',
      )
      .map((item) => ({ id: item.id, score: item.score, displayValue: item.displayValue ?? null }))
      .slice(0, 12);
    return {
      url,
      advice,
      lighthouseVersion: lhr.lighthouseVersion,
      userAgent: lhr.environment?.hostUserAgent ?? null,
      formFactor: lhr.configSettings.formFactor,
      throttlingMethod: lhr.configSettings.throttlingMethod,
      performance: score('performance'),
      accessibility: score('accessibility'),
      lcpMs: numeric('largest-contentful-paint'),
      fcpMs: numeric('first-contentful-paint'),
      tbtMs: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      failedAccessibility,
      runtimeError: lhr.runtimeError?.message ?? null,
      runWarnings: lhr.runWarnings ?? [],
    };
  } finally {
    await chrome.kill();
  }
}

/** Runs the audit in a child process and returns its figures. */
export function runLighthouse(url, timeoutMs = 180_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`lighthouse exited with ${code ?? signal}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (error) {
        reject(new Error(`lighthouse printed no result: ${error.message}\n${err.slice(-2000)}`));
      }
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.argv[2];
  if (!url) throw new Error('usage: node bench/lib/lighthouse.mjs <url>');
  process.stdout.write(`${JSON.stringify(await audit(url))}\n`);
}
