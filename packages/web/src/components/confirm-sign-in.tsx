import { ROUTES } from '@foyer/contract/core';
import { useState } from 'react';
import { fillNodes, useT } from '../lib/i18n';
import { Button } from './button';
import { CardLayout } from './card-layout';
import { EmailText } from './email-text';

/**
 * Decisions 0020, 0021, 0023: a page that would sign this browser in to an account it did not ask
 * for (a transfer token handed to the device hand-off or an `/ssol/` address, an emailed link
 * opened where another account is signed in) names the account and goes on only when the person
 * says so: whoever made such a link for their own account would otherwise sign this browser in to
 * it (login CSRF). Continue runs `onContinue` once, showing its progress; Cancel goes to sign-in and
 * leaves the token or link unspent.
 */
export function ConfirmSignIn({ title, email, onContinue }: { title: string; email: string; onContinue: () => unknown }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  return (
    <CardLayout title={title} focusHeading>
      <p className="lead">
        {fillNodes(t('transfer.confirm'), {
          email: (
            <strong>
              <EmailText email={email} />
            </strong>
          ),
        })}
      </p>
      <p className="notice">{t('transfer.onlyIfYou')}</p>
      <div className="stack">
        <Button
          variant="strong"
          block
          loading={busy}
          onClick={() => {
            setBusy(true);
            onContinue();
          }}
        >
          {t('transfer.continue')}
        </Button>
        <Button variant="flat" block to={ROUTES.signIn}>
          {t('common.cancel')}
        </Button>
      </div>
    </CardLayout>
  );
}
