import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { dbUnavailable, useTestApp } from '../../test/helpers.js';
import { IDP_KEYS, ROLLOVER_KEYS, idpMetadata } from '../../test/saml-idp.js';
import { metadataFile } from '../../test/sso.js';
import { listAuditEvents } from '../features/audit/audit.repo.js';
import { openClientSecret } from '../features/sso/sso.secret.js';
import { EXIT, runAdmin } from './admin.js';

describe.skipIf(dbUnavailable)('admin CLI: sso commands (decision 0022)', () => {
  const t = useTestApp();

  async function run(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(argv, { deps: t.deps, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  }

  async function org(): Promise<{ id: string; name: string; domain: string }> {
    const name = `Org ${Math.random().toString(36).slice(2, 10)}`;
    const domain = `${name.slice(4)}.example`;
    const created = await run('org', 'create', '--name', name, '--domain', domain, '--sso-required');
    expect(created.code, created.stderr).toBe(EXIT.ok);
    return { id: created.stdout.trim(), name, domain };
  }

  it('add-saml imports metadata from a file (every signing certificate) and prints what the IdP needs; the SP metadata is served', async () => {
    const o = await org();
    const result = await run('sso', 'add-saml', '--org', o.name, '--metadata', metadataFile(idpMetadata({ certs: [IDP_KEYS.cert, ROLLOVER_KEYS.cert] })));
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain('https://idp.corp.example/saml');
    expect(result.stdout).toContain('IdP signing certificates:   2');
    const id = /as (sso_[A-Za-z0-9_-]+)/.exec(result.stdout)?.[1] ?? '';
    const entityId = `http://localhost:8080/sso/saml/${id}/metadata`;
    expect(result.stdout).toContain(`SP entity ID:               ${entityId}`);
    expect(result.stdout).toContain(`Assertion consumer (POST):  http://localhost:8080/sso/saml/${id}/acs`);
    expect(result.stdout).toContain(`SP metadata:                ${entityId}`);
    const row = await t.db.selectFrom('sso_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.saml_idp_certs ?? '[]')).toHaveLength(2);

    const metadata = await t.app.inject({ method: 'GET', url: `/sso/saml/${id}/metadata` });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.headers['content-type']).toContain('application/samlmetadata+xml');
    expect(metadata.body).toContain(`entityID="${entityId}"`);
    expect(metadata.body).toContain(`Location="http://localhost:8080/sso/saml/${id}/acs"`);
    expect(metadata.body).toContain('WantAssertionsSigned="true"');
    expect((await t.app.inject({ method: 'GET', url: '/sso/saml/sso_unknown/metadata' })).statusCode).toBe(404);
    expect((await listAuditEvents(t.db, { type: 'sso.connectionAdded' })).length).toBeGreaterThan(0);
  });

  it('add-saml reads metadata from an address', async () => {
    const o = await org();
    const server = createServer((_request, response) => response.end(idpMetadata({ entityId: 'https://idp.remote.example/' })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await run('sso', 'add-saml', '--org', o.id, '--metadata', `http://127.0.0.1:${port}/metadata`);
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stdout).toContain('https://idp.remote.example/');
    } finally {
      server.close();
    }
    const plain = await run('sso', 'add-saml', '--org', (await org()).id, '--metadata', 'http://idp.example/metadata');
    expect(plain.code).toBe(EXIT.failed);
    expect(plain.stderr).toContain('https');
  });

  it('refuses metadata it cannot use, an unknown organisation, and a second connection', async () => {
    const o = await org();
    const bad: Array<[string, RegExp]> = [
      ['<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>', /no identity provider/],
      [idpMetadata({ certs: [] }), /no signing certificate/],
      [`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idpMetadata()}`, /not acceptable XML/],
      [idpMetadata().replace(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>bm90IGEgY2VydA=='), /certificate cannot be read/],
    ];
    for (const [xml, message] of bad) {
      const result = await run('sso', 'add-saml', '--org', o.id, '--metadata', metadataFile(xml));
      expect(result.code, xml).toBe(EXIT.failed);
      expect(result.stderr).toMatch(message);
    }
    expect((await run('sso', 'add-saml', '--org', 'no such org', '--metadata', metadataFile(idpMetadata()))).stderr).toContain('no organisation');
    expect((await run('sso', 'add-saml', '--org', o.id, '--metadata', metadataFile(idpMetadata()))).code).toBe(EXIT.ok);
    const second = await run('sso', 'add-oidc', '--org', o.id, '--issuer', 'https://login.example', '--client-id', 'a', '--client-secret', 'b');
    expect(second.code).toBe(EXIT.failed);
    expect(second.stderr).toContain('already has a connection');
    expect((await run('sso', 'add-saml', '--org', o.id)).code).toBe(EXIT.usage);
  });

  it('add-oidc stores the client secret sealed and prints the redirect URI; list shows both kinds; remove takes it away', async () => {
    const o = await org();
    const added = await run(
      'sso',
      'add-oidc',
      '--org',
      o.id,
      '--issuer',
      'https://login.corp.example',
      '--client-id',
      'foyer',
      '--client-secret',
      '-very-secret-value',
    );
    expect(added.code, added.stderr).toBe(EXIT.ok);
    const id = /as (sso_[A-Za-z0-9_-]+)/.exec(added.stdout)?.[1] ?? '';
    expect(added.stdout).toContain(`http://localhost:8080/sso/oidc/${id}/callback`);
    const row = await t.db.selectFrom('sso_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.oidc_client_secret).not.toContain('very-secret-value');
    expect(openClientSecret(t.config, id, row.oidc_client_secret ?? '')).toBe('-very-secret-value');
    expect(
      (await run('sso', 'add-oidc', '--org', (await org()).id, '--issuer', 'http://login.example', '--client-id', 'a', '--client-secret', 'b')).code,
    ).toBe(EXIT.failed);

    const list = await run('sso', 'list');
    expect(list.code).toBe(EXIT.ok);
    expect(list.stdout).toContain(`${o.name} (${o.id})  oidc  https://login.corp.example  ${id}`);

    const removed = await run('sso', 'remove', '--org', o.name);
    expect(removed.code).toBe(EXIT.ok);
    expect(removed.stdout).toContain(`oidc connection (${id})`);
    expect((await run('sso', 'list')).stdout).not.toContain(id);
    const again = await run('sso', 'remove', '--org', o.name);
    expect(again.code).toBe(EXIT.failed);
    expect(again.stderr).toContain('has no connection');
  });

  it('lists the sso commands in the help', async () => {
    const help = await run('--help');
    for (const command of ['sso add-saml', 'sso add-oidc', 'sso list', 'sso remove']) expect(help.stdout).toContain(command);
  });
});
