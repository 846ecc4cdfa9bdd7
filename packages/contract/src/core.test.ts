import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Follows the value (non-type) imports and re-exports of a module, transitively. */
function valueImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(new URL(file, import.meta.url), 'utf8');
  for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
    const target = match[1] ?? '';
    if (target.startsWith('./')) valueImports(target.replace(/\.js$/, '.ts'), seen);
    else seen.add(target);
  }
  return seen;
}

describe('the zod-free entry for the browser', () => {
  it('core reaches no zod, so the sign-in bundle carries none', () => {
    const reached = valueImports('./core.ts');
    expect([...reached].filter((name) => name.startsWith('zod') || name.endsWith('calls.ts') || name.endsWith('fields.ts'))).toEqual([]);
  });

  it('the full entry still has every schema', () => {
    expect(valueImports('./index.ts').has('zod/mini')).toBe(true);
  });
});
