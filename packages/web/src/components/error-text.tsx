import type { MessageKey } from '@foyer/contract/core';
import { useT } from '../lib/i18n';

/**
 * A failure's text inside an alert. Spec §8's 'Network Error' stays as it is, and a second line
 * says what to do about it: the bare words leave a person wondering whether to wait, retry or
 * give up.
 */
export function ErrorText({ messageKey }: { messageKey: MessageKey }) {
  const t = useT();
  return (
    <>
      <p>{t(messageKey)}</p>
      {messageKey === 'error.network' ? <p>{t('error.networkNextStep')}</p> : null}
    </>
  );
}
