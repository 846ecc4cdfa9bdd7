import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { RuntimeConfigProvider, useRuntimeConfig } from '../runtime-config';

/**
 * The runtime config with flags kept fresh (decision 0024): the page's inline flags first, then
 * whatever the refresher learns. The refresher is a chunk of its own, imported after the first
 * paint; the sign-in page, which shows nothing a flag gates, never loads it, so its first load
 * stays as it was.
 */
export function LiveFlags({ children }: { children: ReactNode }) {
  const config = useRuntimeConfig();
  const [flags, setFlags] = useState(config.flags);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    import('./flag-refresher')
      .then(({ startFlagRefresher }) => {
        if (!cancelled) stop = startFlagRefresher({ initial: config.flags, context: { environment: config.env }, onChange: setFlags });
      })
      // Offline or a new deploy: the page keeps the flags it was served with.
      .catch(() => undefined);
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [config]);

  const value = useMemo(() => ({ ...config, flags }), [config, flags]);
  return <RuntimeConfigProvider value={value}>{children}</RuntimeConfigProvider>;
}
