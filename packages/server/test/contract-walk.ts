import { API_BASE, CALLS, type CallDefinition, type CallName } from '@foyer/contract';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { randomToken, sha256Hex } from '../src/lib/crypto.js';
import { newDeviceId, uniqueEmail, xsrf, type TestApp } from './helpers.js';

/**
 * Walks the contract's CALLS registry, so a call or field added later is covered by the tests
 * that use this without anyone listing it.
 */

export type InputPart = 'body' | 'params';

export interface InputField {
  part: InputPart;
  name: string;
  /** A closed list (z.enum): its values, for a sample that passes. */
  options?: readonly string[];
  type: 'string' | 'boolean' | 'other';
}

export interface WalkedCall {
  name: CallName;
  call: CallDefinition;
  fields: InputField[];
}

interface JsonProperty {
  type?: unknown;
  enum?: readonly string[];
}

/** The top-level fields of a call's body and path parameters, read from their JSON Schema. */
function inputFields(call: CallDefinition): InputField[] {
  return (['body', 'params'] as const).flatMap((part) => {
    const schema = call[part];
    if (schema === undefined) return [];
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    const properties = (json.properties ?? {}) as Record<string, JsonProperty>;
    return Object.entries(properties).map(([name, property]): InputField => {
      const type = property.type === 'string' || property.type === 'boolean' ? property.type : 'other';
      return { part, name, type, ...(property.enum === undefined ? {} : { options: property.enum }) };
    });
  });
}

export const WALKED_CALLS: WalkedCall[] = (Object.entries(CALLS) as [CallName, CallDefinition][]).map(([name, call]) => ({
  name,
  call,
  fields: inputFields(call),
}));

/** Values for fields with a fixed shape; any other text field takes FALLBACK. */
const SAMPLES: Record<string, () => string> = {
  email: () => uniqueEmail('walk'),
  newEmail: () => uniqueEmail('walk'),
  deviceId: newDeviceId,
  hashPassword: () => sha256Hex(randomToken()),
  signature: () => sha256Hex('signature'),
};
/** Fits every free-text and token-shaped field (base64url alphabet, 16 to 100 characters). */
const FALLBACK = 'Sample_value-0123456789';

/** A body and path parameters that pass the call's schema, so only a changed field can fail. */
export function validInput(walked: WalkedCall): Record<InputPart, Record<string, unknown>> {
  const input: Record<InputPart, Record<string, unknown>> = { body: {}, params: {} };
  for (const field of walked.fields) {
    input[field.part][field.name] =
      field.type === 'boolean' ? false : field.options !== undefined ? field.options[0] : (SAMPLES[field.name]?.() ?? FALLBACK);
  }
  return input;
}

/** encodeURIComponent, except that a lone surrogate is sent as the bytes an attacker would use. */
function encodePathValue(value: string): string {
  return Array.from(value, (character) => {
    const unit = character.charCodeAt(0);
    if (character.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      // Generalised UTF-8 of the code unit (what a hand-made URL carries; it is not valid UTF-8).
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    }
    return encodeURIComponent(character);
  }).join('');
}

export function callPath(call: CallDefinition, params: Record<string, unknown>): string {
  return API_BASE + call.path.replace(/:([A-Za-z]+)/g, (_, key: string) => encodePathValue(String(params[key] ?? '')));
}

/** True when the app serves the call (calls of a later capability are declared before they live). */
export function isServed(t: TestApp, call: CallDefinition): boolean {
  return t.app.hasRoute({ method: call.method, url: API_BASE + call.path });
}

/** Sends a call as the web app does (JSON, XSRF pair); extra headers and cookies go on top. */
export function sendCall(
  t: TestApp,
  call: CallDefinition,
  input: Record<InputPart, Record<string, unknown>>,
  extra: { headers?: Record<string, string>; cookies?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const pair = xsrf();
  return t.app.inject({
    method: call.method,
    url: callPath(call, input.params),
    cookies: { ...pair.cookies, ...extra.cookies },
    headers: { ...pair.headers, ...extra.headers },
    ...(call.method === 'GET' ? {} : { payload: input.body }),
  });
}
