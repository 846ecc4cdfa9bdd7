import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PageSpinner } from './components/card-layout';
import { setCallTimeout } from './lib/api';
import { listenForErrors } from './lib/error-listener';
import { I18nProvider } from './lib/i18n';
import { RuntimeConfigProvider, readInlineDictionary, readRuntimeConfig } from './lib/runtime-config';
import { Page } from './page';
import './styles.css';

listenForErrors();

const config = readRuntimeConfig();
setCallTimeout(config.httpTimeoutMs ?? 0);

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <RuntimeConfigProvider value={config}>
      <I18nProvider inline={readInlineDictionary()} languages={navigator.languages} fallback={<PageSpinner />}>
        <Page pathname={window.location.pathname} />
      </I18nProvider>
    </RuntimeConfigProvider>
  </StrictMode>,
);
