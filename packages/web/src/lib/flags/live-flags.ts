import type { Flags, RuntimeConfig } from '@foyer/contract/core';
import { useEffect, useState } from 'react';
import { useRuntimeConfig } from '../runtime-config';

/**
 * The page's flags kept fresh (decision 0024): the inline ones first, then whatever the refresher
 * learns. The refresher is a chunk of its own, imported after the first paint. The sign-in page,
 * which shows nothing a flag gates, never loads it: its first load stays byte for byte as it was,
 * which is also why this is a hook of the router shell rather than a provider over the runtime
 * config (that would make the first-load chunk export one more name).
 */
export function useLiveFlags(): RuntimeConfig['flags'] {
  const config = useRuntimeConfig();
  const [flags, setFlags] = useState<RuntimeConfig['flags']>(config.flags);

  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    import('./flag-refresher')
      .then(({ startFlagRefresher }) => {
        // isRuntimeConfig checked each flag's type against its default: these are Flags.
        if (!cancelled) stop = startFlagRefresher({ initial: config.flags as Flags, context: { environment: config.env }, onChange: setFlags });
      })
      // Offline, or a new deploy removed the chunk: the page keeps the flags it was served with.
      .catch(() => undefined);
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [config]);

  return flags;
}
