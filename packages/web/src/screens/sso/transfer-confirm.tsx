import { ROUTES } from '@foyer/contract/core';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { fillNodes, useT } from '../../lib/i18n';
import { EmailText } from '../../components/email-text';

/**
 * Decision 0021: a page handed a transfer token it did not ask for (the device hand-off, an
 * `/ssol/` address of a sign-in this browser did not start) names the account and signs in only
 * when the person says so. Someone who minted a token for their own account and sent its link
 * would otherwise sign this browser in to it (login CSRF). Cancel goes to sign-in; the token is
 * left unspent and runs out.
 */
export function TransferConfirm({ title, email, busy, onContinue }: { title: string; email: string; busy: boolean; onContinue: () => void }) {
  const t = useT();
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
        <Button variant="strong" block loading={busy} onClick={onContinue}>
          {t('transfer.continue')}
        </Button>
        <Button variant="flat" block to={ROUTES.signIn}>
          {t('common.cancel')}
        </Button>
      </div>
    </CardLayout>
  );
}
