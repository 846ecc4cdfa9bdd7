import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { TEST_DB, dbUnavailable, useTestApp } from '../../test/helpers.js';
import { OPENAPI_COMMAND, generateOpenApi } from '../cli/openapi.js';
import { OPENAPI_FILE, OPENAPI_PATH, formatOpenApi } from './openapi.js';

const stale = `packages/server/openapi.json is stale: run \`${OPENAPI_COMMAND}\` and commit the result`;

// The document does not depend on the database, so one project checks it.
describe.skipIf(TEST_DB === 'postgres')('the committed OpenAPI document (decision 0017)', () => {
  it('is what the routes declare', async () => {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => 'missing');
    expect(await generateOpenApi(), stale).toBe(committed);
  }, 30_000);
});

describe.skipIf(dbUnavailable || TEST_DB === 'postgres')('the served OpenAPI document', () => {
  const t = useTestApp({ env: { PUBLIC_URL: 'https://auth.example.test' } });

  it('is the committed one, whatever the configuration', async () => {
    const served = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(formatOpenApi(served.json()), stale).toBe(await readFile(OPENAPI_FILE, 'utf8'));
  });
});
