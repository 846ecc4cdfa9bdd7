import { parentPort } from 'node:worker_threads';
import { serviceProviderMetadata } from './saml.metadata.js';
import { authnRequestUrl, validateSamlResponse } from './saml.response.js';
import type { SamlJob, SamlJobResult } from './saml.thread.js';
import { SsoFailure } from './sso.failure.js';

/**
 * The SAML thread (saml.thread.ts): one job at a time, each answered with its value, the refusal
 * it ended in (code and reason, for the landing page and the audit log), or an error's message.
 */
async function run(job: SamlJob): Promise<SamlJobResult> {
  try {
    if (job.kind === 'response') return { ok: true, value: await validateSamlResponse(job.settings, job.samlResponse, job.now) };
    if (job.kind === 'metadata') return { ok: true, value: serviceProviderMetadata(job) };
    return { ok: true, value: await authnRequestUrl(job.settings, { requestId: job.requestId, relayState: job.relayState }) };
  } catch (error) {
    if (error instanceof SsoFailure) return { ok: false, failure: { code: error.code, reason: error.reason } };
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort;
if (port === null) throw new Error('saml.worker runs as a worker thread of saml.thread.ts');
port.on('message', (job: SamlJob) => {
  void run(job).then((result) => port.postMessage(result));
});
