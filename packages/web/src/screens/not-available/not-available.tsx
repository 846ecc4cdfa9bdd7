import { ROUTES } from '@foyer/contract/core';
import { Button } from '../../components/button';
import { CardLayout } from '../../components/card-layout';
import { useT } from '../../lib/i18n';

/**
 * The honest placeholder for a screen whose capability has not shipped yet: it says so and
 * leads back to sign-in, rather than showing a form that cannot work.
 */
export function NotAvailable() {
  const t = useT();
  return (
    <CardLayout title={t('common.notAvailableTitle')}>
      <p className="lead">{t('common.notAvailableBody')}</p>
      <Button variant="strong" block to={ROUTES.signIn}>
        {t('common.backToSignIn')}
      </Button>
    </CardLayout>
  );
}
