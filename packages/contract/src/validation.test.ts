import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { CALLS, SignUpBody } from './calls.js';
import { hasControlCharacters, isValidEmail, normalizeEmail, passwordLengthOk, signInReady, ssoSignInReady } from './validation.js';

describe('email pattern (spec §5)', () => {
  it.each([
    'ann@example.com',
    'Ann.Lee+snippets@mail.example.co.uk',
    '0ann@example.com',
    "o'brien@example.ie",
    'a_b-c@sub-domain.example.org',
    `${'a'.repeat(64)}@example.com`,
    `ann@${'b'.repeat(63)}.com`,
  ])('accepts %s', (email) => {
    expect(isValidEmail(email)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['no at', 'ann.example.com'],
    ['starts with a dot', '.ann@example.com'],
    ['starts with a plus', '+ann@example.com'],
    ['local part of 65', `${'a'.repeat(65)}@example.com`],
    ['label of 64', `ann@${'b'.repeat(64)}.com`],
    ['single label', 'ann@localhost'],
    ['leading hyphen label', 'ann@-example.com'],
    ['trailing hyphen label', 'ann@example-.com'],
    ['empty label', 'ann@example..com'],
    ['two dots in a row in the local part', 'ann..lee@example.com'],
    ['two ats', 'ann@bob@example.com'],
    ['space', 'ann lee@example.com'],
    ['trailing newline', 'ann@example.com\n'],
    ['angle brackets', '<ann@example.com>'],
    ['script', '<script>@example.com'],
    ['unicode domain', 'ann@exämple.com'],
    ['too long overall', `${'a'.repeat(64)}@${Array.from({ length: 4 }, () => 'b'.repeat(63)).join('.')}.com`],
  ])('refuses %s', (_, email) => {
    expect(isValidEmail(email)).toBe(false);
  });

  it('normalises for per-email rules', () => {
    expect(normalizeEmail('  Ann@Example.COM ')).toBe('ann@example.com');
  });
});

describe('password and sign-in rules (spec §5)', () => {
  it('needs at least 8 characters, counted as characters not bytes', () => {
    expect(passwordLengthOk('1234567')).toBe(false);
    expect(passwordLengthOk('12345678')).toBe(true);
    expect(passwordLengthOk('🔑🔑🔑🔑🔑🔑🔑')).toBe(false);
    expect(passwordLengthOk('x'.repeat(64))).toBe(true);
  });

  it('sign-in needs both trimmed fields', () => {
    expect(signInReady('ann@example.com', '   ')).toBe(false);
    expect(signInReady('  ', 'secret')).toBe(false);
    expect(signInReady('a', 'b')).toBe(true);
  });

  it('SSO sign-in needs only a trimmed email', () => {
    expect(ssoSignInReady(' \t ')).toBe(false);
    expect(ssoSignInReady(' ann@corp.example ')).toBe(true);
  });

  it('sign-up body refuses blank names and bad emails with the fields named', () => {
    const result = SignUpBody.safeParse({
      deviceId: 'abcdefghijkl',
      email: 'not-an-email',
      hashPassword: 'a'.repeat(64),
      firstName: '   ',
      lastName: 'Lee',
    });
    expect(result.success).toBe(false);
    const fields = result.error?.issues.map((issue) => issue.path.join('.')).sort();
    expect(fields).toEqual(['email', 'firstName']);
  });
});

/** NUL, other C0 controls, DEL, a C1 control (NEL) and a lone surrogate. */
const CONTROL_SAMPLES = ['\u0000', '\u0001', '\n', '\u001b', '\u007f', '\u0085', '\ud800', '\udc00'];

/**
 * The free-text string properties of an object schema (enums have their own closed list), read
 * from its JSON Schema so that a field added later is walked too.
 */
function stringFields(schema: z.ZodMiniType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const properties = (json.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>;
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'string' && property.enum === undefined)
    .map(([name]) => name);
}

describe('control characters (no request text reaches storage with one)', () => {
  it.each(CONTROL_SAMPLES.map((character) => [JSON.stringify(character), character]))('refuses %s', (_, character) => {
    expect(hasControlCharacters(`Ann${character}Lee`)).toBe(true);
  });

  it('accepts ordinary text in any script, emoji included', () => {
    for (const value of ['Ann Lee', 'Zoë Ødegård', '李小龙', 'Ἀθηνᾶ', '🔑 key', 'non\u00a0breaking', '']) {
      expect(hasControlCharacters(value)).toBe(false);
    }
  });

  const schemas = Object.entries(CALLS).flatMap(([name, call]) =>
    (['body', 'params'] as const).flatMap((part) => {
      const schema: z.ZodMiniType | undefined = part in call ? (call as Partial<Record<typeof part, z.ZodMiniType>>)[part] : undefined;
      return schema === undefined ? [] : stringFields(schema).map((field) => ({ label: `${name} ${part}.${field}`, schema, field }));
    }),
  );

  it('finds the text fields of every call', () => {
    expect(schemas.length).toBeGreaterThan(40);
    expect(schemas.map((entry) => entry.label)).toContain('signup body.firstName');
  });

  // The field's own pattern (a token's alphabet, say) may refuse the value too; what is checked
  // is that the control-character rule itself holds on every field, so none depends on luck.
  // A DiscourseConnect payload is checked byte for byte against its signature, and Discourse's
  // base64 carries line feeds: the one field that must take them as sent (decision 0021).
  const SIGNED_WITH_LINE_BREAKS = new Set(['discourseSso body.ssoPayload']);
  // An error report's message and stack are lines of text (decision 0026): tabs and line breaks
  // pass, every other control character is refused; the text is scrubbed and never stored.
  const REPORT_LINES = new Set(['clientErrors body.message', 'clientErrors body.stack']);
  const passes = (label: string, sample: string) =>
    (SIGNED_WITH_LINE_BREAKS.has(label) && sample === '\n') || (REPORT_LINES.has(label) && ['\t', '\r', '\n'].includes(sample));

  it.each(schemas)('$label refuses every control character', ({ label, schema, field }) => {
    for (const character of CONTROL_SAMPLES.filter((sample) => !passes(label, sample))) {
      const result = schema.safeParse({ [field]: `Ann${character}Lee` });
      const messages = result.error?.issues.filter((issue) => issue.path[0] === field).map((issue) => issue.message);
      expect(messages, JSON.stringify(character)).toContain('must not contain control characters');
    }
  });
});
