import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeConsoleErrors } from '../test/console-errors';
import { json, stubFetch } from '../test/harness';
import { fetchAnswer } from './answers';

const SESSION = 'GET /api/account/session';
const ann = { id: 'u-1', email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', emailVerified: true };

describe('answers read through the contract’s schemas (decision 0017)', () => {
  it('gives a screen the answer as its schema reads it: a field the contract does not name never reaches it', async () => {
    stubFetch({ [SESSION]: () => json(200, { user: { ...ann, passwordHash: 'x' }, expiresAt: '2030-01-01T00:00:00.000Z', extra: 1 }) });
    expect(await fetchAnswer('session')).toEqual({ ok: true, data: { user: ann, expiresAt: '2030-01-01T00:00:00.000Z' } });
  });

  it('answers unexpectedError, and says so, for a success that does not fit the schema', async () => {
    stubFetch({ [SESSION]: () => json(200, { user: { id: 'u-1' }, expiresAt: 'x' }) });
    expect(await fetchAnswer('session')).toEqual({ ok: false, code: 'unexpectedError' });
    expect(takeConsoleErrors()).toEqual([['the answer of session does not fit its contract schema']]);
  });

  it('passes refusals and transport failures on as they are', async () => {
    stubFetch({ [SESSION]: () => json(401, { errorMessage: 'notSignedIn' }) });
    expect(await fetchAnswer('session')).toEqual({ ok: false, code: 'notSignedIn', status: 401, body: { errorMessage: 'notSignedIn' } });
    stubFetch({ [SESSION]: () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(await fetchAnswer('session')).toEqual({ ok: false, code: 'network' });
  });
});

const SRC = resolve(import.meta.dirname, '..');
const CONTRACT = resolve(SRC, '../../contract/src');

/** Where an import of the page's source leads: a file of ours, or the name of a package. */
function resolveImport(from: string, target: string): string {
  if (target === '@foyer/contract') return join(CONTRACT, 'index.ts');
  if (target === '@foyer/contract/core') return join(CONTRACT, 'core.ts');
  if (!target.startsWith('.')) return target;
  const base = resolve(dirname(from), target.replace(/\.js$/, ''));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      // not this one
    }
  }
  return base;
}

/** The modules a file loads before it runs: its static value imports, transitively (not `import()`, not types). */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  if (!file.startsWith('/') || /\.(css|json|svg)$/.test(file)) return seen;
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?'([^']+)'/gms)) {
    staticGraph(resolveImport(file, match[1] ?? ''), seen);
  }
  return seen;
}

describe('the sign-in page’s first load', () => {
  it('reaches no zod and no schema: it reads nothing of an answer', () => {
    const graph = [...staticGraph(join(SRC, 'main.tsx'))];
    expect(graph).toContain(join(SRC, 'lib/api.ts'));
    expect(graph.filter((module) => module.startsWith('zod') || /answers\.ts$|contract\/src\/(calls|fields|runtime-config)\.ts$/.test(module))).toEqual(
      [],
    );
  });
});
