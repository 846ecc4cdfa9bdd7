import { parseArgs } from 'node:util';
import type { Deps } from '../deps.js';

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface AdminIo {
  deps: Deps;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** One admin command: its arguments after the command's name; returns the exit code. */
export type AdminCommand = (args: string[], io: AdminIo) => Promise<number>;

/** A wrong command line: runAdmin prints the message and the usage, and exits 2. */
export class UsageError extends Error {}

export function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string') throw new UsageError(`missing --${name}`);
  return value;
}

export function optional(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
