import { describe, expect, it } from 'vitest';
import { SignUpBody } from './calls.js';
import { isValidEmail, normalizeEmail, passwordLengthOk, signInReady } from './validation.js';

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
