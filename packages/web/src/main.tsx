import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PageSpinner } from './components/card-layout';
import { I18nProvider } from './lib/i18n';
import { RuntimeConfigProvider, readInlineDictionary, readRuntimeConfig } from './lib/runtime-config';
import { Page } from './page';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <RuntimeConfigProvider value={readRuntimeConfig()}>
      <I18nProvider inline={readInlineDictionary()} languages={navigator.languages} fallback={<PageSpinner />}>
        <Page pathname={window.location.pathname} />
      </I18nProvider>
    </RuntimeConfigProvider>
  </StrictMode>,
);
