import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../test/helpers.js';

const run = promisify(execFile);

/**
 * An ESM entry point that measures the threadpool it got: it occupies all threads but one with
 * reads of FIFOs that no one writes yet, then checks that one more file operation still runs.
 */
const PROBE = `
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
const dir = fs.mkdtempSync(process.argv[2] + '/fifo-');
const fifos = Array.from({ length: size - 1 }, (_, i) => dir + '/f' + i);
for (const fifo of fifos) {
  execFileSync('mkfifo', [fifo]);
  fs.open(fifo, 'r', (error, fd) => { if (!error) fs.close(fd, () => undefined); });
}
let answered = false;
let timer;
const answer = (free) => {
  if (answered) return;
  answered = true;
  clearTimeout(timer);
  console.log(JSON.stringify({ size, free }));
  for (const fifo of fifos) { try { fs.closeSync(fs.openSync(fifo, 'w')); } catch {} }
};
timer = setTimeout(() => answer(false), 2000);
fs.stat(dir, () => answer(true));
`;

/**
 * Decision 0011: threadpool.cts, preloaded with --require as npm start does, sizes libuv's pool to
 * the cores plus four before the ESM entry point is read; the operator's own value wins. It runs
 * the file compiled as the build compiles it. Not about the database: the SQLite project runs it.
 */
describe.skipIf(TEST_DB !== 'sqlite')('threadpool preload', () => {
  let dir = '';
  let preload = '';
  let probe = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'foyer-threadpool-'));
    const source = await readFile(new URL('./threadpool.cts', import.meta.url), 'utf8');
    const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
    preload = join(dir, 'threadpool.cjs');
    probe = join(dir, 'probe.mjs');
    await writeFile(preload, output.outputText);
    await writeFile(probe, PROBE);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function measure(env: Record<string, string>): Promise<{ size: number; free: boolean }> {
    const { stdout } = await run(process.execPath, ['--require', preload, probe, dir], { env: { PATH: process.env.PATH ?? '', ...env } });
    return JSON.parse(stdout) as { size: number; free: boolean };
  }

  it('gives the pool one thread per core plus four, in effect for an ESM entry point', async () => {
    const expected = Math.min(1024, availableParallelism() + 4);
    expect(await measure({})).toEqual({ size: expected, free: true });
  });

  it('keeps a size the operator set', async () => {
    expect(await measure({ UV_THREADPOOL_SIZE: '7' })).toEqual({ size: 7, free: true });
  });
});
