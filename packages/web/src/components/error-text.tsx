import type { MessageKey } from '@foyer/contract/core';
import { callTimeout } from '../lib/api';
import { useT } from '../lib/i18n';

/** What to do about each of spec §8's generic transport failures. */
const NEXT_STEPS: Partial<Record<MessageKey, MessageKey>> = {
  'error.network': 'error.networkNextStep',
  'error.requestAborted': 'error.requestAbortedNextStep',
  'error.timeout': 'error.timeoutNextStep',
  'error.unsupportedProtocol': 'error.unsupportedProtocolNextStep',
};

/**
 * A failure's text inside an alert. Spec §8's transport texts ('Network Error', 'Request aborted',
 * 'timeout of N ms exceeded', 'Unsupported protocol') stay as they are, and a second line says
 * what to do about them: the bare words leave a person wondering whether to wait, retry or give up.
 */
export function ErrorText({ messageKey }: { messageKey: MessageKey }) {
  const t = useT();
  const next = NEXT_STEPS[messageKey];
  return (
    <>
      <p>{messageKey === 'error.timeout' ? t(messageKey, { ms: callTimeout() }) : t(messageKey)}</p>
      {next === undefined ? null : <p>{t(next)}</p>}
    </>
  );
}
